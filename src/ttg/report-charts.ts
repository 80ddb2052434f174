/**
 * The HTML report's charts (report.ts): tasks finished and messages sent per second over the run,
 * per rank, drawn by uPlot inlined into the page (the report stays one file with nothing fetched).
 */
import type { TraceEvent } from './trace.js';
import { uplotFiles } from './uplot-files.js';

const BUCKETS = 120;

/** Per-rank counts per second of `events` at `at(e)`, in BUCKETS steps from t0 to t1 (µs). */
function rates(events: readonly TraceEvent[], ranks: readonly number[], t0: number, t1: number, at: (e: TraceEvent) => number): number[][] {
  const width = Math.max(1, (t1 - t0) / BUCKETS);
  const out = ranks.map(() => new Array<number>(BUCKETS).fill(0));
  const row = new Map(ranks.map((r, i) => [r, i]));
  for (const e of events) {
    const i = row.get(e.pid);
    if (i === undefined) continue;
    out[i]![Math.min(BUCKETS - 1, Math.floor((at(e) - t0) / width))]! += 1e6 / width;
  }
  return out;
}

/** The charts' HTML (a script and its data) for the run's events from t0 to t1 (µs); '' when nothing ran. */
export function reportCharts(events: readonly TraceEvent[], ranks: readonly number[], t0: number, t1: number): string {
  if (!(t1 > t0)) return '';
  const tasks = events.filter((e) => e.ph === 'X' && e.cat === 'task');
  const sends = events.filter((e) => e.ph === 'i' && e.name === 'send');
  const width = (t1 - t0) / BUCKETS;
  const x = Array.from({ length: BUCKETS }, (_, i) => Number((((i + 0.5) * width) / 1000).toFixed(3)));
  const data = {
    ranks, x,
    tasks: rates(tasks, ranks, t0, t1, (e) => e.ts + e.dur!),
    sends: rates(sends, ranks, t0, t1, (e) => e.ts),
  };
  const { js, css } = uplotFiles();
  return `<style>${css}</style><div id="charts" style="display:flex;flex-wrap:wrap;gap:8px"></div>
<script>${js}</script>
<script>
const d = ${JSON.stringify(data)};
const pal = ['#4e79a7','#f28e2b','#e15759','#76b7b2','#59a14f','#edc948','#b07aa1','#ff9da7','#9c755f','#bab0ac'];
for (const [title, ys] of [['tasks finished per second', d.tasks], ['messages sent per second', d.sends]]) {
  const el = document.createElement('div'); document.getElementById('charts').appendChild(el);
  new uPlot({ title, width: 560, height: 220, scales: { x: { time: false } },
    axes: [{ label: 'ms since the start' }, { size: 70 }],
    series: [{ label: 'ms' }, ...d.ranks.map((r, i) => ({ label: 'rank ' + r, stroke: pal[i % pal.length] }))] }, [d.x, ...ys], el);
}
</script>`;
}
