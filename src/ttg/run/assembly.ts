/**
 * The tasks of one TT on this rank: the values that arrive for each key are collected here until
 * the task is complete, then it passes the TT's constraints and goes to its world's scheduler;
 * when it ends, what it held is released. The TT itself only describes the task and its wiring.
 */
import { checkKey, KeyShapeError } from '../../serialize/key-codec.js';
import { causeText, Errors, isTtgError, TtgError } from '../../base/errors.js';
import { copyValue, holderCount, release, retain } from './cow.js';
import { KeyMap } from '../wiring/key-map.js';
import type { DeviceChecks, InputSlot, Task, TaskAssembly, TaskRuntime, TTBase } from '../common/model.js';
import { TaskInstance } from './task.js';

/** Input assembly and task lifecycle of one TT on this rank. */
export class Assembly implements TaskAssembly {
  /** Listed in its runtime's live assemblies (it may hold pending tasks). */
  live = false;
  private readonly pending = new KeyMap<Task>();
  /** Initial `Task.streams`, copied into each new task; undefined when no input reduces. */
  private streamTemplate: number[] | undefined = undefined;
  /** Inputs whose stream size depends on the key (InputTerminal.countOf). */
  private sizedByKey: readonly InputSlot[] | undefined = undefined;
  /** One plain input and no constraint: a value is a complete task. */
  private simple: boolean;

  private readonly rt: TaskRuntime;
  private readonly inputs: readonly InputSlot[];

  constructor(readonly tt: TTBase) {
    this.rt = tt.rt;
    this.inputs = tt.inputs;
    this.simple = tt.inputs.length === 1;
  }

  /** The TT's inputs or constraints changed (a reducer, a constraint): recomputes the fast path. */
  reconfigure(): void {
    const ins = this.inputs;
    this.simple = ins.length === 1 && ins[0]!.reducer === undefined && this.tt.gates.length === 0;
    this.streamTemplate = ins.some((t) => t.reducer !== undefined) ? ins.flatMap((t) => [0, t.reducer === undefined ? -1 : t.staticCount]) : undefined;
    const sized = ins.filter((t) => t.reducer !== undefined && t.countOf !== undefined);
    this.sizedByKey = sized.length === 0 ? undefined : sized;
  }

  /** Runs a TT without inputs for `key` on this rank. */
  invokeLocal(key: unknown): void {
    this.validKey(key, undefined);
    this.ready(new TaskInstance(this.tt, key, []));
  }

  /** Stores a value that belongs to this rank. */
  receive(idx: number, key: unknown, value: unknown): void {
    if (this.simple) {
      this.validKey(key, idx);
      if (this.rt.trackRefs) retain(value);
      const t = new TaskInstance(this.tt, key, [value]);
      t.got = 1;
      t.missing = 0;
      this.ready(t);
      return;
    }
    const t = this.pendingTask(key, idx);
    const term = this.inputs[idx]!;
    const bit = 1 << idx;
    if (term.reducer === undefined) {
      if ((t.got & bit) !== 0) throw Errors.duplicateInput(this.tt.name, idx, key, this.rt.rank);
      t.args[idx] = value;
      if (this.rt.trackRefs) retain(value);
      this.inputComplete(t, bit);
      return;
    }
    if ((t.got & bit) !== 0) {
      throw Errors.reducerCount(this.tt.name, idx, key, `a value arrived after the stream completed (${t.streams![2 * idx]} value(s) received)`, this.rt.rank);
    }
    const st = t.streams!;
    const n = st[2 * idx]!;
    st[2 * idx] = n + 1;
    if (n === 0) {
      t.args[idx] = value;
      retain(value);
    } else {
      let acc = t.args[idx];
      if (holderCount(acc) > 1) {
        release(acc);
        acc = copyValue(acc);
        retain(acc);
      }
      let r: unknown;
      try {
        r = term.reducer(acc, value);
      } catch (e) {
        throw new TtgError('E_TASK_FAILED', `reducer of input ${idx} threw: ${causeText(e)}`, {
          tt: this.tt.name, terminal: idx, key, rank: this.rt.rank, cause: e,
        });
      }
      if (r !== undefined && r !== acc) {
        release(acc);
        retain(r);
        acc = r;
      }
      t.args[idx] = acc;
    }
    if (n + 1 === st[2 * idx + 1]) this.inputComplete(t, bit);
  }

  /** Sets how many values reducing input `idx` of task `key` (owned here) expects. */
  setStreamSize(idx: number, key: unknown, n: number): void {
    const t = this.pendingTask(key, idx);
    const got = t.streams![2 * idx]!;
    if (got > n || (t.got & (1 << idx)) !== 0) {
      throw Errors.reducerCount(this.tt.name, idx, key, `stream size set to ${n} but ${got} value(s) already arrived${(t.got & (1 << idx)) !== 0 ? ' and the stream completed' : ''}`, this.rt.rank);
    }
    t.streams![2 * idx + 1] = n;
    if (got === n) this.inputComplete(t, 1 << idx);
  }

  /** Reducing input `idx` of task `key` (owned here) gets no more values. */
  finalizeStream(idx: number, key: unknown): void {
    const t = this.pendingTask(key, idx);
    if ((t.got & (1 << idx)) !== 0) return;
    this.inputComplete(t, 1 << idx);
  }

  /** Bit i set when consumable input i is still held by someone else: {@link privatize} copies it. */
  sharedConsumed(t: Task): number {
    const mask = this.tt.consumeMask;
    let shared = 0;
    for (let i = 0; i < t.args.length; i++) if ((mask & (1 << i)) !== 0 && this.shared(t.args[i])) shared |= 1 << i;
    return shared;
  }

