/**
 * The live dashboard's page, served by rank 0 (dashboard.ts): one HTML document with its style
 * and script inline (nothing fetched from elsewhere), polling `state` twice a second.
 */
export const DASHBOARD_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>ttg dashboard</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.2em; color: #222; }
h1 { font-size: 1.3em; margin: 0 0 .4em; } h2 { font-size: 1.05em; margin: 1.2em 0 .3em; }
table { border-collapse: collapse; } th, td { padding: 2px 10px; border-bottom: 1px solid #ddd; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; } #errors li { color: #b00; }
canvas { border: 1px solid #ccc; }
</style></head><body>
<h1>ttg dashboard <span id="status"></span></h1>
<p id="summary">waiting for the ranks...</p>
<h2>Progress per TT</h2>
<table id="tts"><thead><tr><th>TT</th><th>run</th><th>waiting for inputs</th><th>held</th><th>per rank (run)</th></tr></thead><tbody></tbody></table>
<h2>Task stream (last 5 s)</h2>
<canvas id="stream" width="1000" height="60"></canvas>
<h2>Ranks</h2>
<table id="ranks"><thead><tr><th>rank</th><th>running</th><th>messages sent</th><th>received</th><th>sent/s</th><th>fence</th></tr></thead><tbody></tbody></table>
<h2>Errors</h2>
<ul id="errors"><li class="none" style="color:#555">none</li></ul>
<script>
const token = new URLSearchParams(location.search).get('token') || '';
const colors = new Map();
const palette = ['#4e79a7','#f28e2b','#e15759','#76b7b2','#59a14f','#edc948','#b07aa1','#ff9da7','#9c755f','#bab0ac'];
const color = (n) => { if (!colors.has(n)) colors.set(n, palette[colors.size % palette.length]); return colors.get(n); };
const cell = (t, n) => '<td' + (n ? ' class="n"' : '') + '>' + String(t).replace(/&/g,'&amp;').replace(/</g,'&lt;') + '</td>';
async function tick() {
  let s;
  try { s = await (await fetch('state?token=' + encodeURIComponent(token))).json(); } catch { document.getElementById('status').textContent = '(disconnected)'; return; }
  const ranks = Object.values(s.ranks).sort((a, b) => a.rank - b.rank);
  const tts = new Map();
  for (const r of ranks) for (const [name, v] of Object.entries(r.tts)) {
    const t = tts.get(name) || { run: 0, waiting: 0, held: 0, per: [] };
    t.run += v[0]; t.waiting += v[1]; t.held += v[2]; t.per.push('rank ' + r.rank + ': ' + v[0]); tts.set(name, t);
  }
  document.querySelector('#tts tbody').innerHTML = [...tts].map(([n, t]) => '<tr>' + cell(n) + cell(t.run, 1) + cell(t.waiting, 1) + cell(t.held, 1) + cell(t.per.join(', ')) + '</tr>').join('');
  document.querySelector('#ranks tbody').innerHTML = ranks.map((r) => '<tr>' + cell(r.rank, 1) + cell(r.running, 1) + cell(r.sent, 1) + cell(r.received, 1) + cell(Math.round(r.sentPerS || 0), 1) + cell(r.fencing ? 'in a fence' : '') + '</tr>').join('');
  const run = [...tts.values()].reduce((a, t) => a + t.run, 0);
  document.getElementById('summary').textContent = ranks.length + ' of ' + s.size + ' rank(s) reporting: ' + run + ' tasks run, ' + ranks.reduce((a, r) => a + r.running, 0) + ' running';
  const errs = s.errors;
  document.getElementById('errors').innerHTML = errs.length === 0 ? '<li style="color:#555">none</li>' : errs.map((e) => '<li>' + cell(e).slice(4, -5) + '</li>').join('');
  const c = document.getElementById('stream'); const g = c.getContext('2d');
  const rows = Math.max(1, s.size); c.height = rows * 22 + 4; g.clearRect(0, 0, c.width, c.height);
  const t1 = s.now, t0 = t1 - 5000, x = (t) => 60 + ((t - t0) / 5000) * (c.width - 64);
  g.font = '11px sans-serif';
  for (let r = 0; r < rows; r++) { g.fillStyle = '#f4f4f4'; g.fillRect(60, 2 + r * 22, c.width - 64, 20); g.fillStyle = '#333'; g.fillText('rank ' + r, 4, 16 + r * 22); }
  for (const [rank, tt, start, dur] of s.stream) { if (start + dur < t0) continue; g.fillStyle = color(tt); g.fillRect(x(Math.max(start, t0)), 4 + rank * 22, Math.max(1, (Math.min(dur, start + dur - t0)) / 5000 * (c.width - 64)), 16); }
  document.getElementById('status').textContent = '';
}
tick(); setInterval(tick, 500);
</script>
</body></html>
`;
