/**
 * The boundary between the core and the network, owned by the core: a transport implements
 * {@link Transport}, and talks back to its world's core only through {@link TransportHost}.
 */

import type { TtgError } from '../../base/errors.js';
import type { CallSignature } from './agreement.js';
import type { Target, WireMessage } from './wire.js';

/** Element-wise reductions of world collectives. */
export type ReduceOp = 'sum' | 'min' | 'max' | 'prod';

/** What a transport may ask of its world's core. */
export interface TransportHost {
  /** Runs `fn` (handing over a batch of messages), then at once the tasks it made ready. */
  batch(fn: () => void): void;
  /**
   * Has `fn` called after each task this rank runs, with opaque tokens for the kind of that task
   * and of the next ready one (undefined: none is ready); `fn` undefined: no longer.
   */
  afterEachTask(fn: ((ran: object, next: object | undefined) => void) | undefined): void;
  /**
   * A decoded Input, StreamSize, Finalize or Invoke message for this rank's tasks. Throws a
   * TtgError for a bad one; one for a TT not executable here yet waits for it.
   */
  accept(msg: WireMessage): void;
  /** `accept([Input, [[ttId, terminal, [key]]], value])`, without making the message. */
  acceptValue(ttId: number, terminal: number, key: unknown, value: unknown): void;
  /** Fails the world's run (`fromRemote`: announced by another rank, so not announced again). */
  fail(err: TtgError, fromRemote?: boolean): void;
  /** True once the run has failed on this rank. */
  readonly failed: boolean;
  /** An opaque token for the sender of the send in progress (see {@link withSender}). */
  sender(): unknown;
  /** Runs `f` (a deferred send) as if `sender` were making it, so its errors name that task. */
  withSender<R>(sender: unknown, f: () => R): R;
  /** TT and key of the send in progress, for errors. */
  describeSender(): { tt: string; key: unknown } | undefined;
  /** Names of TT `ttId` and of the edge into its input `terminal`, as far as this rank knows them. */
  names(ttId: number, terminal: number | undefined): { tt: string | undefined; edge: string | undefined };
  /** Makes the buffers in `value` valid on the host before it is encoded (device layer). */
  toHost(value: unknown): PromiseLike<void> | undefined;
}

/** What a fence asks of its own rank while the transport decides quiescence. */
export interface LocalWork {
  /** Resolves when this rank has nothing queued or running (called again after new work arrived). */
  settle(): Promise<void>;
  /**
   * How many reducing-input streams that end at the fence are open on this rank, per TT that has
   * such an input (the same TTs, in the same order, on every rank).
   */
  openStreams(): number[];
  /**
   * Given the sums of {@link openStreams} over the world's ranks, ends the open streams of the TTs
   * that no other TT with open ones feeds (their tasks become ready once their other inputs are there).
   */
  closeStreams(open: readonly number[]): void;
  /** How many tasks this rank has finished so far. */
  done(): number;
  /** A termination wave summed the world's finished tasks (for the progress line). */
  seen(worldDone: number): void;
  /** Tasks missing inputs, tasks held by constraints and TTs with parked messages on this rank (what a fence reports). */
  waiting(): number;
  /** Whether this rank's fence is strict (rejects when anything waits, on any rank). */
  readonly strict: boolean;
}

/** What the ranks of a world agree on when it has gone quiet. */
export interface Quiet {
  /**
   * The phase's error, the same on every rank: the first error of the least rank that raised
   * one, the others in its `errors`; undefined when none was raised (or in a world of one rank,
   * where the scheduler's own first error is the one).
   */
  error: TtgError | undefined;
  /** What waits on each rank, when some rank's fence is strict and something waits somewhere. */
  waitingByRank: number[] | undefined;
}

