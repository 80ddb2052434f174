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
 */
import type { AnyBuffer } from './buffer.js';
import type { MemoryManager } from './memory.js';
import type { TaskState } from './task-state.js';

/** Buffers of `st`'s watch whose host data the body changed lose their device copies; the watch ends. */
export function settleHostWrites(memory: MemoryManager, st: TaskState, only?: (b: AnyBuffer) => boolean): void {
  const w = st.hostWatch;
  if (w === undefined) return;
  for (const [b, h] of w) {
    if (only !== undefined && !only(b)) continue;
    if (memory.hashHost(b) !== h) memory.hostWrites(b);
    else if (memory.coherent(b)) memory.setRef(b, h);
    w.delete(b);
  }
  if (w.size === 0) st.hostWatch = undefined;
}

/** After a wait of `named` fired: those that are current on the host and still on a device are watched. */
export function watchHostCopies(memory: MemoryManager, st: TaskState, named: readonly AnyBuffer[]): void {
  for (const b of named) {
    if (!b.hostValid || !b.copies.some((c) => c !== undefined && c.valid)) continue;
    const h = memory.hashHost(b);
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
