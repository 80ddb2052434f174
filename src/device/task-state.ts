/**
 * The device state a task carries in `task.deviceState` while it uses a device (or waits for a
 * place to use one): what steps.ts, kernel-wait.ts and task-end.ts share about it.
 */
import type { TtgError } from '../base/errors.js';
import type { ReadyStep } from '../ttg/common/device-port.js';
import type { AnyBuffer } from './buffer.js';
import type { Acquirer } from './memory.js';
import type { InputResult } from './steps.js';
import type { Stream } from './streams.js';

/**
 * Device state of one running task, from its first `input()` until the task ends: as in C++ TTG,
 * a wait does not end the task's use of the device, so a body may select once and then enqueue
 * and wait any number of times. It is also the ready step (device-port.ts) of its `input()` steps when
 * the buffers are usable at once (the host backend): the step resumes with the stream's
 * `{ stream, device }`, with no object made per step. The scheduler resumes the body with this
 * state current after every step, whatever it was (see `nextInStepContext` in steps.ts).
 */
export class TaskState implements ReadyStep, Acquirer {
  readonly step = 'ready';
  /** What its `input()` steps resume the body with. */
  readonly value: InputResult;
  /** Pins held and stream load counted (from the first input() until the task ends). */
  active = false;
  /** The stream's op count when the task last waited. */
  waitedOps = -1;
  /** The stream's op count after the task's latest enqueue: above `waitedOps`, it has work queued that no wait covered. */
  lastOp = -1;
  /** Given up by a hang report. */
  abandoned = false;
  /** Something the task enqueued failed where it ran (E_DEVICE): its next wait and its end fail with it. */
  failure: TtgError | undefined = undefined;
  /** A wait has thrown `failure` into the body. */
  failureSeen = false;
  /** Settles once every acquisition of the task has (the body may have stopped waiting for them): the task ends after it. */
  acquiring: Promise<unknown> | undefined = undefined;
  /** Buffers it sent while its queued work may still read them: marked until its next wait has run (queued-reads.ts). */
  marked: AnyBuffer[] | undefined = undefined;
  /** Copies home of a wait whose marker could not be enqueued: unpinned when the task ends (after its marker). */
  copiesHome: AnyBuffer[] | undefined = undefined;
  /**
   * Host memory that queued ops write when they run (the hash slots of those copies home, the
   * program's stamp arrays): referenced until the task ends, after its marker, so none is collected
   * under a native write.
   */
  written: Array<ArrayBufferView | undefined> | undefined = undefined;
  /** Buffers a wait copied home while their device copy stays valid, with the host data's hash then: a host write is noticed. */
  hostWatch: Map<AnyBuffer, bigint> | undefined = undefined;
  /** Judgements of large watched buffers running on workers: the task ends after them (host-writes.ts). */
  hostChecks: Array<Promise<void>> | undefined = undefined;
  /**
   * Buffers listed in the task's input() steps: pinned on the device on backends with their own
   * memory; on the host backend only recorded, so that a kernel on an unlisted buffer fails there too.
   */
  readonly listed: AnyBuffer[] = [];
  /** Buffers that kernels of this task write and that no wait has covered yet: not to be sent. */
  readonly unwaited: AnyBuffer[] = [];
  /** When its first input() placed it (the start of its time in the place's statistics). */
  placedAt: number | undefined = undefined;

  constructor(readonly stream: Stream) {
    this.value = stream.inputResult;
  }

  /** Callers that treat it as a promise (async generators) get the value a turn later. */
  then<A = unknown, B = never>(onF?: ((v: unknown) => A | PromiseLike<A>) | null, onR?: ((e: unknown) => B | PromiseLike<B>) | null): PromiseLike<A | B> {
    return Promise.resolve(this.value).then(onF, onR);
  }
}

/** The device state of a task waiting for a place (every candidate place full). */
export class Placing {
  /** The body ended meanwhile (an async body that stopped waiting): it is not placed. */
  ended = false;
}
