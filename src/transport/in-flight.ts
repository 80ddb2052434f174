/**
 * Values that a send still reads. A payload larger than the staging limit is sent from the
 * value's own memory (the comm thread copies it into the envelope, or MPI reads it directly),
 * so until the addon reports the send done the value has one more holder in the copy-on-write
 * count: a task that consumes it, or a reducer that folds into it, gets its own copy meanwhile.
 */
import { release, retain } from '../ttg/run/cow.js';

/** The values held by sends in flight, by the addon's pin id. */
export class InFlight {
  private readonly byPin = new Map<number, unknown>();

  /** The send pinned as `pin` (0: nothing pinned, the payload was copied) reads `value`. */
  hold(pin: number, value: unknown): void {
    if (pin === 0 || typeof value !== 'object' || value === null) return;
    retain(value);
    this.byPin.set(pin, value);
  }

  /** The sends of `pins` are done: their values lose that holder. */
  done(pins: Float64Array): void {
    for (const pin of pins) {
      const v = this.byPin.get(pin);
      if (v === undefined) continue;
      this.byPin.delete(pin);
      release(v);
    }
  }

  /** Sends still in flight (for tests). */
  get size(): number {
    return this.byPin.size;
  }
}
