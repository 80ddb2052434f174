/**
 * Constraints hold back tasks that are ready to run. `SequencedKeysConstraint` maps each task to an
 * ordinal and lets only tasks at or below the released ordinal run, like C++ TTG's constraint of
 * the same name: in manual mode the program calls `release(ordinal)`; in auto mode the next
 * ordinal opens by itself when every task of the current one has finished.
 */
import { Errors } from './errors.js';
import { rt } from './runtime.js';
import type { Task } from './task.js';

/** Maps a task key to its ordinal (a number; lower runs first). */
export type OrdinalMapper<K> = (key: K) => number;

/** Options of {@link SequencedKeysConstraint}. */
export interface SequencedKeysOptions {
  /** Open the next ordinal automatically when all tasks of the current one are done. */
  auto?: boolean;
}

/** A task waiting in a constraint, with the ordinal it waits for. */
export interface HeldTask {
  readonly tt: string;
  readonly key: unknown;
  readonly ordinal: number;
}

/** Registry of constraints, so a fence can report what they hold. */
export const constraints = new Set<SequencedKeysConstraint<never>>();

/** Runs tasks in the order of the ordinals their keys map to. */
export class SequencedKeysConstraint<K = unknown> {
  /** @internal default mapper, used when `add_constraint` gives none */
  readonly mapper: OrdinalMapper<K> | undefined;
  /** True in auto-release mode. */
  readonly auto: boolean;
  private current = -Infinity;
  private active = 0;
  private readonly held = new Map<number, Task[]>();
  private ordinals: number[] = [];

  constructor(mapper?: OrdinalMapper<K>, options: SequencedKeysOptions = {}) {
    if (mapper !== undefined && typeof mapper !== 'function') {
      throw Errors.invalidArgument('SequencedKeysConstraint mapper', 'must be a function key => ordinal');
    }
    this.mapper = mapper;
    this.auto = options.auto === true;
    constraints.add(this as SequencedKeysConstraint<never>);
  }

  /** Number of tasks this constraint holds back. */
  get size(): number {
    let n = 0;
    for (const l of this.held.values()) n += l.length;
    return n;
  }

  /** The highest ordinal currently allowed to run. */
  get released(): number {
    return this.current;
  }

  /**
   * Lets tasks up to `ordinal` run (manual mode). In auto mode the argument is ignored and the next
   * held ordinal opens.
   */
  release(ordinal?: number): void {
    if (this.auto) {
      this.openNext();
      return;
    }
    if (typeof ordinal !== 'number' || Number.isNaN(ordinal)) {
      throw Errors.invalidArgument('SequencedKeysConstraint.release(ordinal)', `needs a number, got ${String(ordinal)}`, { rank: rt.rank });
    }
    if (ordinal <= this.current) return;
    this.current = ordinal;
    while (this.ordinals.length !== 0 && this.ordinals[0]! <= ordinal) this.openLowest();
  }

  /** @internal Returns true if the task may run now; otherwise keeps it until released. */
  admit(t: Task, ordinal: number): boolean {
    if (typeof ordinal !== 'number' || Number.isNaN(ordinal)) {
      throw Errors.invalidArgument('constraint mapper', `must return a number, got ${String(ordinal)}`, {
        tt: t.tt.name, key: t.key, rank: rt.rank,
      });
    }
    if (ordinal <= this.current) {
      this.active++;
      return true;
    }
    if (this.auto && this.active === 0 && this.ordinals.length === 0) {
      this.current = ordinal;
      this.active++;
      return true;
    }
    let list = this.held.get(ordinal);
    if (list === undefined) {
      list = [];
      this.held.set(ordinal, list);
      insertSorted(this.ordinals, ordinal);
    }
    list.push(t);
    return false;
  }

  /** @internal A task this constraint admitted has finished. */
  done(): void {
    this.active--;
    if (this.auto && this.active === 0) this.openNext();
  }

  /** @internal What is held, for fence reports. */
  heldTasks(): HeldTask[] {
    const out: HeldTask[] = [];
    for (const [ordinal, list] of this.held) for (const t of list) out.push({ tt: t.tt.name, key: t.key, ordinal });
    return out;
  }

  /** @internal Forgets held tasks (after a failed run). */
  dropHeld(): void {
    for (const list of this.held.values()) for (const t of list) t.tt.taskDone(t);
    this.held.clear();
    this.ordinals = [];
  }

  private openNext(): void {
    if (this.ordinals.length === 0) return;
    this.current = this.ordinals[0]!;
    this.openLowest();
  }

  private openLowest(): void {
    const ord = this.ordinals.shift()!;
    const list = this.held.get(ord)!;
    this.held.delete(ord);
    this.active += list.length;
    for (const t of list) t.tt.admitted(t);
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