/** Moves work between ranks and decides global quiescence. */
export interface Transport {
  readonly rank: number;
  readonly size: number;
  /** Id of the world it carries: 0 for the default world, the same on every rank of a split one. */
  readonly worldId: number;
  /** Human-readable name for diagnostics, e.g. `local` or `mpi`. */
  readonly kind: string;
  /** Connects the transport to its world's core; called once, before any other call. */
  attach(host: TransportHost): void;
  /**
   * Ships `value` for the given targets to rank `dest`, as one message. `transfer`: the value (a
   * consumed typed array) leaves its task for good, so its memory may be transferred.
   */
  sendInput(dest: number, targets: Target[], value: unknown, transfer: boolean): void;
  /** `sendInput(dest, [[ttId, terminal, [key]]], value, transfer)`: one value for one task, the commonest send. */
  sendValue(dest: number, ttId: number, terminal: number, key: unknown, value: unknown, transfer: boolean): void;
  /**
   * Encodes and decodes a delivery that stays on this rank as if it crossed ranks
   * (TTG_CHECK_SERIALIZE); throws E_SERIALIZE for what could not travel.
   */
  rehearse(target: Target, value: unknown): void;
  /** Ships a control message (stream size, finalize, invoke) to rank `dest`. */
  sendControl(dest: number, msg: WireMessage): void;
  /** Tells every other rank that this rank's run failed with `err`. */
  announceFailure(err: TtgError): void;
  /** Work may be coming: keep the process alive while waiting for messages. */
  hold(): void;
  /**
   * Resolves once every rank is idle, no message is in flight and no stream that ends at the
   * fence is open anywhere: when the world is quiet but such streams are open, every rank closes
   * its own and the waves go on (their tasks may send more).
   */
  quiesce(local: LocalWork): Promise<Quiet>;
  /**
   * The fence has ended on this rank, whichever way (its report is taken, or it rejected): enter
   * the next phase and deliver the messages of that phase which other ranks, out of the fence
   * already, sent while this one was still in it.
   */
  endFence(): void;
  /**
   * Collective over this world: the transport of the sub-world of the ranks that gave `color`,
   * ordered by `key` (then rank); undefined for a negative color.
   */
  split(color: number, key: number): Promise<Transport | undefined>;
  /** Releases the transport (e.g. `MPI_Finalize`). Idempotent. */
  finalize(): Promise<void>;
  /**
   * Collective over this world: agrees that every rank made the call `sig` and sums `payload` (at
   * most agreement.ts's PAYLOAD_LENGTH values) over the ranks; rejects with `E_COLLECTIVE` naming
   * each rank's call, on every rank, when they differ.
   */
  agree(sig: CallSignature, payload?: ArrayLike<number>): Promise<Float64Array>;
  /**
   * Collective over this world: `values` reduced element-wise with `op` over its ranks. Every
   * rank passes the same op and length (after an {@link agree} that says so).
   */
  reduce(values: Float64Array, op: ReduceOp): Promise<Float64Array>;
  /** Collective over this world: rank `root`'s `bytes` into every rank's `bytes` (all of one length). */
  bcast(bytes: Uint8Array, root: number): Promise<void>;
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
   * True while payload is being received into this process: MPI reports no partial progress of a
   * large receive, so the hang watchdog counts it as work under way.
   */
  payloadArriving(): boolean;
  /**
   * After a hang: the fence gave up. Under MPI a collective of the abandoned fence may stay
   * pending, so the world cannot fence again; later fences reject and finalize ends the job.
   */
  abandon(err: TtgError): void;
  /** Gathers every rank's trace events at rank 0 (which gets them in rank order; others get undefined). */
  gatherTrace(chunk: string): Promise<string[] | undefined>;
  /**
   * Sends this rank's live summary (JSON text) to rank 0, outside termination detection: rank 0's
   * {@link onSummary} gets it (its own too).
   */
  sendSummary(json: string): void;
  /** On rank 0: a rank's summary arrived. */
  onSummary: ((rank: number, json: string) => void) | undefined;
  /** Messages and bytes sent to each rank of the job so far (transports between ranks). */
  readonly traffic?: Traffic;
}

/** Messages and bytes a rank sent, by destination rank. */
export interface Traffic {
  readonly messages: Float64Array;
  readonly bytes: Float64Array;
}
