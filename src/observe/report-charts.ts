/**
 * The HTML report's charts (report.ts): tasks finished and messages sent per second over the run,
 * per rank, drawn by uPlot inlined into the page (the report stays one file with nothing fetched).
 * The counts come exact from each rank's histograms (report-digest.ts), whatever the run's length.
 */
import type { RankDigest } from './report-digest.js';
import { rebin } from './time-histogram.js';
import { uplotFiles } from './uplot-files.js';

const BUCKETS = 120;

/** The charts' HTML (a script and its data) for the ranks' digests from t0 to t1 (µs); '' when nothing ran. */
export function reportCharts(digests: readonly RankDigest[], t0: number, t1: number): string {
  if (!(t1 > t0)) return '';
  const width = (t1 - t0) / BUCKETS;
  const perSecond = (counts: number[]): number[] => counts.map((c) => (c * 1e6) / width);
  const x = Array.from({ length: BUCKETS }, (_, i) => Number((((i + 0.5) * width) / 1000).toFixed(3)));
  const data = {
    ranks: digests.map((d) => d.rank), x,
    tasks: digests.map((d) => perSecond(rebin(d.ends, t0, t1, BUCKETS))),
    sends: digests.map((d) => perSecond(rebin(d.sends, t0, t1, BUCKETS))),
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
