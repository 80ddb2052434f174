/**
 * Constraints hold back tasks that are ready to run. `SequencedKeysConstraint` maps each task to an
 * ordinal and admits a task at once only when its ordinal is at or below the constraint's current
 * ordinal, like C++ TTG's constraint of the same name (ttg/constraint.h):
 *
 * - manual mode: the current ordinal starts at `start` (0) and moves up by `release(ordinal)`;
 * - auto mode: when the tasks of the current ordinal have all finished, the lowest held ordinal
 *   becomes the current one. A task that arrives when nothing is running or held runs at once
 *   without moving the current ordinal, so lower ordinals that arrive while it runs still go first;
 *   a task at or below the current ordinal runs at once and lowers the current ordinal to its own.
 *
 * `stop()` holds every task that arrives and opens nothing until `start()`. Ordinals are absolute
 * over the constraint's life: a second batch whose ordinals start again from 0 would find them all
 * released; `reset()` between its fences starts the constraint again.
 */
import { Errors } from '../../base/errors.js';
import type { Task, TaskRuntime } from '../common/model.js';

/** Maps a task key to its ordinal (a number; lower runs first). */
export type OrdinalMapper<K> = (key: K) => number;

/** Options of {@link SequencedKeysConstraint}. */
export interface SequencedKeysOptions {
  /** Open the next ordinal automatically when all tasks of the current one are done. */
  auto?: boolean;
  /**
   * The current ordinal before any release (default 0): tasks at or below it run from the start.
   * Programs whose ordinals may be negative pass a lower value, or `-Infinity` to hold every task
   * until the first release.
   */
  start?: number;
}

/** A task waiting in a constraint, with the ordinal it waits for. */
export interface HeldTask {
  readonly tt: string;
  readonly key: unknown;
  readonly ordinal: number;
  /** Present (true) when the constraint is stopped: nothing opens before its `start()`. */
  readonly stopped?: true;
}

/** Runs tasks in the order of the ordinals their keys map to. */
export class SequencedKeysConstraint<K = unknown> {
  /** @internal default mapper, used when `add_constraint` gives none */
  readonly mapper: OrdinalMapper<K> | undefined;
  /** True in auto-release mode. */
  readonly auto: boolean;
  private start0: number;
  private current: number;
  private halted = false;
  /** Admitted tasks not finished yet (auto mode opens the next ordinal when it drops to 0). */
  private active = 0;
  private readonly held = new Map<number, Task[]>();
  /** Keys of `held`, ascending. */
  private ordinals: number[] = [];

  constructor(mapper?: OrdinalMapper<K>, options: SequencedKeysOptions = {}) {
    if (mapper !== undefined && typeof mapper !== 'function') {
      throw Errors.invalidArgument('SequencedKeysConstraint mapper', 'must be a function key => ordinal');
    }
    const start = options.start ?? 0;
    if (typeof start !== 'number' || Number.isNaN(start)) {
      throw Errors.invalidArgument('SequencedKeysConstraint options.start', `must be a number, got ${String(start)}`);
    }
    this.mapper = mapper;
    this.auto = options.auto === true;
    this.start0 = start;
    this.current = start;
  }

  /** Number of tasks this constraint holds back. */
  get size(): number {
    let n = 0;
    for (const l of this.held.values()) n += l.length;
    return n;
  }

  /** The current ordinal: tasks at or below it run when they arrive (unless stopped). */
  get released(): number {
    return this.current;
  }

  /** True between `stop()` and `start()`. */
  get stopped(): boolean {
    return this.halted;
  }

  /**
   * Manual mode: lets tasks up to `ordinal` run; an ordinal at or below the current one changes
   * nothing. Auto mode: the argument is ignored and the lowest held ordinal opens now, even if
   * tasks of the current one still run. While stopped, a manual release is remembered for
   * `start()`, and an auto release does nothing.
   */
  release(ordinal?: number): void {
    if (this.auto) {
      this.openNext();
      return;
    }
    if (typeof ordinal !== 'number' || Number.isNaN(ordinal)) {
      throw Errors.invalidArgument('SequencedKeysConstraint.release(ordinal)', `needs a number, got ${String(ordinal)}`);
    }
    if (ordinal <= this.current) return;
    this.current = ordinal;
    if (!this.halted) this.openEligible();
  }

  /** Holds every task that arrives from now on and opens no ordinal until {@link start}. */
  stop(): void {
    this.halted = true;
  }

  /**
   * Ends a {@link stop}. Manual mode: opens what the releases made while stopped allow; if the
   * current ordinal never moved from `start`, the lowest held ordinal opens as well. Auto mode:
   * the lowest held ordinal opens if no admitted task is still running; otherwise only the lowest
   * held ordinal at or below the current one opens (as if its tasks had just arrived), and higher
   * ones wait until every running task has finished.
   */
  start(): void {
    if (!this.halted) return;
    this.halted = false;
    if (this.auto) {
      if (this.active === 0) this.openNext();
      else this.openEligible();
      return;
    }
    if (this.current === this.start0 && this.ordinals.length !== 0 && this.ordinals[0]! > this.current) {
      this.current = this.ordinals[0]!;
    }
    this.openEligible();
  }

