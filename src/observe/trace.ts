/**
 * Tracing (`TTG_TRACE=file.json`, `TTG_REPORT=file.html`): Chrome/Perfetto trace events for tasks,
 * device ops and messages, and the HTML report's digest (report-digest.ts). One process track per
 * rank (`pid` = rank), one thread track for the JS thread (`tid` 0) and one per device stream. At
 * `finalize` every rank hands its events and digest to rank 0, which writes one JSON file that
 * opens in ui.perfetto.dev or chrome://tracing, and the report.
 *
 * The tracer is the process's trace sink (src/ttg/common/trace-sink.ts): the runtime, the
 * transports and the device layer tell it their events without importing this room. Off by
 * default: the hot paths test one field (`scheduler.tracer`, the sink) against undefined. With
 * only the report asked for, no event is kept: each task costs two clock reads and a few counts,
 * whatever the length of the run. Keys are rendered when the events are serialized, not
 * per task. Times are microseconds of the system's monotonic clock (CLOCK_MONOTONIC, which is
 * also the steady clock of the native streams), so ranks on one machine share one time axis.
 */
import { describeKey, errorFields, type TtgError } from '../base/errors.js';
import { ReportDigest } from './report-digest.js';
import type { Task } from '../ttg/common/model.js';
import { JS_TID, FENCE_TID, setTracer, type TraceSink } from '../ttg/common/trace-sink.js';

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

/** A traced task that suspended: when its first slice started, its JS-thread time so far, whether it ended. */
interface OpenRun {
  t0: number;
  us: number;
  ended: boolean;
}

/** Collects this rank's events (for the trace file) and digest (for the report). */
export class Tracer implements TraceSink {
  /** This rank's events so far (kept only for a trace file; task keys as given, rendered by {@link serialize}). */
  readonly events: TraceEvent[] = [];
  /** The report's digest of this rank, when a report was asked for. */
  readonly digest: ReportDigest | undefined;
  /** Events are kept (a trace file was asked for). */
  readonly full: boolean;
  /** Milliseconds to add to `performance.now()` to get the monotonic clock. */
  private readonly offsetMs: number;
  private nextAsync = 1;
  private nextFlow = 1;
  private readonly threads = new Set<number>();
  private deferred: Array<() => void> = [];
  /** Traced tasks that suspended and have not ended. */
  private readonly open = new Map<Task, OpenRun>();
  /** The task being resumed (its end inside the resume waits for the resume's slice). */
  private resumingTask: Task | undefined = undefined;

  constructor(
    /** The trace file (written by rank 0), or undefined when only the HTML report wants the events. */
    readonly file: string | undefined,
    /** This rank. */
    readonly rank: number,
    /** Whether the HTML report was asked for. */
    report = file === undefined,
  ) {
    this.offsetMs = clockOffsetMs();
    this.full = file !== undefined;
    this.digest = report ? new ReportDigest(rank, this.now()) : undefined;
    this.push({ name: 'process_name', ph: 'M', ts: 0, pid: rank, tid: 0, args: { name: `rank ${rank}` } });
    this.push({ name: 'process_sort_index', ph: 'M', ts: 0, pid: rank, tid: 0, args: { sort_index: rank } });
    this.thread(JS_TID, 'JS thread');
  }

  private push(e: TraceEvent): void {
    if (this.full) this.events.push(e);
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
    this.digest?.thread(tid, name);
    this.push({ name: 'thread_name', ph: 'M', ts: 0, pid: this.rank, tid, args: { name } });
    this.push({ name: 'thread_sort_index', ph: 'M', ts: 0, pid: this.rank, tid, args: { sort_index: tid } });
  }

  /** Task `t`'s body ran from `t0` to now: its first slice; one execution, unless it suspended. */
  ran(t: Task, t0: number): void {
    const t1 = this.now();
    const us = t1 - t0;
    this.slice(t, t0, us);
    if (t.nextSuspended !== undefined) this.open.set(t, { t0, us, ended: false });
    else this.digest?.execution(t.tt.name, t.key, us, t1);
  }

  /** Task `t` resumes now (returns the time to pass to {@link resumed}). */
  resuming(t: Task): number {
    this.resumingTask = t;
    return this.now();
  }

  /** Task `t`'s body ran again from `t0` to now: one more slice of its execution. */
  resumed(t: Task, t0: number): void {
    this.resumingTask = undefined;
    const us = this.now() - t0;
    this.slice(t, t0, us);
    const o = this.open.get(t);
    if (o === undefined) return;
    o.us += us;
    if (o.ended) this.close(t, o);
  }

  /** Task `t` left the suspended tasks: its execution ended (or was given up). */
  ended(t: Task): void {
    const o = this.open.get(t);
    if (o === undefined) return;
    // ended inside a resume: the execution closes with that resume's slice
    if (this.resumingTask === t) o.ended = true;
    else this.close(t, o);
  }

  private slice(t: Task, t0: number, us: number): void {
    const name = t.tt.name;
    this.push({ name, ph: 'X', cat: 'task', ts: t0, dur: us, pid: this.rank, tid: JS_TID, args: { key: t.key } });
    this.digest?.slice(JS_TID, name, t.key, t0, us);
  }

  /** The whole life of a task that suspended: an async span in the trace, one execution in the report. */
  private close(t: Task, o: OpenRun): void {
    this.open.delete(t);
    const t1 = this.now();
    if (this.full) {
      const id = this.nextAsync++;
      this.events.push({ name: t.tt.name, ph: 'b', cat: 'task', id, ts: o.t0, pid: this.rank, tid: JS_TID, args: { key: t.key } });
      this.events.push({ name: t.tt.name, ph: 'e', cat: 'task', id, ts: t1, pid: this.rank, tid: JS_TID });
    }
    this.digest?.execution(t.tt.name, t.key, o.us, t1);
  }

