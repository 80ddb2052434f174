/**
 * The core's side of the transport seam: a transport hands every decoded message for this rank's
 * tasks to {@link Dispatch.accept}, and never looks up TTs itself.
 */
import { Errors, type TtgError } from '../../base/errors.js';
import type { DeviceChecks, Task, TTBase } from '../common/model.js';
import type { TransportHost } from '../common/transport.js';
import { Wire, type WireMessage } from '../common/wire.js';
import type { Scheduler } from '../run/scheduler.js';

/** What a dispatch needs of its world's runtime (runtime.ts's Runtime, which makes it). */
export interface DispatchRuntime {
  /** This process's rank in the world. */
  readonly rank: number;
  /** The scheduler that runs what the messages make ready. */
  readonly scheduler: Scheduler;
  /** The task whose body made the latest send. */
  sending: Task | undefined;
  /** The device layer, if any. */
  readonly device: DeviceChecks | undefined;
  /** The TT with `id`, if it is still alive on this rank. */
  ttById(id: number): TTBase | undefined;
  /** Whether a TT with `id` may still be made on this rank. */
  ttIsFuture(id: number): boolean;
  /** Runs `fn` once TT `id` has been made executable on this rank. */
  whenExecutable(id: number, fn: () => void): void;
}

/** Delivers messages to the TTs of one world's runtime. */
export class Dispatch implements TransportHost {
  constructor(private readonly rt: DispatchRuntime) {}

  batch(fn: () => void): void {
    this.rt.scheduler.deliver(fn);
  }

  afterEachTask(fn: ((ran: object, next: object | undefined) => void) | undefined): void {
    this.rt.scheduler.afterTask = fn;
  }

  fail(err: TtgError, fromRemote = false): void {
    this.rt.scheduler.recordError(err, fromRemote);
  }

  get failed(): boolean {
    return this.rt.scheduler.error !== undefined;
  }

  sender(): unknown {
    return this.rt.sending;
  }

  withSender<R>(sender: unknown, f: () => R): R {
    const rt = this.rt;
    const prev = rt.sending;
    rt.sending = sender as Task | undefined;
    try {
      return f();
    } finally {
      rt.sending = prev;
    }
  }

  describeSender(): { tt: string; key: unknown } | undefined {
    const t = this.rt.sending;
    return t === undefined ? undefined : { tt: t.tt.name, key: t.key };
  }

  toHost(value: unknown): PromiseLike<void> | undefined {
    return this.rt.device?.toHost([value], 0);
  }

  names(ttId: number, terminal: number | undefined): { tt: string | undefined; edge: string | undefined } {
    const tt = this.rt.ttById(ttId);
    return { tt: tt?.name, edge: terminal === undefined ? undefined : tt?.inputs[terminal]?.edgeName };
  }

  /**
   * Delivers a message of kind Input, StreamSize, Finalize or Invoke. One that names a TT this
   * rank has not made executable yet waits for it; errors of a later delivery fail the run.
   */
  accept(msg: WireMessage): void {
    // the commonest message, one value for one TT made executable here: one lookup
    if (msg[0] === Wire.Input && msg[1].length === 1) {
      const [ttId, terminal, keys] = msg[1][0]!;
      const tt = this.rt.ttById(ttId);
      if (tt !== undefined && tt.executable) {
        for (const key of keys) tt.assembly.receive(terminal, key, msg[2]);
        return;
      }
    }
    const waitFor = this.notReady(msg);
    if (waitFor >= 0) {
      this.rt.whenExecutable(waitFor, () => {
        try {
          this.accept(msg);
        } catch (e) {
          this.fail(Errors.handling(e, this.rt.rank));
        }
      });
      return;
    }
    switch (msg[0]) {
      case Wire.Input: {
        const value = msg[2];
        for (const [ttId, terminal, keys] of msg[1]) {
          const tt = this.lookup(ttId);
          for (const key of keys) tt.assembly.receive(terminal, key, value);
        }
        return;
      }
      case Wire.StreamSize:
        this.lookup(msg[1]).setStreamSize(msg[2], msg[3], msg[4]);
        return;
      case Wire.Finalize:
        this.lookup(msg[1]).finalizeStream(msg[2], msg[3]);
        return;
      case Wire.Invoke:
        this.lookup(msg[1]).assembly.invokeLocal(msg[2]);
        return;
      default:
        throw Errors.transport(`unknown message kind ${String(msg[0])}`, this.rt.rank);
    }
  }

  acceptValue(ttId: number, terminal: number, key: unknown, value: unknown): void {
    const tt = this.rt.ttById(ttId);
    if (tt !== undefined && tt.executable) tt.assembly.receive(terminal, key, value);
    else this.accept([Wire.Input, [[ttId, terminal, [key]]], value]);
  }

  /** The id of a TT named by `msg` that is not executable here yet, or -1. */
  private notReady(msg: WireMessage): number {
    if (msg[0] === Wire.Input) {
      for (const [ttId] of msg[1]) if (!this.isExecutable(ttId)) return ttId;
      return -1;
    }
    return this.isExecutable(msg[1] as number) ? -1 : (msg[1] as number);
  }

  private isExecutable(ttId: number): boolean {
    const tt = this.rt.ttById(ttId);
    return tt === undefined ? !this.rt.ttIsFuture(ttId) : tt.executable;
  }

  private lookup(ttId: number): TTBase {
    const tt = this.rt.ttById(ttId);
    if (tt === undefined) {
      throw Errors.transport(`a message names TT #${ttId}, which does not exist on this rank (build the same graphs in the same order on every rank)`, this.rt.rank);
    }
    return tt;
  }
}