  /**
   * Starts again for a next batch: the current ordinal goes back to `start` (the constructor's,
   * default 0) and a stop ends. Only when the constraint holds no task and none it admitted still
   * runs (between fences), else `E_INVALID_ARGUMENT`.
   */
  reset(start: number = this.start0): void {
    if (typeof start !== 'number' || Number.isNaN(start)) {
      throw Errors.invalidArgument('SequencedKeysConstraint.reset(start)', `needs a number, got ${String(start)}`);
    }
    if (this.active !== 0 || this.ordinals.length !== 0) {
      throw Errors.invalidArgument('SequencedKeysConstraint.reset()',
        `needs a constraint with no task held or running, but it holds ${this.size} and ${this.active} it admitted still run (reset between fences)`);
    }
    this.start0 = start;
    this.current = start;
    this.halted = false;
  }

  /** Inside {@link openNext}; `reopen`: a task ended meanwhile and asked for the next ordinal. */
  private opening = false;
  private reopen = false;

  /** @internal Returns true if the task may run now; otherwise keeps it until released. */
  admit(t: Task, ordinal: number): boolean {
    if (typeof ordinal !== 'number' || Number.isNaN(ordinal)) {
      throw Errors.invalidArgument('constraint mapper', `must return a number, got ${String(ordinal)}`, {
        tt: t.tt.name, key: t.key, rank: t.tt.rt.rank,
      });
    }
    if (!this.halted) {
      if (ordinal <= this.current) {
        if (this.auto) this.current = ordinal;
        this.active++;
        return true;
      }
      if (this.auto && this.active === 0 && this.ordinals.length === 0) {
        // nothing runs or waits: run it rather than wait for nobody, but keep the current
        // ordinal, so that lower ordinals arriving while it runs are not admitted after it
        this.active++;
        return true;
      }
    }
    let list = this.held.get(ordinal);
    if (list === undefined) {
      list = [];
      this.held.set(ordinal, list);
      insertSorted(this.ordinals, ordinal);
    }
    list.push(t);
    t.tt.held++;
    return false;
  }

  /** @internal A task this constraint admitted has finished. */
  done(): void {
    this.active--;
    if (this.auto && this.active === 0) this.openNext();
  }

  /** @internal What is held, for fence reports. */
  heldTasks(rt: TaskRuntime): HeldTask[] {
    const out: HeldTask[] = [];
    for (const [ordinal, list] of this.held) {
      for (const t of list) if (t.tt.rt === rt) out.push(this.halted ? { tt: t.tt.name, key: t.key, ordinal, stopped: true } : { tt: t.tt.name, key: t.key, ordinal });
    }
    return out;
  }

  /** @internal Forgets held tasks (after a failed run). */
  dropHeld(rt: TaskRuntime): void {
    for (const [ordinal, list] of this.held) {
      const keep = list.filter((t) => t.tt.rt !== rt);
      for (const t of list) {
        if (t.tt.rt !== rt) continue;
        t.tt.held--;
        t.tt.assembly.taskDone(t);
      }
      if (keep.length === 0) this.held.delete(ordinal);
      else this.held.set(ordinal, keep);
    }
    this.ordinals = [...this.held.keys()].sort((a, b) => a - b);
  }

  /**
   * Auto mode: the lowest held ordinal becomes the current one and its tasks run. Not reentrant:
   * tasks it opens may end at once (dropped by a failed run), and each end asks to open the next
   * ordinal; that is done by this loop, not by recursion (thousands of ordinals, one frame).
   */
  private openNext(): void {
    if (this.opening) {
      this.reopen = true;
      return;
    }
    this.opening = true;
    try {
      do {
        this.reopen = false;
        if (this.halted || this.ordinals.length === 0) return;
        this.current = this.ordinals[0]!;
        this.openLowest();
      } while (this.reopen && this.active === 0);
    } finally {
      this.opening = false;
    }
  }

  /**
   * Runs the tasks held at or below the current ordinal. In auto mode such tasks arrived while
   * stopped; as on an arrival, the lowest of their ordinals becomes the current one, and only it
   * opens.
   */
  private openEligible(): void {
    if (this.auto && this.ordinals.length !== 0 && this.ordinals[0]! <= this.current) this.current = this.ordinals[0]!;
    while (this.ordinals.length !== 0 && this.ordinals[0]! <= this.current) this.openLowest();
  }

  private openLowest(): void {
    const ord = this.ordinals.shift()!;
    const list = this.held.get(ord)!;
    this.held.delete(ord);
    this.active += list.length;
    for (const t of list) {
      t.tt.held--;
      t.tt.assembly.admitted(t);
    }
  }
}

function insertSorted(a: number[], x: number): void {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  a.splice(lo, 0, x);
}