  /** Another task holds `v`, or queued device work still reads a buffer inside it. */
  private shared(v: unknown): boolean {
    return holderCount(v) > 1 || this.rt.device?.readByQueuedWork(v) === true;
  }

  /**
   * A device task does not need its inputs on the host, except the consumable ones it must copy
   * because another task still holds them: the copy is made from the host data.
   */
  sharedToHost(dev: DeviceChecks, t: Task): PromiseLike<void> | undefined {
    const shared = this.sharedConsumed(t);
    return shared === 0 ? undefined : dev.toHost(t.args.filter((_, i) => (shared & (1 << i)) !== 0), 0);
  }

  /** Gives consumable inputs that others still hold a private copy before the body runs. */
  privatize(t: Task): void {
    const mask = this.tt.consumeMask;
    const args = t.args;
    for (let i = 0; i < args.length; i++) {
      if ((mask & (1 << i)) === 0) continue;
      const v = args[i];
      if (this.shared(v)) {
        release(v);
        const c = this.copyInput(v, i, t.key);
        retain(c);
        args[i] = c;
      }
    }
  }

  /** A private copy of input `i`'s value `v`; one that cannot be made is named as such, not as the body's error. */
  private copyInput(v: unknown, i: number, key: unknown): unknown {
    try {
      return copyValue(v);
    } catch (e) {
      if (isTtgError(e)) throw e;
      throw Errors.invalidArgument(`a private copy of consumed input ${i}`, `could not be made before the body ran (${causeText(e)}); register a copier for its class (ttg.register_copier)`, {
        tt: this.tt.name, terminal: i, key, rank: this.rt.rank, cause: e,
      });
    }
  }

  /** The task finished (or was dropped): release what it held. */
  taskDone(t: Task): void {
    if (this.rt.trackRefs) for (const v of t.args) release(v);
    for (let g = 0; g < t.gate; g++) this.tt.gates[g]!.c.done();
  }

  /** A constraint let `t` through; try the next one, then queue it. */
  admitted(t: Task): void {
    t.gate++;
    this.ready(t);
  }

  /** Pending tasks, for fence reports. */
  pendingTasks(): IterableIterator<Task> {
    return this.pending.values();
  }

  /** How many tasks miss inputs. */
  pendingCount(): number {
    return this.pending.size;
  }

  /** Drops pending tasks (after a failed run). */
  clearPending(): void {
    for (const t of this.pending.values()) if (this.rt.trackRefs) for (const v of t.args) release(v);
    this.pending.clear();
  }

  private pendingTask(key: unknown, idx: number): Task {
    let t: Task | undefined;
    try {
      t = this.pending.get(key);
      if (t !== undefined) return t;
      if (typeof key === 'number' && key !== key) throw new KeyShapeError('NaN is not a valid key (it is not equal to itself)');
      const n = this.inputs.length;
      t = new TaskInstance(this.tt, key, new Array<unknown>(n));
      this.pending.add(key, t);
    } catch (e) {
      if (e instanceof KeyShapeError) throw Errors.badKey(this.tt.name, key, e.message, this.rt.rank, idx);
      throw e;
    }
    if (this.streamTemplate !== undefined) {
      t.streams = this.streamTemplate.slice();
      if (this.sizedByKey !== undefined) {
        try {
          this.sizeStreams(t, key);
        } catch (e) {
          this.pending.delete(key);
          throw e;
        }
      }
    }
    if (!this.live) {
      this.live = true;
      this.rt.live.add(this);
    }
    return t;
  }

  /** Stream sizes that depend on the key; a stream of 0 values is complete from the start. */
  private sizeStreams(t: Task, key: unknown): void {
    for (const term of this.sizedByKey!) {
      const n = term.countOf!(key);
      if (!Number.isInteger(n) || n < 0) {
        throw Errors.invalidArgument('set_input_reducer count(key)', `must give a non-negative integer, got ${String(n)}`, { tt: this.tt.name, terminal: term.index, key, rank: this.rt.rank });
      }
      t.streams![2 * term.index + 1] = n;
      // Complete already; the task runs here only when every input is such a stream (it was made
      // by a finalize or a size of one of them; a value for one of them is then too many).
      if (n === 0) this.inputComplete(t, 1 << term.index);
    }
  }

  private inputComplete(t: Task, bit: number): void {
    t.got |= bit;
    if (--t.missing === 0) {
      this.pending.delete(t.key);
      this.ready(t);
    }
  }

  /**
   * Passes `t` through the TT's constraints and queues it. A mapper or priomap that throws (or
   * gives no number) fails `t` like its body would: this runs from sends, and from a constraint
   * that opens when another task ends, where no caller could take the error.
   */
  private ready(t: Task): void {
    const gates = this.tt.gates;
    try {
      while (t.gate < gates.length) {
        const g = gates[t.gate]!;
        if (!g.c.admit(t, g.map(t.key))) return;
        t.gate++;
      }
      if (this.tt.priomap !== undefined) {
        const p = this.tt.priomap(t.key);
        if (typeof p !== 'number' || Number.isNaN(p)) {
          throw Errors.invalidArgument('priomap', `must return a number, got ${String(p)}`, { tt: this.tt.name, key: t.key, rank: this.rt.rank });
        }
        t.prio = p;
      }
    } catch (e) {
      this.rt.scheduler.reject(t, e);
      return;
    }
    this.rt.scheduler.enqueue(t);
  }

  private validKey(key: unknown, idx: number | undefined): void {
    if (typeof key === 'number' ? key === key : typeof key === 'string') return;
    try {
      checkKey(key);
    } catch (e) {
      throw Errors.badKey(this.tt.name, key, causeText(e), this.rt.rank, idx);
    }
  }
}
