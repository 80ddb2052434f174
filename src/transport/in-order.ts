/**
 * Per-lane order: the actions of one lane (a sender's arrivals, or one destination's sends) run
 * in the order they were queued, each once it is ready. An action that must wait (a payload still
 * being received, a value still moving to the host) holds back every later action of its lane,
 * so a stream's end never overtakes its values and reused keys pair values in send order.
 */

/** An action queued in a lane. */
export interface Step {
  readonly lane: number;
  run: () => void;
  ready: boolean;
}

/** Lanes of actions run in queue order. */
export class InOrder {
  private readonly lanes = new Map<number, Step[]>();

  /** `onError`: what an action that throws while its lane drains is reported to (the others still run). */
  constructor(private readonly onError: (e: unknown) => void) {}

  /** Runs `run` now when nothing of `lane` waits (its errors reach the caller), else queues it. */
  now(lane: number, run: () => void): void {
    const q = this.lanes.get(lane);
    if (q === undefined) run();
    else q.push({ lane, run, ready: true });
  }

  /** Queues `run` in `lane` until {@link ready} says it may run. */
  wait(lane: number, run: () => void): Step {
    const step: Step = { lane, run, ready: false };
    const q = this.lanes.get(lane);
    if (q === undefined) this.lanes.set(lane, [step]);
    else q.push(step);
    return step;
  }

  /** `step` may run: runs it and what follows it in its lane, up to the next one that waits. */
  ready(step: Step): void {
    step.ready = true;
    const q = this.lanes.get(step.lane);
    if (q === undefined) return;
    while (q.length > 0 && q[0]!.ready) {
      const s = q.shift()!;
      try {
        s.run();
      } catch (e) {
        this.onError(e);
      }
    }
    if (q.length === 0) this.lanes.delete(step.lane);
  }

  /** Whether an action of `lane` waits. */
  busy(lane: number): boolean {
    return this.lanes.has(lane);
  }
}
