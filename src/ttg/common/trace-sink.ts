/**
 * What the runtime, the transports and the device layer tell the tracer (`TTG_TRACE`,
 * `TTG_REPORT`): the events they publish, and the process's sink that receives them. The tracer
 * of src/observe implements {@link TraceSink} and installs itself with {@link setTracer}, so
 * none of the layers that publish imports the observation room. Off by default: the hot paths
 * test one field (`scheduler.tracer`, {@link tracer}) against undefined.
 */
import type { TtgError } from '../../base/errors.js';
import type { Task } from './model.js';

/** Thread id of the JS thread's track. */
export const JS_TID = 0;
/** Thread id of the fences' track (a fence spans the tasks it waits for, so it has a row of its own). */
export const FENCE_TID = 99;
/** Thread id of device stream `s` (global stream index). */
export const streamTid = (s: number): number => 100 + s;

/** The receiver of a rank's trace events. Times are trace microseconds (see {@link TraceSink.now}). */
export interface TraceSink {
  /** Events are kept for a trace file (not only the report's digest): a sender may then add a flow. */
  readonly full: boolean;
  /** Now, in trace microseconds. */
  now(): number;
  /** Names thread track `tid` (once). */
  thread(tid: number, name: string): void;
  /** Task `t`'s body ran from `t0` to now. */
  ran(t: Task, t0: number): void;
  /** Task `t` resumes now; returns the time to pass to {@link resumed}. */
  resuming(t: Task): number;
  /** Task `t`'s body ran again from `t0` to now. */
  resumed(t: Task, t0: number): void;
  /** Task `t` left the suspended tasks: its execution ended (or was given up). */
  ended(t: Task): void;
  /** Fence `n` of this rank's world lasted from `t0` to now. */
  fence(n: number, t0: number): void;
  /** A run of this rank failed with `err`. */
  error(err: TtgError): void;
  /** A device op ran on stream track `tid` between two steady-clock stamps (ms). */
  deviceOp(name: string, tid: number, startMs: number, endMs: number, args?: Record<string, unknown>): void;
  /** `n` messages (-1: one taken back) of `bytes` each were sent to job rank `dest`. */
  sent(dest: number, bytes: number, n: number): void;
  /** A message flow to `dest` starts; returns the flow id the receiver closes. */
  sendFlow(dest: number, bytes: number): number;
  /** A received message was handled from `t0` to now; closes flow `flow` (0: none). */
  recvSlice(src: number, flow: number, t0: number, what: string): void;
  /** Runs `fn` before the events are serialized (device ops whose stamps arrive later). */
  later(fn: () => void): void;
}

/** The sink of this process, or undefined when tracing is off (set by the tracer at `initialize`). */
export let tracer: TraceSink | undefined;

/** Installs the sink of this process (undefined: tracing stops). */
export function setTracer(sink: TraceSink | undefined): void {
  tracer = sink;
}