  /** Fence `n` of this rank's world, from `t0` to now, on the fences' track. */
  fence(n: number, t0: number): void {
    this.thread(FENCE_TID, 'fences');
    const dur = this.now() - t0;
    this.push({ name: `fence ${n}`, ph: 'X', cat: 'fence', ts: t0, dur, pid: this.rank, tid: FENCE_TID });
    this.digest?.fence(`fence ${n}`, t0, dur);
  }

  /** A run of this rank failed with `err` (what the report lists under errors). */
  error(err: TtgError): void {
    const ts = this.now();
    this.push({ name: err.code, ph: 'i', s: 'p', cat: 'error', ts, pid: this.rank, tid: JS_TID, args: { ...errorFields(err) } });
    this.digest?.error(err, ts);
  }

  /** A device op that ran on stream track `tid` between two steady-clock stamps (ms). */
  deviceOp(name: string, tid: number, startMs: number, endMs: number, args?: Record<string, unknown>): void {
    if (!(endMs >= startMs) || startMs === 0) return;
    const ts = this.fromSteadyMs(startMs);
    const dur = this.fromSteadyMs(endMs) - ts;
    const ev: TraceEvent = { name, ph: 'X', cat: 'device', ts, dur, pid: this.rank, tid };
    if (args !== undefined) ev.args = args;
    this.push(ev);
    this.digest?.deviceOp(tid, name, ts, dur);
  }

  /** `n` messages (-1: one taken back) of `bytes` each sent to job rank `dest` (the report's traffic). */
  sent(dest: number, bytes: number, n: number): void {
    this.digest?.sent(dest, bytes, n, this.now());
  }

  /** The start of a message flow to `dest` (trace file only); returns the flow id the receiver closes. */
  sendFlow(dest: number, bytes: number): number {
    const id = this.rank * 2 ** 32 + this.nextFlow++;
    const ts = this.now();
    this.push({ name: 'send', ph: 'i', s: 't', cat: 'msg', ts, pid: this.rank, tid: JS_TID, args: { dest, bytes } });
    this.push({ name: 'msg', ph: 's', cat: 'msg', id, ts, pid: this.rank, tid: JS_TID });
    return id;
  }

  /** A received message handled from `t0` to now; closes flow `flow` (0: none). */
  recvSlice(src: number, flow: number, t0: number, what: string): void {
    const dur = this.now() - t0;
    this.push({ name: `recv ${what}`, ph: 'X', cat: 'msg', ts: t0, dur, pid: this.rank, tid: JS_TID, args: { src } });
    if (flow !== 0) this.push({ name: 'msg', ph: 'f', bp: 'e', cat: 'msg', id: flow, ts: t0, pid: this.rank, tid: JS_TID });
    this.digest?.slice(JS_TID, `recv ${what}`, undefined, t0, dur);
  }

  /** Runs `fn` before the events are serialized (device ops whose stamps arrive later). */
  later(fn: () => void): void {
    this.deferred.push(fn);
  }

  /**
   * This rank's digest and events as text for rank 0 ({@link splitChunk} takes it apart). Events
   * too many for one string are left out, with a warning: the digest still makes the report.
   */
  serialize(): string {
    const d = this.deferred;
    this.deferred = [];
    for (const fn of d) fn();
    const digest = this.digest === undefined ? '' : JSON.stringify(this.digest.data());
    let events = '';
    try {
      events = this.events.map(eventText).join(',\n');
    } catch (e) {
      console.warn(`ttg: rank ${this.rank}: TTG_TRACE: this rank's ${this.events.length} trace events do not fit in one string (${String(e)}); the trace file goes without them`);
    }
    return `${digest}${CHUNK_SEPARATOR}${events}`;
  }
}

/** Between a rank's digest and its events in its chunk: JSON text never holds a raw U+0001. */
const CHUNK_SEPARATOR = '\u0001';

/** An event as JSON, its task key rendered (events keep keys as given: rendering each costs a task much). */
function eventText(e: TraceEvent): string {
  const a = e.args;
  if (a !== undefined && e.cat === 'task' && 'key' in a) e.args = { ...a, key: describeKey(a['key']) };
  return JSON.stringify(e);
}

/** A rank's chunk taken apart: its digest's JSON ('' when no report) and its events' text. */
export function splitChunk(chunk: string): { digest: string; events: string } {
  const at = chunk.indexOf(CHUNK_SEPARATOR);
  return at < 0 ? { digest: '', events: chunk } : { digest: chunk.slice(0, at), events: chunk.slice(at + 1) };
}

/** The trace file's text from each rank's events' text. */
export function traceText(events: readonly string[]): string {
  return `{"displayTimeUnit":"ms","traceEvents":[\n${events.filter((c) => c.length !== 0).join(',\n')}\n]}\n`;
}

/** The tracer of this process, or undefined when tracing is off (set by `initialize`; also the process's trace sink). */
export let tracer: Tracer | undefined;

/** Starts tracing to `file` (from TTG_TRACE; undefined: none) and for the report (TTG_REPORT); returns the tracer. */
export function startTracing(file: string | undefined, report: boolean, rank: number): Tracer {
  tracer = new Tracer(file, rank, report);
  setTracer(tracer);
  return tracer;
}

/** Stops tracing (after the file was written). */
export function stopTracing(): void {
  tracer = undefined;
  setTracer(undefined);
}
