/**
 * How a device task ends: its pins, stream load and place are given back once its acquisition
 * has settled and everything it enqueued has run (so no fence ends, and no memory is freed, under
 * a running kernel); a failure that no wait reported fails it then. A task given up by a hang
 * report ends the same way, with nobody told.
 */
import type { TtgError } from '../base/errors.js';
import type { Task, TTBase as TTImpl } from '../ttg/common/model.js';
import { settleHostWrites } from './host-writes.js';
import { unmarkQueuedRead } from './queued-reads.js';
import { ReadOnlyWatch } from './read-only.js';
import { deviceRuntime, type DeviceRuntime } from './runtime.js';
import { Placing, TaskState } from './task-state.js';

/**
 * The scheduler's `deviceEnd`: a task with device state has returned (or thrown). A device
 * task's pins and stream load are released once everything it enqueued has run; a body that
 * returned without waiting for its last ops is finished later (`then`), so no fence ends and no
 * memory is freed under a running kernel. True when it deferred. A host task's read-only inputs
 * are checked for writes (throws E_READ_ONLY, or defers when a large one is hashed on a worker).
 */
export function endDeviceTask(task: Task, then: (task: Task, error?: unknown) => void): boolean {
  const st = task.deviceState as TaskState | ReadOnlyWatch | Placing | undefined;
  task.deviceState = undefined;
  if (st instanceof ReadOnlyWatch) {
    const checked = st.check(task);
    if (checked === undefined) return false;
    checked.then(() => then(task), (e: unknown) => then(task, e));
    return true;
  }
  if (st instanceof Placing) {
    st.ended = true;
    return false;
  }
  const r = deviceRuntime();
  if (st === undefined || r === undefined) return false;
  settleHostWrites(r.memory, st);
  const checks = st.hostChecks;
  st.hostChecks = undefined;
  const done = (e?: TtgError): void => then(task, e);
  // its pins hold until the judgements are in: the device copies they judge stay allocated
  return checks === undefined ? finish(r, st, task.tt, done) : finishAfter(Promise.all(checks), r, st, task.tt, done);
}

/**
 * The scheduler's `abandonTask`: a task given up by a hang report gives back its place, stream
 * load and pins once its acquisition and its queued work have run, so the next graph finds the
 * device as it was.
 */
export function abandonDeviceTask(task: Task): void {
  const st = task.deviceState;
  if (st instanceof Placing) st.ended = true;
  if (!(st instanceof TaskState)) return;
  task.deviceState = undefined;
  st.abandoned = true;
  const r = deviceRuntime();
  if (r === undefined) return;
  r.memory.wakeWaiters(st.stream.device);
  finish(r, st, task.tt, () => {});
}

/** Ends `st` once its acquisition has settled and its queued work has run; true when that is later (then `done`). */
function finish(r: DeviceRuntime, st: TaskState, tt: TTImpl, done: (e?: TtgError) => void): boolean {
  if (st.acquiring !== undefined) return finishAfter(st.acquiring, r, st, tt, done);
  if (!st.active) return false;
  if (st.lastOp <= st.waitedOps) {
    release(r, st, tt);
    return false;
  }
  endMarker(r, st, tt, done, undefined, 0);
  return true;
}

/** {@link finish} once `first` has settled, however: always later. */
function finishAfter(first: PromiseLike<unknown>, r: DeviceRuntime, st: TaskState, tt: TTImpl, done: (e?: TtgError) => void): true {
  const after = (): void => {
    try {
      if (!finish(r, st, tt, done)) done();
    } catch (e) {
      done(e as TtgError);  // the task fails, not hangs
    }
  };
  first.then(after, after);
  return true;
}

/** Times the end marker is tried when the addon refuses to enqueue it (then after 1, 2, 4 ... 64 ms). */
const MARKER_TRIES = 8;

/**
 * Enqueues the marker after which `st` ends. An enqueue the addon refuses (`TTG_FAULT_DEVOP`) is
 * tried again a little later, since only a marker tells when the task's queued work has run: its
 * pins are released then, and the task fails with the refusal (E_DEVICE). Refused every time, the
 * task fails and its pins stay, so no memory a queued kernel may still use is ever freed.
 */
function endMarker(r: DeviceRuntime, st: TaskState, tt: TTImpl, done: (e?: TtgError) => void, refused: TtgError | undefined, tries: number): void {
  try {
    r.streams.marker(st.stream, (e) => {
      release(r, st, tt);
      // a failure no wait reported fails the task now
      done(refused ?? e ?? (st.failureSeen ? undefined : st.failure));
    });
  } catch (e) {
    const err = refused ?? (e as TtgError);
    if (tries + 1 >= MARKER_TRIES || deviceRuntime() !== r) {
      done(err);
      return;
    }
    setTimeout(() => endMarker(r, st, tt, done, err, tries + 1), 2 ** tries);
  }
}

function release(r: DeviceRuntime, st: TaskState, tt: TTImpl): void {
  if (!r.backend.inPlace) r.memory.release(st.listed, st.stream.device);
  if (st.copiesHome !== undefined) {
    for (const b of st.copiesHome) r.memory.copiedBack(b, st.stream.device, -1);
    st.copiesHome = undefined;
  }
  st.written = undefined;
  if (st.marked !== undefined) for (const b of st.marked) unmarkQueuedRead(b);
  st.marked = undefined;
  if (st.placedAt !== undefined) {
    // Its time on the stream: from when it was placed, or from when the task before it on the
    // stream ended (the stream runs in order, so a queued task is not yet working).
    const now = performance.now();
    const ms = now - Math.max(st.placedAt, st.stream.freeAt);
    st.stream.freeAt = now;
    if (r.backend.learned && !st.abandoned) r.placement.record(tt, st.stream.device, ms);
    const c = r.memory.counters[st.stream.device]!;
    c.tasks++;
    c.busy_ms += ms;
  }
  st.active = false;
  r.holding.delete(st);
  r.streams.vacate(st.stream);
  r.placement.ended(st.stream.device);
}
