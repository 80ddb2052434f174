/**
 * What a rank tells the live dashboard a few times a second (src/world/dashboard.ts): per TT the
 * tasks run since the start, waiting for inputs and held by constraints; tasks running; messages;
 * whether a fence is on; errors as they happen; and the task slices since the last summary (the
 * task stream). Task slices come from the tracer's events, which the dashboard turns on.
 */
import { collectReport } from './fence-report.js';
import type { Runtime } from './runtime.js';
import type { Tracer } from './trace.js';

/** Task slices a summary carries at most (about): the page draws a few seconds of them. */
const MAX_SLICES = 500;

/** One rank's summary. */
export interface RankSummary {
  rank: number;
  /** Per TT name: [tasks run so far, waiting for inputs, held by constraints]. */
  tts: Record<string, [number, number, number]>;
  running: number;
  sent: number;
  received: number;
  fencing: boolean;
  /** Errors of this rank's runs since the last summary. */
  errors: string[];
  /** Task slices since the last summary: [TT, start ms, duration ms] (epoch ms). */
  slices: Array<[string, number, number]>;
}

/** Summarizes a rank from its runtime and its trace events, reading events after a cursor. */
export class Summarizer {
  private cursor = 0;
  private readonly done = new Map<string, number>();
  private errors: string[] = [];

  /**
   * With `drain` (the tracer serves only the dashboard) the events read are dropped, so a long run
   * keeps no more than a summary's worth.
   */
  constructor(private readonly rt: Runtime, private readonly tracer: Tracer, private readonly epochOffsetMs: number, private readonly drain: boolean) {}

  /** A run of this rank failed (the scheduler's first error; the fence takes it soon after). */
  noteError(err: Error): void {
    this.errors.push(err.message);
  }

  /** The summary now. */
  take(): RankSummary {
    if (this.drain) this.tracer.flushLater();
    const ev = this.tracer.events;
    const slices: Array<[string, number, number]> = [];
    // at most about MAX_SLICES for the page, evenly spread over the window: a summary stays small
    const every = Math.max(1, Math.ceil((ev.length - this.cursor) / MAX_SLICES));
    for (let i = 0; this.cursor < ev.length; this.cursor++) {
      const e = ev[this.cursor]!;
      if (e.ph !== 'X' || e.cat !== 'task') continue;
      this.done.set(e.name, (this.done.get(e.name) ?? 0) + 1);
      if (i++ % every === 0) slices.push([e.name, e.ts / 1000 + this.epochOffsetMs, e.dur! / 1000]);
    }
    if (this.drain) {
      ev.length = 0;
      this.cursor = 0;
    }
    const tts: Record<string, [number, number, number]> = {};
    for (const [name, n] of this.done) tts[name] = [n, 0, 0];
    const report = collectReport(this.rt);
    for (const t of report.incomplete) (tts[t.tt] ??= [0, 0, 0])[1]++;
    for (const h of report.held) (tts[h.tt] ??= [0, 0, 0])[2]++;
    const counts = (this.rt.transport as { counters?: () => { sent: number; received: number } } | undefined)?.counters?.();
    const errors = this.errors;
    this.errors = [];
    return {
      rank: this.rt.rank, tts, running: this.rt.scheduler.pending, sent: counts?.sent ?? 0, received: counts?.received ?? 0,
      fencing: this.rt.lane.fencing, errors, slices,
    };
  }
}
