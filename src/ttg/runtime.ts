/**
 * Process-wide runtime state: the world this process belongs to and switches that change what the
 * hot path does. One object so that every module reads the same fields without import cycles.
 */
import type { Task } from './task.js';
import type { Transport } from './transport.js';

/** Mutable process-wide state; set by `initialize`, read everywhere. */
export interface RuntimeState {
  initialized: boolean;
  finalized: boolean;
  rank: number;
  size: number;
  transport: Transport | undefined;
  /** Reference counts of values are kept only once some TT consumes inputs or reduces. */
  trackRefs: boolean;
  /** Deliveries that stay on this rank are encoded and decoded too (TTG_CHECK_SERIALIZE). */
  checkTravel: boolean;
  /**
   * The typed array that the send in progress moves (a consumed input with no other holder, to a
   * single sink): if it goes to another rank, the transport may transfer its memory.
   */
  moving: ArrayBufferView | undefined;
  /**
   * The task whose body made the latest send, so that a send that cannot be serialized names its
   * sender. Set by each send of a task, not around the body (an async body sends after its call
   * has returned), and cleared by the TT calls a program makes outside any task (`invoke`...).
   */
  sending: Task | undefined;
}

/** The one runtime state of this process. */
export const rt: RuntimeState = {
  initialized: false,
  finalized: false,
  rank: 0,
  size: 1,
  transport: undefined,
  trackRefs: false,
  checkTravel: false,
  moving: undefined,
  sending: undefined,
};
