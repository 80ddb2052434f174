/**
 * Tracing (`TTG_TRACE=file.json`): Chrome/Perfetto trace events for tasks, device ops and
 * messages. One process track per rank (`pid` = rank), one thread track for the JS thread
 * (`tid` 0) and one per device stream. At `finalize` every rank hands its events to rank 0,
 * which writes one JSON file that opens in ui.perfetto.dev or chrome://tracing.
 *
 * Off by default: the hot paths test one field (`scheduler.tracer`, `tracer`) against undefined.
 * Times are microseconds of the system's monotonic clock (CLOCK_MONOTONIC, which is also the
 * steady clock of the native streams), so ranks on one machine share one time axis.
 */
import { writeFileSync } from 'node:fs';
import { describeKey, errorFields, type TtgError } from '../base/errors.js';

/** One Chrome trace event (the subset ttg writes). */
export interface TraceEvent {
  name: string;
  /** `X` complete, `b`/`e` async span, `s`/`f` flow, `i` instant, `M` metadata. */
  ph: string;
  ts: number;
  pid: number;
  tid: number;
  dur?: number;
  cat?: string;
  id?: number;
  bp?: string;
  s?: string;
  args?: Record<string, unknown>;
}

/** Thread id of the JS thread's track. */
export const JS_TID = 0;
/** Thread id of the fences' track (a fence spans the tasks it waits for, so it has a row of its own). */
export const FENCE_TID = 99;
/** Thread id of device stream `s` (global stream index). */
export const streamTid = (s: number): number => 100 + s;

/**
 * `hrtime - performance.now()` in ms, read between two `performance.now()` calls (the tightest of
 * a few tries; the first calls are slow, so they only warm up).
 */
function clockOffsetMs(): number {
  let best = Infinity;
  let offset = 0;
  for (let i = 0; i < 8; i++) {
    const a = performance.now();
    const h = Number(process.hrtime.bigint()) / 1e6;
    const b = performance.now();
    if (i >= 2 && b - a < best) {
      best = b - a;
      offset = h - (a + b) / 2;
    }
  }
  return offset;
}

/** Collects this rank's events. */
export class Tracer {
  /** This rank's events so far. */
  readonly events: TraceEvent[] = [];
  /** Milliseconds to add to `performance.now()` to get the monotonic clock. */
  private readonly offsetMs: number;
  private nextAsync = 1;
  private nextFlow = 1;
  private readonly threads = new Set<number>();
  private deferred: Array<() => void> = [];

  constructor(
    /** The trace file (written by rank 0), or undefined when only the HTML report wants the events. */
    readonly file: string | undefined,
    /** This rank. */
    readonly rank: number,
  ) {
    this.offsetMs = clockOffsetMs();
    this.events.push({ name: 'process_name', ph: 'M', ts: 0, pid: rank, tid: 0, args: { name: `rank ${rank}` } });
    this.events.push({ name: 'process_sort_index', ph: 'M', ts: 0, pid: rank, tid: 0, args: { sort_index: rank } });
    this.thread(JS_TID, 'JS thread');
  }

  /** Now, in trace microseconds. */
  now(): number {
    return (performance.now() + this.offsetMs) * 1000;
  }

  /** A steady-clock time in ms (what `ttg.device.stamp` records) in trace microseconds. */
  fromSteadyMs(ms: number): number {
    return ms * 1000;
  }

  /** Names thread track `tid` once. */
  thread(tid: number, name: string): void {
    if (this.threads.has(tid)) return;
    this.threads.add(tid);
    this.events.push({ name: 'thread_name', ph: 'M', ts: 0, pid: this.rank, tid, args: { name } });
    this.events.push({ name: 'thread_sort_index', ph: 'M', ts: 0, pid: this.rank, tid, args: { sort_index: tid } });
  }

  /** A slice of a task body on the JS thread, from `t0` to now. */
  slice(name: string, key: unknown, t0: number): void {
    this.events.push({ name, ph: 'X', cat: 'task', ts: t0, dur: this.now() - t0, pid: this.rank, tid: JS_TID, args: { key: describeKey(key) } });
  }

