/**
 * The live dashboard's page, served by rank 0 (dashboard.ts): one HTML document with its style
 * and script inline, polling `state` twice a second; its charts are uPlot's, which rank 0 serves
 * beside it (nothing is fetched from elsewhere). `query` (the token, when one is needed) is added
 * to every request the page makes.
 */
export const dashboardPage = (query: string): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ttg dashboard</title>
<link rel="stylesheet" href="uplot.css${query}">
<script src="uplot.js${query}"></script>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.2em; color: #222; max-width: 1240px; }
h1 { font-size: 1.3em; margin: 0 0 .3em; } h2 { font-size: 1.05em; margin: 1.1em 0 .3em; }
table { border-collapse: collapse; } th, td { padding: 2px 10px; border-bottom: 1px solid #ddd; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; } #errors li { color: #b00; }
canvas#stream { border: 1px solid #ccc; } #charts { display: flex; flex-wrap: wrap; gap: 8px; }
.legend span { display: inline-block; margin-right: 12px; } .legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; }
.note { color: #666; font-size: 12px; } .bar { background: #4e79a7; height: 8px; display: inline-block; vertical-align: middle; }
</style></head><body data-ticks="0">
<h1>ttg dashboard <span id="status"></span></h1>
<p id="summary">waiting for the ranks...</p>
<p id="fences"></p>
<h2>Progress per TT</h2>
<table id="tts"><thead><tr><th>TT</th><th>run</th><th>ready</th><th>waiting for inputs</th><th>held</th><th>per rank (run)</th></tr></thead><tbody></tbody></table>
<h2>Task stream (last 5 s)</h2>
<canvas id="stream" width="1200" height="60"></canvas>
<div class="legend" id="legend"></div><div class="note" id="sampling"></div>
<h2>Rates</h2>
<div id="charts"></div>
<h2>Ranks</h2>
<table id="ranks"><thead><tr><th>rank</th><th>ready</th><th>running</th><th>tasks/s</th><th>messages sent</th><th>received</th><th>messages/s</th><th>fence</th></tr></thead><tbody></tbody></table>
<h2>Bytes per second between ranks</h2>
<table id="traffic"><thead></thead><tbody></tbody></table>
<h2>Devices</h2>
<table id="devices"><thead><tr><th>rank</th><th>place</th><th>memory used</th><th>pinned</th><th>evictions</th><th>kernels</th><th>host→device</th><th>device→host</th><th>busy</th><th>tasks per stream</th></tr></thead><tbody></tbody></table>
<h2>Errors</h2>
<ul id="errors"><li class="none" style="color:#555">none</li></ul>
<script>
const query = ${JSON.stringify(query)};
const colors = new Map();
const palette = ['#4e79a7','#f28e2b','#e15759','#76b7b2','#59a14f','#edc948','#b07aa1','#ff9da7','#9c755f','#bab0ac'];
const color = (n) => { if (!colors.has(n)) colors.set(n, palette[colors.size % palette.length]); return colors.get(n); };
const esc = (t) => String(t).replace(/&/g,'&amp;').replace(/</g,'&lt;');
const cell = (t, n) => '<td' + (n ? ' class="n"' : '') + '>' + esc(t) + '</td>';
const num = (x) => Math.round(x).toLocaleString('en');
const bytes = (b) => b >= 1 << 30 ? (b / 2 ** 30).toFixed(2) + ' GiB' : b >= 1 << 20 ? (b / 2 ** 20).toFixed(1) + ' MiB' : b >= 1024 ? (b / 1024).toFixed(1) + ' KiB' : num(b) + ' B';
const $ = (id) => document.getElementById(id);
const charts = [];
function chart(title, series, fmt) {
  if (!window.uPlot) return undefined;
  const el = document.createElement('div'); $('charts').appendChild(el);
  const u = new uPlot({ title, width: 400, height: 180, series: [{}, ...series.map((s, i) => ({ label: s, stroke: palette[i % palette.length], value: (u, v) => v == null ? '' : fmt(v) }))],
    axes: [{}, { values: (u, vs) => vs.map(fmt), size: 70 }] }, [[], ...series.map(() => [])], el);
  charts.push(u); return u;
}
let taskChart, msgChart, byteChart, memChart;
function draw(s) {
  const h = s.history;
  if (taskChart === undefined) {
    taskChart = chart('tasks per second', Array.from({ length: s.size }, (_, r) => 'rank ' + r), num);
    msgChart = chart('messages per second (all ranks)', ['messages/s'], num);
    byteChart = chart('bytes per second (all ranks)', ['bytes/s'], bytes);
    memChart = chart('device memory in use (all ranks)', ['in use'], bytes);
  }
  taskChart?.setData([h.t, ...h.tasks]); msgChart?.setData([h.t, h.messages]); byteChart?.setData([h.t, h.bytes]); memChart?.setData([h.t, h.deviceUsed]);
}
function stream(s, ranks) {
  const c = $('stream'); const g = c.getContext('2d');
  const rows = Math.max(1, s.size); c.width = Math.max(600, Math.min(1200, document.body.clientWidth)); c.height = rows * 22 + 4;
  const t1 = s.now, t0 = t1 - 5000, w = c.width - 64, x = (t) => 60 + ((t - t0) / 5000) * w;
  g.font = '11px sans-serif';
  for (let r = 0; r < rows; r++) { g.fillStyle = '#f4f4f4'; g.fillRect(60, 2 + r * 22, w, 20); g.fillStyle = '#333'; g.fillText('rank ' + r, 4, 16 + r * 22); }
  const seen = new Set();
  for (const [rank, tt, start, dur] of s.stream) {
    if (start + dur < t0) continue; seen.add(tt);
    g.fillStyle = color(tt); g.fillRect(x(Math.max(start, t0)), 4 + rank * 22, Math.max(1, Math.min(dur, start + dur - t0) / 5000 * w), 16);
  }
  $('legend').innerHTML = [...seen].sort().map((n) => '<span><i style="background:' + color(n) + '"></i>' + esc(n) + '</span>').join('');
  const every = ranks.map((r) => 'rank ' + r.rank + ': 1 in ' + num(r.every)).join(', ');
  $('sampling').textContent = 'tasks timed for this view: ' + every + ' (the counts above are exact)';
}
function tables(s, ranks) {
  const tts = new Map();
  for (const r of ranks) for (const [name, v] of Object.entries(r.tts)) {
    const t = tts.get(name) || { run: 0, ready: 0, waiting: 0, held: 0, per: [] };
    t.run += v[0]; t.ready += v[1]; t.waiting += v[2]; t.held += v[3]; t.per.push('rank ' + r.rank + ': ' + v[0]); tts.set(name, t);
  }
  document.querySelector('#tts tbody').innerHTML = [...tts].sort((a, b) => a[0] < b[0] ? -1 : 1).map(([n, t]) => '<tr>' + cell(n) + cell(t.run, 1) + cell(t.ready, 1) + cell(t.waiting, 1) + cell(t.held, 1) + cell(t.per.join(', ')) + '</tr>').join('');
  const fence = (r) => r.fence === null ? '' : 'fence ' + r.fence.n + ', ' + (r.fence.ms / 1000).toFixed(1) + ' s';
  document.querySelector('#ranks tbody').innerHTML = ranks.map((r) => '<tr>' + cell(r.rank, 1) + cell(r.ready, 1) + cell(r.running, 1) + cell(num(r.tasksPerS), 1) + cell(r.sent, 1) + cell(r.received, 1) + cell(num(r.messagesPerS), 1) + cell(fence(r)) + '</tr>').join('');
  const inFence = ranks.filter((r) => r.fence !== null);
  $('fences').textContent = inFence.length === 0 ? 'no fence in progress' : 'in a fence: ' + inFence.map((r) => 'rank ' + r.rank + ' (' + fence(r) + ')').join(', ');
  const n = s.size;
  document.querySelector('#traffic thead').innerHTML = '<tr><th>from \\\\ to</th>' + Array.from({ length: n }, (_, r) => '<th>rank ' + r + '</th>').join('') + '</tr>';
  document.querySelector('#traffic tbody').innerHTML = ranks.map((r) => '<tr><th>rank ' + r.rank + '</th>' + Array.from({ length: n }, (_, d) => cell(d === r.rank ? '' : bytes(r.bytesPerS[d] || 0) + '/s', 1)).join('') + '</tr>').join('');
  const dev = [];
  for (const r of ranks) r.devices.forEach((d, i) => dev.push('<tr>' + cell(r.rank, 1) + cell(d.place) + cell(bytes(d.used) + (d.capacity > 0 ? ' of ' + bytes(d.capacity) : ''), 1) + cell(bytes(d.pinned), 1)
    + cell(d.evictions, 1) + cell(d.kernels, 1) + cell(bytes(d.h2d), 1) + cell(bytes(d.d2h), 1)
    + '<td><span class="bar" style="width:' + Math.round(40 * r.busy[i] / Math.max(1, d.streams.length)) + 'px"></span> ' + Math.round(100 * r.busy[i] / Math.max(1, d.streams.length)) + '%</td>' + cell(d.streams.join(' ')) + '</tr>'));
  document.querySelector('#devices tbody').innerHTML = dev.length === 0 ? '<tr><td colspan="10" style="color:#555">no device layer</td></tr>' : dev.join('');
  const errs = s.errors;
  $('errors').innerHTML = errs.length === 0 ? '<li style="color:#555">none</li>'
    : errs.map((e) => '<li>' + esc(new Date(e.at).toLocaleTimeString() + ' rank ' + e.rank + ': ' + e.code + ' in ' + (e.tt || '(no TT)') + (e.key ? '[' + e.key + ']' : '') + ': ' + e.message) + '</li>').join('');
  const run = [...tts.values()].reduce((a, t) => a + t.run, 0);
  $('summary').textContent = ranks.length + ' of ' + s.size + ' rank(s) reporting: ' + num(run) + ' tasks run, ' + num(ranks.reduce((a, r) => a + r.tasksPerS, 0)) + ' tasks/s, ' + num(ranks.reduce((a, r) => a + r.ready, 0)) + ' ready, ' + num(ranks.reduce((a, r) => a + r.running, 0)) + ' running';
}
async function tick() {
  let s;
  try { s = await (await fetch('state' + query)).json(); } catch { $('status').textContent = '(disconnected: the run has ended)'; return; }
  const ranks = s.ranks;
  tables(s, ranks); stream(s, ranks); draw(s);
  $('status').textContent = '';
  document.body.dataset.ticks = String(Number(document.body.dataset.ticks) + 1);
}
tick(); setInterval(tick, 500);
</script>
</body></html>
`;
