/**
 * A ttg trace (TTG_TRACE) as a static SVG timeline — one row per thread track (JS thread, device
 * streams) grouped by rank, one colored box per task or device op, thin lines for messages — for
 * READMEs, the HTML report (report.ts) and quick looks without a browser (`npm run trace:svg`).
 * The full trace opens in ui.perfetto.dev.
 */
import type { TraceEvent } from './trace.js';

/** The fields of a trace event the renderer reads. */
export type SvgEvent = Pick<TraceEvent, 'name' | 'ph' | 'ts' | 'pid' | 'tid' | 'dur' | 'id' | 'args'>;

/** Options of {@link renderSvg}. */
export interface SvgOptions {
  /** Picture width in pixels (default 1200). */
  width?: number;
  /** Title line (default: counts of ranks and events). */
  title?: string;
  /** Boxes drawn at most (default 20,000): past it an even sample is drawn, and the title says so. */
  maxBoxes?: number;
}

const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac',
  '#1f77b4', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#17becf'];

/** Boxes drawn at most by default: a picture of a million boxes is hundreds of MB and no clearer. */
const MAX_BOXES = 20_000;

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A round number of ms near `span / 8` for axis ticks. */
function tickStep(spanMs: number): number {
  const raw = spanMs / 8;
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

/** Renders trace events as an SVG document. */
export function renderSvg(events: readonly SvgEvent[], options: SvgOptions = {}): string {
  const width = options.width ?? 1200;
  const names = new Map<string, string>();
  for (const e of events) if (e.ph === 'M' && e.name === 'thread_name') names.set(`${e.pid}:${e.tid}`, String(e.args?.['name'] ?? e.tid));
  const boxes = events.filter((e) => e.ph === 'X' && typeof e.dur === 'number');
  const tracks = [...new Set(boxes.map((e) => `${e.pid}:${e.tid}`))].sort((a, b) => {
    const [pa, ta] = a.split(':').map(Number) as [number, number];
    const [pb, tb] = b.split(':').map(Number) as [number, number];
    return pa - pb || ta - tb;
  });
  // a loop, not Math.min(...): spreading a large array overflows the stack
  let t0 = Infinity;
  let t1 = -Infinity;
  for (const e of boxes) {
    if (e.ts < t0) t0 = e.ts;
    if (e.ts + e.dur! > t1) t1 = e.ts + e.dur!;
  }
  const span = boxes.length === 0 ? 1 : Math.max(t1 - t0, 1);
  const every = Math.max(1, Math.ceil(boxes.length / (options.maxBoxes ?? MAX_BOXES)));
  const left = 170, right = 20, top = 40, rowH = 20, gap = 4;
  const plotW = width - left - right;
  const x = (ts: number): number => left + ((ts - t0) / span) * plotW;
  const row = new Map(tracks.map((t, i) => [t, i]));
  const y = (key: string): number => top + row.get(key)! * (rowH + gap);
  const colors = new Map<string, string>();
  const color = (n: string): string => {
    let c = colors.get(n);
    if (c === undefined) colors.set(n, (c = PALETTE[colors.size % PALETTE.length]!));
    return c;
  };
  for (const e of [...boxes].sort((a, b) => (b.dur! - a.dur!))) color(e.name);
  const plotH = tracks.length * (rowH + gap);
  const legendY = top + plotH + 30;
  const legend = [...colors].slice(0, 24);
  const perLine = Math.max(1, Math.floor(plotW / 140));
  const height = legendY + Math.ceil(legend.length / perLine) * 18 + 10;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`);
  out.push(`<rect width="${width}" height="${height}" fill="#fff"/>`);
  const ranks = new Set(boxes.map((e) => e.pid)).size;
  const sampled = every === 1 ? '' : ` (1 in ${every} drawn)`;
  out.push(`<text x="${left}" y="18" font-size="13" font-weight="bold">${esc(`${options.title ?? `ttg trace: ${ranks} rank(s), ${boxes.length} slices, ${(span / 1000).toFixed(1)} ms`}${sampled}`)}</text>`);
  let lastPid = -1;
  for (const t of tracks) {
    const [pid, tid] = t.split(':').map(Number) as [number, number];
    const ty = y(t);
    if (pid !== lastPid) {
      if (lastPid !== -1) out.push(`<line x1="4" x2="${width - 4}" y1="${ty - gap / 2}" y2="${ty - gap / 2}" stroke="#999"/>`);
      lastPid = pid;
    }
    out.push(`<rect x="${left}" y="${ty}" width="${plotW}" height="${rowH}" fill="#f4f4f4"/>`);
    out.push(`<text x="6" y="${ty + 14}">${esc(`rank ${pid} · ${names.get(t) ?? `thread ${tid}`}`)}</text>`);
  }
  const step = tickStep(span / 1000);
  for (let ms = 0; ms <= span / 1000 + 1e-9; ms += step) {
    const tx = x(t0 + ms * 1000);
    out.push(`<line x1="${tx.toFixed(1)}" x2="${tx.toFixed(1)}" y1="${top - 4}" y2="${top + plotH}" stroke="#ddd"/>`);
    out.push(`<text x="${tx.toFixed(1)}" y="${top - 8}" text-anchor="middle" fill="#555">${Number(ms.toPrecision(6))} ms</text>`);
  }
  for (let i = 0; i < boxes.length; i += every) {
    const e = boxes[i]!;
    const key = `${e.pid}:${e.tid}`;
    const bx = x(e.ts);
    const bw = Math.max(0.6, (e.dur! / span) * plotW);
    const k = e.args?.['key'];
    const tip = `${e.name}${k === undefined ? '' : ` [${String(k)}]`} ${(e.dur! / 1000).toFixed(3)} ms`;
    out.push(`<rect x="${bx.toFixed(2)}" y="${y(key) + 2}" width="${bw.toFixed(2)}" height="${rowH - 4}" fill="${color(e.name)}"><title>${esc(tip)}</title></rect>`);
  }
  // messages: flow start (s) to flow end (f), matched by id
  const starts = new Map<number, SvgEvent>();
  for (const e of events) if (e.ph === 's' && e.id !== undefined) starts.set(e.id, e);
  let flows = 0;
  for (const e of events) {
    if (e.ph !== 'f' || e.id === undefined || flows >= 2000) continue;
    const s = starts.get(e.id);
    const ks = s === undefined ? undefined : `${s.pid}:${s.tid}`;
    const kf = `${e.pid}:${e.tid}`;
    if (s === undefined || !row.has(ks!) || !row.has(kf)) continue;
    flows++;
    out.push(`<line x1="${x(s.ts).toFixed(1)}" y1="${y(ks!) + rowH / 2}" x2="${x(e.ts).toFixed(1)}" y2="${y(kf) + rowH / 2}" stroke="#333" stroke-opacity="0.35" stroke-width="0.7"/>`);
  }
  legend.forEach(([n, c], i) => {
    const lx = left + (i % perLine) * 140;
    const ly = legendY + Math.floor(i / perLine) * 18;
    out.push(`<rect x="${lx}" y="${ly - 10}" width="12" height="12" fill="${c}"/><text x="${lx + 16}" y="${ly}">${esc(n)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n');
}
