/** Pacing of the termination waves of a fence. */

/**
 * A wave that follows one which saw traffic starts after a pause of 1/WAVE_PAUSE_SHARE of the
 * time fenced so far (at most WAVE_PAUSE_MAX_US). Back-to-back waves during a long run wake every
 * rank's JS and comm threads for each one and cost a cross-rank hop ~2 us; the pause delays the
 * end of a fence by at most that share of its length. The comm thread times the pause: a
 * millisecond timer pending on the JS thread makes each of its wake-ups slower (~9 us measured on
 * a 2-vCPU VM).
 */
const WAVE_PAUSE_SHARE = 32;
const WAVE_PAUSE_MAX_US = 10_000;
/**
 * A paused wave starts early once its rank has seen no message for this long: the end of a run,
 * when nothing more will come, should not wait out a pause sized for the middle of one.
 */
const WAVE_QUIET_US = 200;

/** Pause in microseconds before the next wave of a fence that started `elapsedMs` ago. */
export function wavePauseUs(elapsedMs: number): number {
  return Math.min(WAVE_PAUSE_MAX_US, Math.floor((elapsedMs * 1000) / WAVE_PAUSE_SHARE));
}

/** What the termination waves of one fence need from their world. */
export interface WaveWorld {
  /** Settles this rank's local work (runs what is runnable) before each wave. */
  settleLocal(): Promise<void>;
  /** This rank's {@link WaveCounts}. */
  counts(): number[];
  /** The world's finished tasks, as a wave summed them. */
  seen(worldDone: number): void;
  /** Ends the streams that end at the fence which may end now (agreeing with the other ranks which). */
  closeStreams(): Promise<void>;
  /**
   * Sums `values` over the world's ranks, agreeing that every rank is in a fence (agreement.ts),
   * starting after `pauseUs`, or sooner once this rank has had no traffic for `quietUs`.
   */
  allreduce(values: number[], pauseUs: number, quietUs: number): Promise<Float64Array>;
  /** True once the fence has given up (a hang): the waves stop. */
  stopped(): boolean;
}

/** What each rank counts for a wave, by position. */
export const enum WaveCounts {
  /** Messages sent. */
  Sent = 0,
  /** Messages received and handled. */
  Received = 1,
  /** 1 if this rank raised an error in this phase (and announced it), else 0. */
  Raised = 2,
  /** Streams open until the fence. */
  Open = 3,
  /** Tasks finished so far. */
  Done = 4,
  /** What this rank's fence would report as waiting. */
  Waiting = 5,
  /** 1 if this rank's fence is strict. */
  Strict = 6,
}

/**
 * Sums of sent and received messages over all ranks, wave after wave, until a wave finds them
 * equal and unchanged since the wave before: then no message is in flight and none can be sent
 * (every rank had settled its local work). If streams that end at the fence are open then, each
 * rank ends its own and the waves go on. Resolves to the last wave's sums (indexed by
 * {@link WaveCounts}), or undefined when the fence gave up first.
 */
export async function untilQuiet(w: WaveWorld): Promise<Float64Array | undefined> {
  let prevSent = -1;
  let prevRecv = -1;
  const start = performance.now();
  for (let wave = 0; ; wave++) {
    await w.settleLocal();
    if (w.stopped()) return undefined;
    const pause = wave === 0 ? 0 : wavePauseUs(performance.now() - start);
    const sums = await w.allreduce(w.counts(), pause, WAVE_QUIET_US);
    if (w.stopped()) return undefined;
    const s = sums[WaveCounts.Sent]!;
    const r = sums[WaveCounts.Received]!;
    w.seen(sums[WaveCounts.Done]!);
    if (s === r && s === prevSent && r === prevRecv) {
      if (sums[WaveCounts.Open] === 0 || sums[WaveCounts.Raised]! > 0) return sums;
      // quiet but for streams that end at the fence: every rank saw the same sums, so all end theirs now, and the waves go on
      await w.closeStreams();
      prevSent = -1;
      prevRecv = -1;
      continue;
    }
    prevSent = s;
    prevRecv = r;
  }
}
