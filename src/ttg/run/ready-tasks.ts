/**
 * The scheduler's ready tasks: highest priority first, first-in first-out among equal priorities,
 * except that while a device stream is short of work, tasks of TTs that launch device work go
 * first. One JS thread runs every body; strict priority would let a long run of light host tasks
 * (a broadcast's, a tile's allocation) keep the kernels idle, where C++ TTG's worker threads
 * would start the first kernel beside them.
 */
import type { DevicePort } from '../common/device-port.js';
import { before, ReadyQueue } from './ready-queue.js';
import type { Task } from '../common/model.js';

/** Two ready queues, one for the tasks of TTs that feed a device, picked by priority and arrival. */
export class ReadyTasks {
  protected readonly host: ReadyQueue<Task>;
  protected readonly feeding: ReadyQueue<Task>;
  protected arrivals: number;

  /** `device()`: the device layer, once it is started; `from`: the queue whose tasks this one takes over. */
  constructor(private readonly device: () => DevicePort | undefined, from?: ReadyTasks) {
    this.host = from === undefined ? new ReadyQueue<Task>() : from.host;
    this.feeding = from === undefined ? new ReadyQueue<Task>() : from.feeding;
    this.arrivals = from === undefined ? 0 : from.arrivals;
  }

  /** Number of queued tasks. */
  get size(): number {
    return this.host.size + this.feeding.size;
  }

  push(t: Task): void {
    t.seq = this.arrivals++;
    (t.tt.feedsDevice ? this.feeding : this.host).push(t);
  }

  /** Removes and returns the task to run next, or undefined when none is queued. */
  shift(): Task | undefined {
    if (this.feeding.size === 0) return this.host.shift();
    const h = this.host.peek();
    if (h === undefined || before(this.feeding.peek()!, h) || this.device()?.hungry() === true) return this.feeding.shift();
    return this.host.shift();
  }

  /** The task {@link shift} would return now, left queued, or undefined when none is queued. */
  peek(): Task | undefined {
    if (this.feeding.size === 0) return this.host.peek();
    const h = this.host.peek();
    if (h === undefined || before(this.feeding.peek()!, h) || this.device()?.hungry() === true) return this.feeding.peek();
    return h;
  }

  /** The queued tasks in no particular order, at most `limit` of each queue. */
  *items(limit: number): IterableIterator<Task> {
    yield* this.host.items(limit);
    yield* this.feeding.items(limit);
  }

  /** Removes everything and returns it (a failed run discards its queued tasks). */
  drain(): Task[] {
    return [...this.host.drain(), ...this.feeding.drain()];
  }
}
