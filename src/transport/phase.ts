/**
 * Phases between fences. All ranks leave a fence on the same termination wave, but each rank's JS
 * learns it in its own time: a rank that has already left fence N may start the next phase and
 * send messages to one that is still finishing fence N (collecting its report). Such a message
 * must not be seen by that fence: it would be reported as a task missing inputs.
 *
 * A rank's phase is the number of fences it has ended. A message is sent in the sender's phase and
 * can be at most one phase ahead of its receiver (no rank can end fence N+1 before every rank has
 * entered it), so one bit, the phase's parity, tells the two apart. The bit is bit 6 of a header's
 * second byte: the kind element of a msgpack header (a positive fixint, wire.ts) or the typed-array
 * code of the fixed input header (input-header.ts); neither ever sets it. A message whose bit
 * differs from the receiver's is held until the receiver's fence ends, then delivered in arrival
 * order.
 */

/** The phase bit in a header's second byte. */
export const PHASE_BIT = 0x40;

/** Marks `header` (an encoded message, not yet sent) as sent in the phase whose bit is `phase`. */
export function stampPhase(header: Uint8Array, phase: number): void {
  header[1] = header[1]! | phase;
}

/** Takes the phase bit out of a received `header`, leaving it as it was encoded; returns the bit. */
export function takePhase(header: Uint8Array): number {
  const phase = header[1]! & PHASE_BIT;
  header[1] = header[1]! ^ phase;
  return phase;
}

/** This rank's phase, and the messages of the next one that arrived before its fence ended. */
export class PhaseGate {
  /** Bit of this rank's phase: {@link PHASE_BIT} or 0. */
  bit = 0;
  /** Messages held so far (for tests). */
  deferred = 0;
  private held: Array<() => void> = [];

  /** Keeps `deliver` (a message of the next phase) until {@link next}. */
  hold(deliver: () => void): void {
    this.deferred++;
    this.held.push(deliver);
  }

  /** The fence ended: enters the next phase and returns what was held for it, in arrival order. */
  next(): Array<() => void> {
    this.bit ^= PHASE_BIT;
    const held = this.held;
    this.held = [];
    return held;
  }
}
