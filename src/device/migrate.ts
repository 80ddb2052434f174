/**
 * TTG's automatic migration: buffers reachable from a task's input values (a value that is a
 * Buffer, its own enumerable properties, array elements) are made valid on the host before a
 * plain host task runs and before the value leaves for another rank. The walk is shallow on
 * purpose (it runs before every host task while any buffer is off the host): the value, its own
 * properties and array elements, and arrays held in its properties (a tile's `list[i]`). Deeper
 * structures should expose their buffers at that depth.
 */
import { Buffer, type AnyBuffer } from './buffer.js';
import type { MemoryManager } from './memory.js';

/** Starts copies back for stale buffers in `values`; undefined when all are current on the host. */
export function toHostValues(memory: MemoryManager, values: readonly unknown[]): Promise<void> | undefined {
  let pending: Array<Promise<void>> | undefined;
  const visit = (b: AnyBuffer): void => {
    const p = memory.toHost(b);
    if (p !== undefined) (pending ??= []).push(p);
  };
  for (const v of values) {
    if (typeof v !== 'object' || v === null) continue;
    if (v instanceof Buffer) {
      visit(v);
    } else if (Array.isArray(v)) {
      for (const e of v) if (e instanceof Buffer) visit(e);
    } else if (!ArrayBuffer.isView(v)) {
      for (const k in v) {
        const e = (v as Record<string, unknown>)[k];
        if (e instanceof Buffer) visit(e);
        else if (Array.isArray(e)) for (const x of e) if (x instanceof Buffer) visit(x);
      }
    }
  }
  return pending === undefined ? undefined : Promise.all(pending).then(() => undefined);
}
