/**
 * What a rank tells the live dashboard a few times a second (dashboard.ts): per TT the
 * tasks run since the start, ready to run, waiting for inputs and held by constraints; tasks ready
 * and running; messages and bytes per destination; the fence in progress; errors as they happen;
 * and a sample of the task slices since the last summary (the task stream, from the scheduler's
 * {@link TaskSampler}). The counts are kept where tasks change state (the TT's `runs`, `queued`,
 * `held`, the pending tasks of the assemblies that hold some), so a summary costs O(TTs), not
 * O(tasks waiting).
 * Nothing here uses the tracer.
 */
import { errorFields, type TtgError } from '../../base/errors.js';
import type { Runtime } from '../../ttg/runtime/runtime.js';
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

/** A TT's counts on a rank: [tasks run so far, ready (queued to run), waiting for inputs, held by constraints]. */
export type TtCounts = [run: number, ready: number, waiting: number, held: number];

/**
 * Counts per TT name. A null-prototype object (a TT may be named `__proto__` or `constructor`):
 * make one with {@link countsByName}; it travels as a JSON object.
 */
export type CountsByName = Record<string, TtCounts>;

/** An empty {@link CountsByName}: no prototype, so no name reaches `Object.prototype`. */
export function countsByName(): CountsByName {
  return Object.create(null) as CountsByName;
}

/** One rank's summary. */
export interface RankSummary {
  rank: number;
  /** When it was taken (epoch ms). */
  at: number;
  /** Per TT name, its counts (TTs that share a name add up). */
  tts: CountsByName;
  /** Tasks ready to run, queued. */
  ready: number;
  /** Tasks started and not finished: the body running now, or awaiting a promise or device work. */
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

/**
 * Summarizes a rank from its runtime and the worlds split off it, counting tasks per TT and timing
 * a sample of them.
 */
export class Summarizer {
  private readonly sampler = new TaskSampler();
  /** Each TT's count at the last summary (a TT collected since keeps its share in `done`). */
  private readonly seen = new WeakMap<object, number>();
  private readonly done = new Map<string, number>();
  private errors: ErrorNote[] = [];
  /** `Date.now() - performance.now()`: slices are timed with the latter, shown with the former. */
  private readonly epochOffset = Date.now() - performance.now();

  /** Attaches to `rt` (worlds split off it later inherit the sampler and the error watch). */
  constructor(private readonly rt: Runtime) {
    for (const w of rt.worlds()) {
      w.scheduler.watch(this.sampler);
      w.watchErrors = (err) => this.noteError(err);
    }
  }

  /** Stops timing tasks, counting queued ones and watching errors. */
  stop(): void {
    for (const w of this.rt.worlds()) {
      if (w.scheduler.sampler === this.sampler) w.scheduler.watch(undefined);
      w.watchErrors = undefined;
    }
  }

  /** A run of this rank failed (the scheduler's first error; the fence takes it soon after). */
  private noteError(err: TtgError): void {
    this.errors.push({ ...errorFields(err), rank: this.rt.rank, at: Date.now() });
  }

  /** The summary now; `devices` as the caller found them. */
  take(devices: DeviceNote[]): RankSummary {
    const worlds = [...this.rt.worlds()];
    let tasks = 0;
    const tts = countsByName();
    for (const w of worlds) {
      // liveTTs also yields a TT whose constructor threw after taking its id: only its fields are set
      for (const tt of w.liveTTs()) {
        const before = this.seen.get(tt) ?? 0;
        if (tt.runs !== before) {
          tasks += tt.runs - before;
          this.seen.set(tt, tt.runs);
          this.done.set(tt.name, (this.done.get(tt.name) ?? 0) + tt.runs - before);
        }
        if (tt.queued === 0 && tt.held === 0) continue;
        const c = (tts[tt.name] ??= [0, 0, 0, 0]);
        c[1] += tt.queued;
        c[3] += tt.held;
      }
      for (const a of w.live) {
        const waiting = a.pendingCount();
        if (waiting !== 0) (tts[a.tt.name] ??= [0, 0, 0, 0])[2] += waiting;
      }
    }
    for (const [name, n] of this.done) (tts[name] ??= [0, 0, 0, 0])[0] = n;
    const { slices, every } = this.sampler.take(tasks);
    for (const w of worlds) w.scheduler.sampleWithin(this.sampler.every);
    const off = this.epochOffset;
    const size = this.rt.size;
    const sum = { ready: 0, running: 0, sent: 0, received: 0, messages: new Array<number>(size).fill(0), bytes: new Array<number>(size).fill(0) };
    let fence: RankSummary['fence'] = null;
    for (const w of worlds) {
      sum.ready += w.scheduler.queued;
      sum.running += w.scheduler.pending - w.scheduler.queued;
      const transport = w.transport;
      const counts = (transport as { counters?: () => { sent: number; received: number } } | undefined)?.counters?.();
      sum.sent += counts?.sent ?? 0;
      sum.received += counts?.received ?? 0;
      const traffic = transport?.traffic;
      for (let r = 0; traffic !== undefined && r < size; r++) {
        sum.messages[r] += traffic.messages[r] ?? 0;
        sum.bytes[r] += traffic.bytes[r] ?? 0;
      }
      // the longest fence in progress of any of the rank's worlds
      const since = w.fenceSince;
      if (since !== undefined && (fence === null || performance.now() - since > fence.ms)) fence = { n: w.fences, ms: performance.now() - since };
    }
    const errors = this.errors;
    this.errors = [];
    return {
      rank: this.rt.rank, at: Date.now(), tts, ready: sum.ready, running: sum.running, sent: sum.sent, received: sum.received,
      traffic: { messages: sum.messages, bytes: sum.bytes }, fence,
      errors, slices: slices.map(([tt, t0, dur]) => [tt, t0 + off, dur]), every, devices,
    };
  }
}
