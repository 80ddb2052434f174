/**
 * A world: this process's view of one set of ranks running a program. The default world spans
 * every rank (`ttg.initialize()`); `split` makes sub-worlds, each with a runtime of its own.
 */
import { Errors } from '../base/errors.js';
import { allreduce, barrier, broadcast, refuseInTask, type Reducible, type ReduceOp } from './collective/collectives.js';
import { fenceRuntime, type FenceOptions } from './phase/fence.js';
import type { FenceReport } from './phase/fence-report.js';
import type { Runtime } from './runtime/runtime.js';

export type { FenceOptions, Reducible, ReduceOp };

/** This process's view of one set of ranks running a program: the default world, or a split of it. */
export class World {
  /** @internal This world's runtime. */
  readonly runtime: Runtime;

  /** @internal */
  constructor(runtime: Runtime) {
    this.runtime = runtime;
    runtime.world = this;
  }

  /** This process's rank in this world, in `[0, size)`. */
  get rank(): number {
    return this.runtime.rank;
  }

  /** Number of ranks in this world. */
  get size(): number {
    return this.runtime.size;
  }

  /** Starts running this world's tasks (idempotent). */
  execute(): void {
    this.runtime.check('World.execute()');
    this.runtime.scheduler.execute();
  }

  /**
   * Waits until every rank of this world is idle and no message of it is in flight; see
   * `ttg.fence`. Other worlds of the process run on meanwhile.
   */
  fence(options: FenceOptions = {}): Promise<FenceReport> {
    try {
      this.runtime.check('World.fence()');
    } catch (e) {
      return Promise.reject(e);
    }
    return fenceRuntime(this.runtime, options);
  }

  /**
   * Resolves once every rank of this world has called it. Like every collective here: called by
   * the main program (from a task of this world it throws `E_INVALID_ARGUMENT` naming the task: it
   * would wait for the fence that waits for that task), by every rank, in the same order as the world's other
   * collectives, fences and splits; they run one after another. Ranks that call different
   * collectives (or the same one with a different op, length, type or root) get `E_COLLECTIVE`
   * naming each rank's call, on every rank, instead of a hang.
   */
  barrier(): Promise<void> {
    return barrier(this.runtime);
  }

  /**
   * `x` (a number or a typed array of numbers, the same length on every rank) reduced element-wise
   * with `op` over this world's ranks: sum (the default), min, max or prod, computed in double
   * precision and returned as a new value of `x`'s type, the same on every rank; a NaN anywhere
   * makes min and max NaN, as `Math.min` and `Math.max` do. A collective (see {@link World.barrier}).
   */
  allreduce<T extends Reducible>(x: T, op: ReduceOp = 'sum'): Promise<T> {
    return allreduce(this.runtime, x, op);
  }

  /**
   * Rank `root`'s `x` (any value a message can carry) on every rank: the root gets `x` itself, the
   * others a copy; what the others pass is ignored. The root's `x` is serialized when it calls. A
   * collective (see {@link World.barrier}).
   */
  broadcast<T>(x: T, root = 0): Promise<T> {
    return broadcast(this.runtime, x, root);
  }

  /**
   * Splits this world, like `MPI_Comm_split`: the ranks that pass the same `color` (an integer
   * >= 0) form a new world, ranked by `key` (default: rank in this world), then by rank. Resolves
   * to this rank's new world, or undefined for a negative color. Collective: every rank of this
   * world calls it, in the same order as its other splits. The new world has its own TTs (make them
   * with `make_tt(..., { world })`), fences, errors and termination detection; it runs alongside
   * this one and ends with `ttg.finalize()`.
   */
  split(color: number, key: number = this.rank): Promise<World | undefined> {
    refuseInTask(this.runtime, 'World.split()');
    return this.splitTurn(color, key);
  }

  private async splitTurn(color: number, key: number): Promise<World | undefined> {
    const parent = this.runtime;
    parent.check('World.split()');
    let bad: Error | undefined;
    if (!Number.isInteger(color)) bad = Errors.invalidArgument('World.split(color)', `needs an integer color, got ${String(color)}`, { rank: parent.rank });
    else if (!Number.isInteger(key)) bad = Errors.invalidArgument('World.split(color, key)', `needs an integer key, got ${String(key)}`, { rank: parent.rank });
    if (bad !== undefined && parent.size === 1) throw bad;
    // A bad call still takes its turn (color NaN marks it), so that every rank's split fails
    // together and the world's next collective is matched with the same call everywhere.
    let rt: Runtime | undefined;
    try {
      rt = await parent.lane.run(() => parent.split(bad === undefined ? (color < 0 ? -1 : color) : NaN, bad === undefined ? key : 0), 'World.split()');
    } catch (e) {
      throw bad ?? e;
    }
    return rt === undefined ? undefined : new World(rt);
  }
}
