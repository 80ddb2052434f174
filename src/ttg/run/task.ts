/**
 * One task instance: a TT, a key and the inputs collected so far. The task object is also the
 * `out` argument of its body, so running a task allocates one object, not two.
 */
import { holderCount, release } from './cow.js';
import { Errors } from '../../base/errors.js';
import { routeBroadcast, type RouteTarget } from './router.js';
import { detached } from '../../serialize/typed-arrays.js';
import { someViewInside } from './values-inside.js';
import type { Task, TTBase } from '../common/model.js';

/** A task instance and, while its body runs, its outputs. */
export class TaskInstance implements Task {
  /** Queue order: higher first. */
  prio = 0;
  /** Arrival order among equal priorities (set by the ready queue). */
  seq = 0;
  /** Bit i set when input terminal i is complete. */
  got = 0;
  /** Input terminals still incomplete. */
  missing: number;
  /**
   * Stream state of reducing inputs (only for TTs with reducers): `[2i]` values received on input
   * i, `[2i+1]` values expected (-1 while unknown). One array, to keep a task to few allocations.
   */
  streams: number[] | undefined = undefined;
  /** Index of the next constraint of the TT this task has to pass. */
  gate = 0;
  /**
   * Links of the scheduler's list of suspended tasks (bodies awaiting a promise or a device step),
   * for hang reports; undefined while not suspended.
   */
  prevSuspended: Task | undefined = undefined;
  nextSuspended: Task | undefined = undefined;
  /** Given up by a fence that reported a hang: its late completion and its late sends are ignored. */
  abandoned = false;
  /** Device-task state, owned by the device layer (a field: cheaper than a WeakMap entry per task). */
  deviceState: unknown = undefined;
  /** The iterator of a `function*` body parked on a device step (see {@link resumeParked}). */
  parkedOn: Iterator<unknown> | undefined = undefined;
  /** What a task of a consuming TT sent and moved (one field, so that other tasks stay small). */
  moves: Moves | undefined = undefined;

  constructor(
    /** The template task this is an instance of. */
    readonly tt: TTBase,
    /** The task's key. */
    readonly key: unknown,
    /** Input values, one per input terminal. */
    readonly args: unknown[],
  ) {
    this.missing = args.length;
  }

  /** Resumes the body parked on a device step that has completed (the step protocol of device-port.ts). */
  resumeParked(error?: unknown): void {
    this.tt.rt.scheduler.resumeParked(this, error);
  }

  send(i: number, key: unknown, value: unknown): void {
    // a task given up by a hang report is over: what it sends late must not reach the next run
    if (this.abandoned) return;
    const sinks = this.sinksOf(i);
    const tt = this.tt;
    if (value !== undefined && tt.controlOutputs !== 0 && (tt.controlOutputs & (1 << i)) !== 0) this.refuseValueOnControl(i);
    if (this.deviceState !== undefined) tt.rt.device!.beforeSend(this, value);
    // left set after the send (a store is all a send pays); the TT calls a program makes clear it
    tt.rt.sending = this;
    if (tt.consumeMask !== 0 && this.movedOn(i, sinks, key, value)) return;
    for (let s = 0; s < sinks.length; s++) {
      const sink = sinks[s]!;
      sink.tt.deliver(sink.index, key, value, false);
    }
  }

  /** A value sent on output terminal `i`, whose edge is marked control. */
  private refuseValueOnControl(i: number): never {
    throw Errors.valueOnControl(`send on output terminal ${i}`, this.tt.outputs[i]!.name, { tt: this.tt.name, terminal: i, key: this.key, rank: this.tt.rt.rank });
  }

  /**
   * A send of a consuming TT's task: moves `value` to its one sink when it leaves this task for
   * good (true), else notes what a later move must respect. Apart from send, which stays small.
   */
  private movedOn(i: number, sinks: readonly { tt: TTBase; index: number }[], key: unknown, value: unknown): boolean {
    if (this.moves?.away === true) this.refuseDetachedInside(value, i);
    if (this.moveOut(value, i) && sinks.length === 1 && ArrayBuffer.isView(value) && !this.stillCarried(value)) {
      // It leaves this task for good and goes to one place: a remote send may transfer its memory.
      (this.moves ??= new Moves()).away = true;
      sinks[0]!.tt.deliver(sinks[0]!.index, key, value, true);
      return true;
    }
    if (typeof value === 'object' && value !== null && !ArrayBuffer.isView(value)) (this.moves ??= new Moves()).objects.push(value);
    return false;
  }

