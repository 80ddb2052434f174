/**
 * The HTML report of a run (`TTG_REPORT=file.html`): written by rank 0 at `finalize()` from every
 * rank's trace events, one self-contained file (inline styles, SVG and scripts, nothing fetched)
 * to keep or attach to an issue: the run at a glance, the task stream, rates over time, per-TT
 * statistics (tasks, total, median and longest time on the JS thread, where they ran), the slowest
 * tasks, fences, errors, messages between ranks and device streams' work. The Perfetto trace
 * (TTG_TRACE) stays the full record.
 */
import { reportCharts } from './report-charts.js';
import { renderSvg } from './trace-svg.js';
import type { TraceEvent } from './trace.js';

const SLOWEST = 20;

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const ms = (us: number): string => (us / 1000).toFixed(3);

/** Per-TT figures from the task slices (a task that suspended has several: its time is their sum). */
interface TtStats {
  tasks: number;
  totalUs: number;
  times: number[];
  perRank: Map<number, number>;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

function table(head: readonly string[], rows: ReadonlyArray<readonly string[]>, numeric = new Set<number>()): string {
  const th = head.map((h) => `<th>${esc(h)}</th>`).join('');
  const tr = rows.map((r) => `<tr>${r.map((c, i) => `<td${numeric.has(i) ? ' class="n"' : ''}>${esc(c)}</td>`).join('')}</tr>`).join('\n');
  return `<table><thead><tr>${th}</tr></thead><tbody>\n${tr}\n</tbody></table>`;
}

/** The report of the run whose trace events (all ranks) are `events`. */
export function renderReport(events: readonly TraceEvent[], title = 'ttg run report'): string {
  const tasks = events.filter((e) => e.ph === 'X' && e.cat === 'task' && typeof e.dur === 'number');
  const ranks = new Set(events.filter((e) => e.ph === 'M' && e.name === 'process_name').map((e) => e.pid));
  const timed = events.filter((e) => e.ph === 'X' && typeof e.dur === 'number');
  const t0 = Math.min(...timed.map((e) => e.ts));
  const t1 = Math.max(...timed.map((e) => e.ts + e.dur!));
  // one task per (rank, TT, key): its slices summed
  const perTask = new Map<string, { tt: string; key: string; rank: number; us: number }>();
  for (const e of tasks) {
    const key = String(e.args?.['key'] ?? '');
    const id = `${e.pid}\u0000${e.name}\u0000${key}`;
    const t = perTask.get(id);
    if (t === undefined) perTask.set(id, { tt: e.name, key, rank: e.pid, us: e.dur! });
    else t.us += e.dur!;
  }
  const byTt = new Map<string, TtStats>();
  for (const t of perTask.values()) {
    let s = byTt.get(t.tt);
    if (s === undefined) byTt.set(t.tt, (s = { tasks: 0, totalUs: 0, times: [], perRank: new Map() }));
    s.tasks++;
    s.totalUs += t.us;
    s.times.push(t.us);
    s.perRank.set(t.rank, (s.perRank.get(t.rank) ?? 0) + 1);
  }
  const ttRows = [...byTt].sort((a, b) => b[1].totalUs - a[1].totalUs).map(([name, s]) => [
    name, String(s.tasks), ms(s.totalUs), ms(median(s.times)), ms(Math.max(...s.times)),
    [...s.perRank].sort((a, b) => a[0] - b[0]).map(([r, n]) => `rank ${r}: ${n}`).join(', '),
  ]);
  const slowest = [...perTask.values()].sort((a, b) => b.us - a.us).slice(0, SLOWEST).map((t) => [t.tt, t.key, String(t.rank), ms(t.us)]);
  const sends = new Map<string, { n: number; bytes: number }>();
  for (const e of events) {
    if (e.ph !== 'i' || e.name !== 'send') continue;
    const id = `${e.pid} → ${String(e.args?.['dest'])}`;
    const s = sends.get(id) ?? { n: 0, bytes: 0 };
    s.n++;
    s.bytes += Number(e.args?.['bytes'] ?? 0);
    sends.set(id, s);
  }
  const msgRows = [...sends].sort().map(([k, s]) => [k, String(s.n), String(s.bytes)]);
  const streams = new Map<string, { ops: number; us: number }>();
  for (const e of timed) {
    if (e.cat !== 'device') continue;
    const id = `rank ${e.pid} · stream ${e.tid - 100}`;
    const s = streams.get(id) ?? { ops: 0, us: 0 };
    s.ops++;
    s.us += e.dur!;
    streams.set(id, s);
  }
  const devRows = [...streams].sort().map(([k, s]) => [k, String(s.ops), ms(s.us)]);
  const fenceRows = timed.filter((e) => e.cat === 'fence').sort((a, b) => a.ts - b.ts || a.pid - b.pid)
    .map((e) => [String(e.pid), e.name, ms(e.ts - t0), ms(e.dur!)]);
  const errorRows = events.filter((e) => e.ph === 'i' && e.cat === 'error').sort((a, b) => a.ts - b.ts)
    .map((e) => [String(e.pid), e.name, String(e.args?.['tt'] ?? ''), String(e.args?.['key'] ?? ''), String(e.args?.['message'] ?? ''), ms(e.ts - t0)]);
  const span = timed.length === 0 ? 0 : t1 - t0;
  const summary = `${ranks.size} rank(s), ${perTask.size} tasks of ${byTt.size} TT(s) over ${ms(span)} ms`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.1em; margin-top: 1.6em; }
table { border-collapse: collapse; } th, td { padding: 2px 10px; border-bottom: 1px solid #ddd; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; } .stream { overflow-x: auto; }
</style></head><body>
<h1>${esc(title)}</h1>
<p id="summary">${esc(summary)}</p>
<h2>Task stream</h2>
<div class="stream">${timed.length === 0 ? '<p>no tasks ran</p>' : renderSvg(events, { title: summary })}</div>
<h2>Rates</h2>
${timed.length === 0 ? '<p>none</p>' : reportCharts(events, [...ranks].sort((a, b) => a - b), t0, t1)}
<h2>Per TT</h2>
${table(['TT', 'tasks', 'total ms', 'median ms', 'longest ms', 'where'], ttRows, new Set([1, 2, 3, 4]))}
<h2>Slowest tasks</h2>
${table(['TT', 'key', 'rank', 'ms'], slowest, new Set([2, 3]))}
<h2>Fences</h2>
${fenceRows.length === 0 ? '<p>none</p>' : table(['rank', 'fence', 'start ms', 'ms'], fenceRows, new Set([0, 2, 3]))}
<h2>Errors</h2>
${errorRows.length === 0 ? '<p>none</p>' : table(['rank', 'code', 'TT', 'key', 'message', 'at ms'], errorRows, new Set([0, 5]))}
<h2>Messages between ranks</h2>
${msgRows.length === 0 ? '<p>none</p>' : table(['from → to', 'messages', 'bytes'], msgRows, new Set([1, 2]))}
<h2>Device streams</h2>
${devRows.length === 0 ? '<p>none</p>' : table(['stream', 'ops', 'busy ms'], devRows, new Set([1, 2]))}
</body></html>
`;
}
