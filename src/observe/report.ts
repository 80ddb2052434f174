/**
 * The HTML report of a run (`TTG_REPORT=file.html`): written by rank 0 at `finalize()` from every
 * rank's digest (report-digest.ts), one self-contained file (inline styles, SVG and scripts,
 * nothing fetched) to keep or attach to an issue: the run at a glance, the task stream, rates over
 * time, per-TT statistics (executions, total, median and longest time on the JS thread, where they
 * ran), the slowest executions, fences, errors, messages between ranks and device streams' work.
 * Its size is bounded whatever the run's: the stream is an even sample past a few thousand slices
 * per rank (the page says so), tables are cut, keys and names shortened. The Perfetto trace
 * (TTG_TRACE) stays the full record.
 */
import { medianDuration } from './duration-histogram.js';
import { reportCharts } from './report-charts.js';
import { SLOWEST, type Box, type RankDigest } from './report-digest.js';
import { renderSvg, type SvgEvent } from './trace-svg.js';
import { FENCE_TID } from '../ttg/common/trace-sink.js';

/** Slices the stream draws at most, over all ranks. */
const DRAWN = 12_000;
/** Rows of the per-TT table at most (the TTs with the most time first). */
const TT_ROWS = 500;

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const ms = (us: number): string => (us / 1000).toFixed(3);

/** Per-TT figures over the ranks. */
interface TtStats {
  runs: number;
  us: number;
  maxUs: number;
  buckets: Map<number, number>;
  perRank: Map<number, number>;
}

function table(head: readonly string[], rows: ReadonlyArray<readonly string[]>, numeric = new Set<number>()): string {
  const th = head.map((h) => `<th>${esc(h)}</th>`).join('');
  const tr = rows.map((r) => `<tr>${r.map((c, i) => `<td${numeric.has(i) ? ' class="n"' : ''}>${esc(c)}</td>`).join('')}</tr>`).join('\n');
  return `<table><thead><tr>${th}</tr></thead><tbody>\n${tr}\n</tbody></table>`;
}

function perTt(digests: readonly RankDigest[]): Map<string, TtStats> {
  const byTt = new Map<string, TtStats>();
  for (const d of digests) {
    for (const [name, f] of d.tts) {
      let s = byTt.get(name);
      if (s === undefined) byTt.set(name, (s = { runs: 0, us: 0, maxUs: 0, buckets: new Map(), perRank: new Map() }));
      s.runs += f.runs;
      s.us += f.us;
      if (f.maxUs > s.maxUs) s.maxUs = f.maxUs;
      for (const [b, n] of f.buckets) s.buckets.set(b, (s.buckets.get(b) ?? 0) + n);
      s.perRank.set(d.rank, (s.perRank.get(d.rank) ?? 0) + f.runs);
    }
  }
  return byTt;
}

/** The slices to draw: every rank's sample, thinned evenly to {@link DRAWN}; fences always. */
function drawn(digests: readonly RankDigest[]): { events: SvgEvent[]; boxes: number } {
  const all = digests.reduce((n, d) => n + d.boxes.length, 0);
  const step = Math.max(1, Math.ceil(all / DRAWN));
  const events: SvgEvent[] = [];
  let boxes = 0;
  for (const d of digests) {
    for (const [tid, name] of d.threads) events.push({ name: 'thread_name', ph: 'M', ts: 0, pid: d.rank, tid, args: { name } });
    const box = ([tid, name, ts, dur, key]: Box): SvgEvent => ({ name, ph: 'X', ts, dur, pid: d.rank, tid, ...(key === '' ? {} : { args: { key } }) });
    for (let i = 0; i < d.boxes.length; i += step) {
      events.push(box(d.boxes[i]!));
      boxes++;
    }
    for (const [name, ts, dur] of d.fences) events.push(box([FENCE_TID, name, ts, dur, '']));
  }
  return { events, boxes };
}

/** The page's note on what the stream shows: all slices, or which share of them. */
function streamNote(digests: readonly RankDigest[], boxes: number): string {
  const slices = digests.reduce((n, d) => n + d.slices, 0);
  if (boxes >= slices) return '';
  const share = boxes === 0 ? 0 : Math.round(slices / boxes);
  return `<p id="sampled">Sampled: the stream draws ${boxes} of the run's ${slices} slices, evenly spread (about 1 in ${share}); counts and times in the tables cover every task.</p>`;
}

