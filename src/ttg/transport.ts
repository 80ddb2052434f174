/**
 * The boundary between the core and the network. The core knows only this interface; the local
 * transport (one rank) lives here, the MPI transport in its own file.
 */

import type { TtgError } from './errors.js';
import type { Target, WireMessage } from './wire.js';

/** Moves work between ranks and decides global quiescence. */
export interface Transport {
  readonly rank: number;
  readonly size: number;
  /** Human-readable name for diagnostics, e.g. `local` or `mpi`. */
  readonly kind: string;
  /** Ships `value` for the given targets to rank `dest`, as one message. */
  sendInput(dest: number, targets: Target[], value: unknown): void;
  /** Ships a control message (stream size, finalize, invoke) to rank `dest`. */
  sendControl(dest: number, msg: WireMessage): void;
  /** Tells every other rank that this rank's run failed with `err`. */
  announceFailure(err: TtgError): void;
  /** Work may be coming: keep the process alive while waiting for messages. */
  hold(): void;
  /**
   * Resolves once every rank is idle and no message is in flight. `settleLocal()` resolves when
   * this rank has nothing queued or running (it may be called again after new work arrived).
   */
  quiesce(settleLocal: () => Promise<void>): Promise<void>;
  /**
   * The fence has ended on this rank, whichever way (its report is taken, or it rejected): enter
   * the next phase and deliver the messages of that phase which other ranks, out of the fence
   * already, sent while this one was still in it.
   */
  endFence(): void;
  /** Releases the transport (e.g. `MPI_Finalize`). Idempotent. */
  finalize(): Promise<void>;
  /**
   * Hang watchdog: tells the other ranks whether this rank's fence number `fence` has made no
   * progress for the timeout (`stalled`) or is moving again.
   */
  vote(fence: number, stalled: boolean): void;
  /** True when every other rank voted that its fence number `fence` stalled. */
  othersStalled(fence: number): boolean;
  /** Called when a vote or a hang announcement arrives from another rank. */
  onVote: (() => void) | undefined;
  /** A hang announced by another rank and not yet reported here. */
  hangNotice: TtgError | undefined;
  /** Messages sent plus received by this rank (progress the hang watchdog can see). */
  progress(): number;
  /**
   * After a hang: the fence gave up. Under MPI a collective of the abandoned fence may stay
   * pending, so the world cannot fence again; later fences reject and finalize ends the job.
   */
  abandon(err: TtgError): void;
  /** Gathers every rank's trace events at rank 0 (which gets them in rank order; others get undefined). */
  gatherTrace(chunk: string): Promise<string[] | undefined>;
}

/** A world of one rank: quiescence is local idleness. */
export class LocalTransport implements Transport {
  readonly rank = 0;
  readonly size = 1;
  readonly kind = 'local';

  sendInput(): void {
    throw new Error('the local transport has no other rank to send to');
  }

  sendControl(): void {
    throw new Error('the local transport has no other rank to send to');
  }

  announceFailure(): void {}

  hold(): void {}

  quiesce(settleLocal: () => Promise<void>): Promise<void> {
    return settleLocal();
  }

  endFence(): void {}

  finalize(): Promise<void> {
    return Promise.resolve();
  }

  onVote: (() => void) | undefined = undefined;
  hangNotice: TtgError | undefined = undefined;

  vote(): void {}

  othersStalled(): boolean {
    return true;
  }

  progress(): number {
    return 0;
  }

  abandon(): void {}

  gatherTrace(chunk: string): Promise<string[] | undefined> {
    return Promise.resolve([chunk]);
  }
}
