/**
 * Where a device task runs when a run has places of different kinds or speeds (emulated devices
 * with a host place beside them, or devices slowed down): StarPU's dmda idea. For each TT the
 * runtime keeps a running mean of its tasks' times on each place, measured from the task's first
 * `input()` (or, when it queued behind another task of its stream, from that task's end) to its
 * end; a new task goes to the place where it is expected to finish first:
 * (tasks already there per stream + 1) x that mean, plus the time to move its buffers there. A
 * place without a measurement for the TT yet is tried first (calibration). A task is placed only
 * when some candidate place has fewer than {@link DEPTH} tasks per stream; otherwise it waits for
 * a task to end, so that what is learned from the first tasks decides where the later ones go.
 */
import type { TTBase as TTImpl } from '../ttg/common/model.js';
import type { AnyBuffer } from './buffer.js';
import type { Backend } from './backend.js';
import type { StreamManager } from './streams.js';

/** Bytes per millisecond assumed for moving a buffer between the host and a device (4 GB/s). */
const COPY_BYTES_PER_MS = 4e6;
/** Weight of the newest measurement in the running mean. */
const NEWEST = 0.3;
/** Tasks per stream a place takes before new tasks wait to be placed. */
const DEPTH = 2;

/** Per-TT task times by place, and the choice they lead to. */
export class Placement {
  /** Candidate places of a TT by its `placement`: every place, the devices, the host place. */
  readonly candidates: Readonly<Record<'any' | 'devices' | 'host', readonly number[]>>;
  private readonly times = new WeakMap<TTImpl, Float64Array>();
  /** Tasks waiting for room, oldest first, with the places they may use. */
  private waiting: Array<{ places: readonly number[]; wake: (freed: number) => void }> = [];

  constructor(private readonly backend: Backend, private readonly streams: StreamManager) {
    this.candidates = { any: [...Array(backend.places).keys()], devices: [...Array(backend.devices).keys()], host: [backend.hostPlace] };
  }

  /** A task of `tt` took `ms` on `place`. */
  record(tt: TTImpl, place: number, ms: number): void {
    let t = this.times.get(tt);
    if (t === undefined) {
      t = new Float64Array(this.backend.places).fill(Number.NaN);
      this.times.set(tt, t);
    }
    t[place] = Number.isNaN(t[place]!) ? ms : (1 - NEWEST) * t[place]! + NEWEST * ms;
  }

  /**
   * Resolves with the place where a task has ended, one of `places` (the waiting task may find room
   * there). A task that does not take that place passes the wake-up on with {@link ended}.
   */
  whenRoom(places: readonly number[]): Promise<number> {
    return new Promise((wake) => this.waiting.push({ places, wake }));
  }

  /**
   * A task on `place` ended: the longest-waiting tasks that may use `place` try again, as many as
   * it has room for (one that only a still-full place suits stays waiting, so no wake-up is spent on it).
   */
  ended(place: number): void {
    if (this.waiting.length === 0) return;
    let room = DEPTH * this.backend.streamsOf[place]! - this.streams.deviceLoad(place);
    if (room <= 0) return;
    const keep: typeof this.waiting = [];
    for (const w of this.waiting) {
      if (room > 0 && w.places.includes(place)) {
        room--;
        w.wake(place);
      } else {
        keep.push(w);
      }
    }
    this.waiting = keep;
  }

  /**
   * The candidate place where a task of `tt` using `bufs` is expected to finish first, or -1 when
   * every candidate is full (the task waits: {@link whenRoom}).
   */
  choose(tt: TTImpl, bufs: readonly AnyBuffer[], candidates: readonly number[]): number {
    const t = this.times.get(tt);
    let best = -1;
    let bestCost = Infinity;
    for (const p of candidates) {
      const queued = this.streams.deviceLoad(p) / this.backend.streamsOf[p]!;
      if (queued >= DEPTH) continue;
      const ms = t?.[p];
      // unmeasured places first, the least loaded of them
      const cost = ms === undefined || Number.isNaN(ms) ? queued - 1e12 : (queued + 1) * ms + this.moveMs(bufs, p);
      if (cost < bestCost) {
        best = p;
        bestCost = cost;
      }
    }
    return best;
  }

  private moveMs(bufs: readonly AnyBuffer[], p: number): number {
    let bytes = 0;
    if (p === this.backend.hostPlace) {
      for (const b of bufs) if (!b.hostValid) bytes += b.bytes;
    } else {
      for (const b of bufs) if (!(b.copies[p]?.valid ?? false)) bytes += b.bytes;
    }
    return bytes / COPY_BYTES_PER_MS;
  }
}
