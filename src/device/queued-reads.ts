/**
 * Buffers that a device task sent on while its queued copies or kernels still read them (allowed:
 * only writes need a wait before a send). Until that work has run, a task that consumes any value
 * holding such a buffer (however it got there: forwarded by a reader, in a new wrapper) gets a
 * private copy, so no write lands under the queued read. Counted per buffer, not per value, since
 * copy-on-write counts only the top-level objects handed to sends.
 */
import type { AnyBuffer } from './buffer.js';
import { forEachBuffer } from './migrate.js';

/** Marks outstanding over all buffers: 0 lets consumers skip the walk. */
let outstanding = 0;

/** Queued work of a task reads `b`, which the task has sent on. */
export function markQueuedRead(b: AnyBuffer): void {
  b.queuedReaders++;
  outstanding++;
}

/** That work has run (the task's wait fired, or it ended). */
export function unmarkQueuedRead(b: AnyBuffer): void {
  b.queuedReaders--;
  outstanding--;
}

/** Whether a buffer inside `value` is still read by queued work of a task that sent it on. */
export function readByQueuedWork(value: unknown): boolean {
  if (outstanding === 0) return false;
  let found = false;
  forEachBuffer([value], (b) => { if (b.queuedReaders > 0) found = true; });
  return found;
}