/** The report of the run whose ranks' digests are `digests`. */
export function renderReport(digests: readonly RankDigest[], title = 'ttg run report'): string {
  const ranks = [...digests].sort((a, b) => a.rank - b.rank);
  let t0 = Infinity;
  let t1 = -Infinity;
  for (const d of ranks) {
    if (d.span === null) continue;
    t0 = Math.min(t0, d.span[0]);
    t1 = Math.max(t1, d.span[1]);
  }
  const ran = t0 <= t1;
  const byTt = perTt(ranks);
  let executions = 0;
  for (const s of byTt.values()) executions += s.runs;
  const ttRows = [...byTt].sort((a, b) => b[1].us - a[1].us).slice(0, TT_ROWS).map(([name, s]) => [
    name, String(s.runs), ms(s.us), ms(medianDuration(s.buckets)), ms(s.maxUs),
    [...s.perRank].sort((a, b) => a[0] - b[0]).map(([r, n]) => `rank ${r}: ${n}`).join(', '),
  ]);
  const ttMore = byTt.size > TT_ROWS ? `<p>and ${byTt.size - TT_ROWS} more TTs with less time</p>` : '';
  const slowest = ranks.flatMap((d) => d.slowest.map(([tt, key, us]) => ({ tt, key, rank: d.rank, us })))
    .sort((a, b) => b.us - a.us).slice(0, SLOWEST).map((t) => [t.tt, t.key, String(t.rank), ms(t.us)]);
  const msgRows = ranks.flatMap((d) => d.traffic.filter(([, n]) => n > 0).map(([dest, n, bytes]) => [`${d.rank} → ${dest}`, String(n), String(bytes)])).sort();
  const devRows = ranks.flatMap((d) => d.streams.map(([tid, ops, us]) => [`rank ${d.rank} · stream ${tid - 100}`, String(ops), ms(us)])).sort();
  const fenceRows = ranks.flatMap((d) => d.fences.map(([name, ts, dur]) => ({ rank: d.rank, name, ts, dur })))
    .sort((a, b) => a.ts - b.ts || a.rank - b.rank).map((f) => [String(f.rank), f.name, ms(f.ts - t0), ms(f.dur)]);
  const errorRows = ranks.flatMap((d) => d.errors.map((e) => ({ ...e, rank: d.rank }))).sort((a, b) => a.ts - b.ts)
    .map((e) => [String(e.rank), e.code, e.tt, e.key, e.message, ran ? ms(e.ts - t0) : '']);
  const dropped = ranks.reduce((n, d) => n + d.dropped.fences + d.dropped.errors, 0);
  const droppedNote = dropped === 0 ? '' : `<p>${dropped} more fences or errors were not kept</p>`;
  const span = ran ? t1 - t0 : 0;
  const summary = `${ranks.length} rank(s), ${executions} tasks of ${byTt.size} TT(s) over ${ms(span)} ms`;
  const stream = drawn(ranks);
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
${streamNote(ranks, stream.boxes)}
<div class="stream">${ran ? renderSvg(stream.events, { title: summary }) : '<p>no tasks ran</p>'}</div>
<h2>Rates</h2>
${ran ? reportCharts(ranks, t0, t1) : '<p>none</p>'}
<h2>Per TT</h2>
${table(['TT', 'tasks', 'total ms', 'median ms', 'longest ms', 'where'], ttRows, new Set([1, 2, 3, 4]))}${ttMore}
<h2>Slowest tasks</h2>
${table(['TT', 'key', 'rank', 'ms'], slowest, new Set([2, 3]))}
<h2>Fences</h2>
${fenceRows.length === 0 ? '<p>none</p>' : table(['rank', 'fence', 'start ms', 'ms'], fenceRows, new Set([0, 2, 3]))}
<h2>Errors</h2>
${errorRows.length === 0 ? '<p>none</p>' : table(['rank', 'code', 'TT', 'key', 'message', 'at ms'], errorRows, new Set([0, 5]))}${droppedNote}
<h2>Messages between ranks</h2>
${msgRows.length === 0 ? '<p>none</p>' : table(['from → to', 'messages', 'bytes'], msgRows, new Set([1, 2]))}
<h2>Device streams</h2>
${devRows.length === 0 ? '<p>none</p>' : table(['stream', 'ops', 'busy ms'], devRows, new Set([1, 2]))}
</body></html>
`;
}
