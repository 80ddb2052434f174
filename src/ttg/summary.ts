/**
 * What a rank tells the live dashboard a few times a second (src/world/dashboard.ts): per TT the
 * tasks run since the start, waiting for inputs and held by constraints; tasks running; messages
 * and bytes per destination; the fence in progress; errors as they happen; and a sample of the
 * task slices since the last summary (the task stream, from the scheduler's {@link TaskSampler}).
 * Nothing here uses the tracer.
 */
import { describeKey, type TtgError } from '../base/errors.js';
import { collectReport } from './fence-report.js';
import type { Runtime } from './runtime.js';
import { TaskSampler } from './task-sampler.js';

/** An error as the dashboard shows it. */
export interface ErrorNote {
  code: string;
  tt: string;
  key: string;
  rank: number;
  message: string;
  /** When it was seen (epoch ms). */
  at: number;
}

/** A place of the device layer (a device, or the host place), as the dashboard shows it. */
export interface DeviceNote {
  place: string;
  used: number;
  capacity: number;
  pinned: number;
  evictions: number;
  h2d: number;
  d2h: number;
  kernels: number;
  /** Milliseconds device tasks worked here since the start. */
  busyMs: number;
  /** Device tasks on each of its streams now. */
  streams: number[];
}

/** One rank's summary. */
export interface RankSummary {
  rank: number;
  /** When it was taken (epoch ms). */
  at: number;
  /** Per TT name: [tasks run so far, waiting for inputs, held by constraints]. */
  tts: Record<string, [number, number, number]>;
  running: number;
  sent: number;
  received: number;
  /** Messages and bytes sent to each rank so far. */
  traffic: { messages: number[]; bytes: number[] };
  /** The fence in progress: its number and how long it has lasted (ms); null outside fences. */
  fence: { n: number; ms: number } | null;
  /** Errors of this rank's runs since the last summary. */
  errors: ErrorNote[];
  /** A sample of the tasks since the last summary: [TT, start, duration] (epoch ms). */
  slices: Array<[string, number, number]>;
  /** One task in this many was timed for `slices`. */
  every: number;
  /** The device layer's places (empty without devices). */
  devices: DeviceNote[];
}

/** Summarizes a rank from its runtime, counting tasks per TT and timing a sample of them. */
export class Summarizer {
  private readonly sampler = new TaskSampler();
  /** Each TT's count at the last summary, by id (a TT collected since keeps its share in `done`). */
  private readonly seen = new Map<number, number>();
  private readonly done = new Map<string, number>();
  private errors: ErrorNote[] = [];
  /** `Date.now() - performance.now()`: slices are timed with the latter, shown with the former. */
  private readonly epochOffset = Date.now() - performance.now();

  constructor(private readonly rt: Runtime) {
    rt.scheduler.sampler = this.sampler;
    rt.scheduler.sampleWithin(1);
  }

  /** Stops timing tasks. */
  stop(): void {
    if (this.rt.scheduler.sampler === this.sampler) this.rt.scheduler.sampler = undefined;
  }

  /** A run of this rank failed (the scheduler's first error; the fence takes it soon after). */
  noteError(err: TtgError): void {
    this.errors.push({
      code: err.code, tt: err.tt ?? '', key: err.key === undefined ? '' : describeKey(err.key), rank: err.rank ?? this.rt.rank,
      message: err.detail, at: Date.now(),
    });
  }

  /** The summary now; `devices` as the caller found them. */
  take(devices: DeviceNote[]): RankSummary {
    let tasks = 0;
    for (const tt of this.rt.liveTTs()) {
      const before = this.seen.get(tt.id) ?? 0;
      if (tt.runs === before) continue;
      tasks += tt.runs - before;
      this.seen.set(tt.id, tt.runs);
      this.done.set(tt.name, (this.done.get(tt.name) ?? 0) + tt.runs - before);
    }
    const { slices, every } = this.sampler.take(tasks);
    this.rt.scheduler.sampleWithin(this.sampler.every);
    const off = this.epochOffset;
    const tts: Record<string, [number, number, number]> = {};
    for (const [name, n] of this.done) tts[name] = [n, 0, 0];
    const report = collectReport(this.rt);
    for (const t of report.incomplete) (tts[t.tt] ??= [0, 0, 0])[1]++;
    for (const h of report.held) (tts[h.tt] ??= [0, 0, 0])[2]++;
    const transport = this.rt.transport;
    const counts = (transport as { counters?: () => { sent: number; received: number } } | undefined)?.counters?.();
    const traffic = transport?.traffic;
    const errors = this.errors;
    this.errors = [];
    const since = this.rt.fenceSince;
    return {
      rank: this.rt.rank, at: Date.now(), tts, running: this.rt.scheduler.pending, sent: counts?.sent ?? 0, received: counts?.received ?? 0,
      traffic: { messages: traffic === undefined ? [] : [...traffic.messages], bytes: traffic === undefined ? [] : [...traffic.bytes] },
      fence: since === undefined ? null : { n: this.rt.fences, ms: performance.now() - since },
      errors, slices: slices.map(([tt, t0, dur]) => [tt, t0 + off, dur]), every, devices,
    };
  }
}
