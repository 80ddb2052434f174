/**
 * A world: this process's view of one set of ranks running a program. The default world spans
 * every rank (`ttg.initialize()`); `split` makes sub-worlds, each with a runtime of its own.
 */
import { Errors } from '../base/errors.js';
import { fenceRuntime, type FenceOptions } from './fence.js';
import type { FenceReport } from './fence-report.js';
import type { Runtime } from './runtime.js';

export type { FenceOptions };

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
   * Splits this world, like `MPI_Comm_split`: the ranks that pass the same `color` (an integer
   * >= 0) form a new world, ranked by `key` (default: rank in this world), then by rank. Resolves
   * to this rank's new world, or undefined for a negative color. Collective: every rank of this
   * world calls it, in the same order as its other splits. The new world has its own TTs (make them
   * with `make_tt(..., { world })`), fences, errors and termination detection; it runs alongside
   * this one and ends with `ttg.finalize()`.
   */
  async split(color: number, key: number = this.rank): Promise<World | undefined> {
    const parent = this.runtime;
    parent.check('World.split()');
    if (!Number.isInteger(color)) throw Errors.invalidArgument('World.split(color)', `needs an integer color, got ${String(color)}`, { rank: parent.rank });
    if (!Number.isInteger(key)) throw Errors.invalidArgument('World.split(color, key)', `needs an integer key, got ${String(key)}`, { rank: parent.rank });
    const rt = await parent.split(color < 0 ? -1 : color, key);
    return rt === undefined ? undefined : new World(rt);
  }
}
