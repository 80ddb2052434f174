/**
 * Host writes the runtime is not told of, seen on every backend as the host backend (which works on
 * the host arrays in place) sees them:
 *
 * - by a device task after a wait: a wait that brings `b` home while a device copy stays valid
 *   records a hash of `b.host` (`TaskState.hostWatch`); where the hash has changed when the task
 *   next uses, sends or ends with `b`, the host copy becomes the only current one, so the next
 *   kernel on `b` reads what the body wrote;
 * - by the program between fences (in place, through a typed array of the same memory, or by
 *   `kernels.callHere` on `b.host`): a host copy that equals a device copy has a hash
 *   (`Buffer.refHash`, taken by a wait's watch, by a read-only host task's check, by the program's
 *   `toHost()`, or when a fence ends); the first acquisition of `b` after a fence compares it
 *   (memory.ts, `checkProgramWrites`) and, where it changed, copies the host array in again.
 *
 * Large arrays are hashed on a worker when a send or the task's end settles them: until the
 * verdict is in, `b.hostCheck` is pending; a device task acquiring `b` waits for it, a kernel of the
 * same task using `b` judges at once, and the task's end waits for all of its own.
 */
import type { AnyBuffer, HostCheck } from './buffer.js';
import type { MemoryManager } from './memory.js';
import { OFF_THREAD_BYTES } from './off-thread.js';
import type { TaskState } from './task-state.js';

/**
 * Buffers of `st`'s watch (those `only` accepts) whose host data the body changed lose their
 * device copies; they leave the watch. Large ones are judged on a worker (their checks join
 * `st.hostChecks`).
 */
export function settleHostWrites(memory: MemoryManager, st: TaskState, only?: (b: AnyBuffer) => boolean): void {
  const w = st.hostWatch;
  if (w === undefined) return;
  for (const [b, h] of w) {
    if (only !== undefined && !only(b)) continue;
    w.delete(b);
    const pending = b.hostCheck;
    if (b.host.byteLength >= OFF_THREAD_BYTES && pending === undefined) {
      (st.hostChecks ??= []).push(checkSoon(memory, b, h));
      continue;
    }
    // small, or another task's check of `b` still runs: one hash here judges both (one pending check per buffer)
    const now = memory.hashHost(b);
    judgePending(memory, b, now);
    judge(memory, b, h, now);
  }
  if (w.size === 0) st.hostWatch = undefined;
}

/** `b`, hashed `h` when watched, hashes `now`: changed, its device copies are stale; else `h` says what they hold. */
function judge(memory: MemoryManager, b: AnyBuffer, h: bigint, now: bigint): void {
  if (now !== h) memory.hostWrites(b);
  else if (memory.coherent(b)) memory.setRef(b, h);
}

/** Judges `b` on a worker; `b.hostCheck` is pending until then. */
function checkSoon(memory: MemoryManager, b: AnyBuffer, h: bigint): Promise<void> {
  const version = b.version;
  const check: HostCheck = {
    hash: h, version,
    done: memory.hashSoon(b).then((now) => {
      if (b.hostCheck !== check) return;  // judged on this thread meanwhile (judgeNow, or another task's settle)
      b.hostCheck = undefined;
      if (b.version === version) judge(memory, b, h, now);
    }),
  };
  b.hostCheck = check;
  return check.done;
}

/** A kernel is about to use `b` whose check is pending: judged now, on this thread. */
export function judgeNow(memory: MemoryManager, b: AnyBuffer): void {
  if (b.hostCheck !== undefined) judgePending(memory, b, memory.hashHost(b));
}

/** `b`'s pending check (if any) is judged with `now`, the hash of its host array taken on this thread; its worker's verdict is then ignored. */
function judgePending(memory: MemoryManager, b: AnyBuffer, now: bigint): void {
  const check = b.hostCheck;
  if (check === undefined) return;
  b.hostCheck = undefined;
  if (b.version === check.version) judge(memory, b, check.hash, now);
}

/** After a wait of `named` fired: those that are current on the host and still on a device are watched. */
export function watchHostCopies(memory: MemoryManager, st: TaskState, named: readonly AnyBuffer[]): void {
  for (const b of named) {
    if (!b.hostValid || !b.copies.some((c) => c !== undefined && c.valid)) continue;
    judgeNow(memory, b);
    const h = memory.knownHash(b) ?? memory.hashHost(b);
    (st.hostWatch ??= new Map()).set(b, h);
    memory.setRef(b, h);
  }
}

/** Before a kernel of the task uses `b`: true when the body wrote `b.host` since it was watched (the host copy is then the current one). */
export function hostWrittenSince(memory: MemoryManager, st: TaskState, b: AnyBuffer): boolean {
  const h = st.hostWatch?.get(b);
  if (h === undefined) return false;
  const now = memory.hashHost(b);
  if (now === h) return false;
  st.hostWatch!.set(b, now);
  memory.hostWrites(b);
  return true;
}
