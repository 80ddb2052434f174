/**
 * TTG's automatic migration: every Buffer reachable from a task's input values is made valid on
 * the host before a plain or async host task runs and before the value leaves for another rank,
 * as C++ TTG finds buffers through serialization. The walk goes to any depth: object properties
 * (class instances' own enumerable properties too), array elements, Map keys and values, Set
 * members; each object is visited once, so cycles and shared parts cost nothing extra. A host
 * task may write the buffers of its consumable inputs: their device copies are dropped, so the
 * next device task copies the host's data in again; it must not write those of its read-only inputs.
 */
import { Buffer, judging, type AnyBuffer } from './buffer.js';
import type { Task } from '../ttg/common/model.js';
import type { MemoryManager } from './memory.js';
import { ReadOnlyWatch } from './read-only.js';
import { someInside } from '../ttg/run/values-inside.js';

/**
 * Calls `visit(buffer, i)` for every Buffer reachable from `values[i]`, once per buffer and
 * value. Iterative, so a long linked structure cannot overflow the stack.
 */
export function forEachBuffer(values: readonly unknown[], visit: (b: AnyBuffer, index: number) => void): void {
  let i = 0;
  const look = (o: object): boolean | undefined => {
    if (!(o instanceof Buffer)) return undefined;
    visit(o, i);
    return false;  // a Buffer's own fields hold no other Buffer
  };
  for (; i < values.length; i++) {
    const v = values[i];
    if (typeof v === 'object' && v !== null) someInside([v], look);
  }
}

/**
 * Starts copies back for stale buffers in `values` and, for the values whose bit is set in
 * `writable` (a host task's consumable inputs), drops their buffers' device copies once the host
 * copy is current. With `task` (a host task about to run), the buffers of its other, read-only
 * inputs that have a valid device copy are watched for writes ({@link ReadOnlyWatch}). Buffers
 * whose host writes are being judged are looked at once judged. Undefined when nothing had to be
 * copied.
 */
export function toHostValues(memory: MemoryManager, values: readonly unknown[], writable: number, task?: Task): Promise<void> | undefined {
  let pending: Array<Promise<void>> | undefined;
  let written: AnyBuffer[] | undefined;
  let watched: AnyBuffer[] | undefined;
  let terminals: number[] | undefined;
  let judgements: Array<Promise<unknown>> | undefined;
  forEachBuffer(values, (b, i) => {
    const judged = judging(b);
    if (judged !== undefined) (judgements ??= []).push(judged);
    const p = memory.toHost(b);
    if (p !== undefined) (pending ??= []).push(p);
    if ((writable & (1 << i)) !== 0) (written ??= []).push(b);
    else if (task !== undefined && b.copies.some((c) => c !== undefined && c.valid)) {
      (watched ??= []).push(b);
      (terminals ??= []).push(i);
    }
  });
  // a sender's host writes to a buffer are being judged (host-writes.ts): what is current where is known after
  if (judgements !== undefined) return Promise.all(judgements).then(() => toHostValues(memory, values, writable, task));
  const ready = (): Promise<void> | undefined => {
    if (written !== undefined) for (const b of written) memory.hostWrites(b);
    if (watched === undefined) return undefined;
    const w = ReadOnlyWatch.start(memory, watched, terminals!);
    if (w instanceof ReadOnlyWatch) {
      task!.deviceState = w;
      return undefined;
    }
    return w.then((x) => { task!.deviceState = x; });
  };
  if (pending === undefined) return ready();
  return Promise.all(pending).then(ready);
}