  sendk(i: number, key: unknown): void {
    this.send(i, key, undefined);
  }

  sendv(i: number, value: unknown): void {
    this.send(i, undefined, value);
  }

  broadcast(i: number | readonly number[], keys: Iterable<unknown> | readonly Iterable<unknown>[], value: unknown): void {
    if (this.abandoned) return;
    if (value !== undefined && this.tt.controlOutputs !== 0) for (const t of typeof i === 'number' ? [i] : i) if ((this.tt.controlOutputs & (1 << t)) !== 0) this.refuseValueOnControl(t);
    if (this.deviceState !== undefined) this.tt.rt.device!.beforeSend(this, value);
    if (this.tt.consumeMask !== 0) {
      const terminal = typeof i === 'number' ? i : i[0]!;
      if (this.moves?.away === true) this.refuseDetachedInside(value, terminal);
      this.moveOut(value, terminal);
      if (typeof value === 'object' && value !== null) (this.moves ??= new Moves()).objects.push(value);
    }
    const targets: RouteTarget[] = [];
    if (typeof i === 'number') {
      const list = Array.from(keys as Iterable<unknown>);
      for (const sink of this.sinksOf(i)) targets.push({ tt: sink.tt, terminal: sink.index, keys: list });
    } else {
      if (!Array.isArray(i) || !Array.isArray(keys) || i.length !== keys.length) {
        throw Errors.invalidArgument('broadcast(terminals, keyLists, value)', 'needs one key list per terminal', {
          tt: this.tt.name, key: this.key, rank: this.tt.rt.rank,
        });
      }
      for (let j = 0; j < i.length; j++) {
        const list = Array.from(keys[j] as Iterable<unknown>);
        for (const sink of this.sinksOf(i[j]!)) targets.push({ tt: sink.tt, terminal: sink.index, keys: list });
      }
    }
    this.tt.rt.sending = this;
    routeBroadcast(this.tt.rt, targets, value);
  }

  set_argstream_size(i: number, key: unknown, n: number): void {
    if (this.abandoned) return;
    this.tt.rt.sending = this;
    for (const sink of this.sinksOf(i)) sink.tt.setStreamSize(sink.index, key, n);
  }

  finalize_argstream(i: number, key: unknown): void {
    if (this.abandoned) return;
    this.tt.rt.sending = this;
    for (const sink of this.sinksOf(i)) sink.tt.finalizeStream(sink.index, key);
  }

  /**
   * Sending a consumed input onward moves it: this task gives up its hold now, not when its body
   * returns, so the receiver may mutate it without a copy even if this (async) body is still running.
   * True when `value` was such an input and nobody else holds it now. A typed array that an
   * earlier send transferred to another rank (detached) cannot be sent again.
   */
  private moveOut(value: unknown, terminal: number): boolean {
    if (typeof value !== 'object' || value === null) return false;
    const args = this.args;
    const mask = this.tt.consumeMask;
    for (let a = 0; a < args.length; a++) {
      if ((mask & (1 << a)) !== 0 && args[a] === value) {
        release(value);
        args[a] = undefined;
        return holderCount(value) === 0;
      }
    }
    if (ArrayBuffer.isView(value) && detached(value)) {
      throw Errors.moved(this.tt.name, terminal, this.key, this.tt.rt.rank);
    }
    return false;
  }

  /** Whether an object this task sent earlier carries `a`'s memory (then `a` is copied, not detached). */
  private stillCarried(a: ArrayBufferView): boolean {
    return this.moves !== undefined && someViewInside(this.moves.objects, (v) => v.buffer === a.buffer);
  }

  /** After a move: E_MOVED for a value that carries a detached array (its memory went to another rank). */
  private refuseDetachedInside(value: unknown, terminal: number): void {
    if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value)) return;
    if (someViewInside([value], detached)) throw Errors.moved(this.tt.name, terminal, this.key, this.tt.rt.rank);
  }

  private sinksOf(i: number) {
    const edge = this.tt.outputs[i];
    if (edge === undefined) throw Errors.outputRange(this.tt.name, i, this.tt.outputs.length, this.key, this.tt.rt.rank);
    return edge.sinks;
  }
}

/** Sends of one task of a consuming TT that a later move must respect. */
class Moves {
  /**
   * Objects the task sent (not arrays moved on their own): a later move of an array they carry
   * must copy it, not detach it under a receiver that still holds them.
   */
  readonly objects: unknown[] = [];
  /** The task moved an array to another rank: what it sends afterwards is checked for detached arrays (E_MOVED). */
  away = false;
}