  /** The whole life of a task that suspended (async body or generator), as an async span. */
  span(name: string, key: unknown, t0: number, failed: boolean): void {
    const id = this.nextAsync++;
    const args: Record<string, unknown> = { key: describeKey(key) };
    if (failed) args['failed'] = true;
    this.events.push({ name, ph: 'b', cat: 'task', id, ts: t0, pid: this.rank, tid: JS_TID, args });
    this.events.push({ name, ph: 'e', cat: 'task', id, ts: this.now(), pid: this.rank, tid: JS_TID });
  }

  /** Fence `n` of this rank's world, from `t0` to now, on the fences' track. */
  fence(n: number, t0: number): void {
    this.thread(FENCE_TID, 'fences');
    this.events.push({ name: `fence ${n}`, ph: 'X', cat: 'fence', ts: t0, dur: this.now() - t0, pid: this.rank, tid: FENCE_TID });
  }

  /** A run of this rank failed with `err` (what the report lists under errors). */
  error(err: TtgError): void {
    this.events.push({ name: err.code, ph: 'i', s: 'p', cat: 'error', ts: this.now(), pid: this.rank, tid: JS_TID, args: { ...errorFields(err) } });
  }

  /** A device op that ran on stream track `tid` between two steady-clock stamps (ms). */
  deviceOp(name: string, tid: number, startMs: number, endMs: number, args?: Record<string, unknown>): void {
    if (!(endMs >= startMs) || startMs === 0) return;
    const ts = this.fromSteadyMs(startMs);
    const ev: TraceEvent = { name, ph: 'X', cat: 'device', ts, dur: this.fromSteadyMs(endMs) - ts, pid: this.rank, tid };
    if (args !== undefined) ev.args = args;
    this.events.push(ev);
  }

  /** The start of a message flow to `dest`; returns the flow id the receiver closes. */
  sendFlow(dest: number, bytes: number): number {
    const id = this.rank * 2 ** 32 + this.nextFlow++;
    const ts = this.now();
    this.events.push({ name: 'send', ph: 'i', s: 't', cat: 'msg', ts, pid: this.rank, tid: JS_TID, args: { dest, bytes } });
    this.events.push({ name: 'msg', ph: 's', cat: 'msg', id, ts, pid: this.rank, tid: JS_TID });
    return id;
  }

  /** A received message handled from `t0` to now; closes flow `flow` (0: none). */
  recvSlice(src: number, flow: number, t0: number, what: string): void {
    const t1 = this.now();
    this.events.push({ name: `recv ${what}`, ph: 'X', cat: 'msg', ts: t0, dur: t1 - t0, pid: this.rank, tid: JS_TID, args: { src } });
    if (flow !== 0) this.events.push({ name: 'msg', ph: 'f', bp: 'e', cat: 'msg', id: flow, ts: t0, pid: this.rank, tid: JS_TID });
  }

  /** Runs `fn` before the events are serialized (device ops whose stamps arrive later). */
  later(fn: () => void): void {
    this.deferred.push(fn);
  }

  /** This rank's events as JSON text (without the enclosing array brackets). */
  serialize(): string {
    const d = this.deferred;
    this.deferred = [];
    for (const fn of d) fn();
    return this.events.map((e) => JSON.stringify(e)).join(',\n');
  }
}

/** The merged events' JSON text: `chunks` are each rank's {@link Tracer.serialize} output. */
export function mergedEvents(chunks: readonly string[]): string {
  return `[\n${chunks.filter((c) => c.length !== 0).join(',\n')}\n]`;
}

/** Writes the merged trace. */
export function writeTrace(file: string, chunks: readonly string[]): void {
  writeFileSync(file, `{"displayTimeUnit":"ms","traceEvents":${mergedEvents(chunks)}}\n`);
}

/** The tracer of this process, or undefined when tracing is off (set by `initialize`). */
export let tracer: Tracer | undefined;

/** Starts tracing to `file` (from TTG_TRACE; undefined: for the report only); returns the tracer. */
export function startTracing(file: string | undefined, rank: number): Tracer {
  tracer = new Tracer(file, rank);
  return tracer;
}

/** Stops tracing (after the file was written). */
export function stopTracing(): void {
  tracer = undefined;
}
