/**
 * Rank 0's view for the live dashboard: each rank's latest summary with its rates, the task
 * slices of the last seconds, every error seen, and two minutes of history for the charts.
 */
import type { ErrorNote, RankSummary } from './summary.js';
import { readSummary } from './summary-read.js';

/** How long the task stream of the page reaches back (ms). */
export const STREAM_MS = 5000;
/** History points kept for the charts: two minutes of summaries four times a second. */
const HISTORY = 480;
const MAX_ERRORS = 200;

/** A rank's latest summary with what changed since its previous one, per second. */
export interface RankView extends Omit<RankSummary, 'slices' | 'errors'> {
  tasksPerS: number;
  messagesPerS: number;
  /** Bytes per second sent to each rank. */
  bytesPerS: number[];
  /** Per place: the share of the last period device tasks worked (0..1, summed over its streams). */
  busy: number[];
}

/** The charts' history, as columns (what uPlot draws). */
interface History {
  t: number[];
  /** Tasks per second, per rank. */
  tasks: number[][];
  messages: number[];
  bytes: number[];
  /** Device memory in use, all places of all ranks (bytes). */
  deviceUsed: number[];
}

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

/** Merges the ranks' summaries. */
export class DashboardState {
  private readonly ranks = new Map<number, RankView>();
  private stream: Array<[number, string, number, number]> = [];
  private readonly errors: ErrorNote[] = [];
  private readonly history: History;

  constructor(private readonly size: number) {
    this.history = { t: [], tasks: Array.from({ length: size }, () => []), messages: [], bytes: [], deviceUsed: [] };
  }

  /** Rank `rank`'s summary arrived as `json` (from the wire: checked, and dropped when it is none). */
  receive(rank: number, json: unknown): void {
    const s = readSummary(json, rank, this.size);
    if (s !== undefined) this.add(s);
  }

  /** A rank's summary, well formed (its counts per TT in a null-prototype object). */
  add(s: RankSummary): void {
    const before = this.ranks.get(s.rank);
    const dt = before === undefined ? 0 : Math.max(1, s.at - before.at) / 1000;
    const rate = (now: number, then: number | undefined): number => (dt === 0 || then === undefined ? 0 : Math.max(0, now - then) / dt);
    const run = sum(Object.values(s.tts).map((v) => v[0]));
    const runBefore = before === undefined ? undefined : sum(Object.values(before.tts).map((v) => v[0]));
    const { slices, errors, ...rest } = s;
    this.ranks.set(s.rank, {
      ...rest,
      tasksPerS: rate(run, runBefore),
      messagesPerS: rate(s.sent, before?.sent),
      bytesPerS: s.traffic.bytes.map((b, i) => rate(b, before?.traffic.bytes[i])),
      busy: s.devices.map((d, i) => (dt === 0 ? 0 : Math.min(d.streams.length, rate(d.busyMs, before?.devices[i]?.busyMs) / 1000))),
    });
    for (const [tt, start, dur] of slices) this.stream.push([s.rank, tt, start, dur]);
    const since = s.at - STREAM_MS;
    if (this.stream.length > 0 && this.stream[0]![2] + this.stream[0]![3] < since) this.stream = this.stream.filter((x) => x[2] + x[3] >= since);
    for (const e of errors) if (this.errors.length < MAX_ERRORS) this.errors.push(e);
    // rank 0's summaries set the charts' pace: one point per period with every rank's latest rates
    if (s.rank === 0) this.point(s.at);
  }

  private point(at: number): void {
    const h = this.history;
    const views = [...this.ranks.values()];
    h.t.push(at / 1000);
    for (let r = 0; r < this.size; r++) h.tasks[r]!.push(this.ranks.get(r)?.tasksPerS ?? 0);
    h.messages.push(sum(views.map((v) => v.messagesPerS)));
    h.bytes.push(sum(views.map((v) => sum(v.bytesPerS))));
    h.deviceUsed.push(sum(views.map((v) => sum(v.devices.map((d) => d.used)))));
    if (h.t.length > HISTORY) {
      h.t.shift();
      for (const c of h.tasks) c.shift();
      h.messages.shift();
      h.bytes.shift();
      h.deviceUsed.shift();
    }
  }

  /** The state as the page reads it. */
  json(): string {
    return JSON.stringify({
      size: this.size, now: Date.now(), ranks: [...this.ranks.values()].sort((a, b) => a.rank - b.rank),
      stream: this.stream, errors: this.errors, history: this.history,
    });
  }
}
