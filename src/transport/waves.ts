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
  /** This rank's [messages sent, messages received, 1 if it failed else 0, streams open until the fence, tasks finished]. */
  counts(): [number, number, number, number, number];
  /** The world's finished tasks, as a wave summed them. */
  seen(worldDone: number): void;
  /** Ends the streams that end at the fence which may end now (agreeing with the other ranks which). */
  closeStreams(): Promise<void>;
  /**
   * Sums `values` over the world's ranks, starting after `pauseUs`, or sooner once this rank has
   * had no traffic for `quietUs`.
   */
  allreduce(values: Float64Array, pauseUs: number, quietUs: number): Promise<Float64Array>;
  /** True once the fence has given up (a hang): the waves stop. */
  stopped(): boolean;
}

/**
 * Sums of sent and received messages over all ranks, wave after wave, until a wave finds them
 * equal and unchanged since the wave before: then no message is in flight and none can be sent
 * (every rank had settled its local work). If streams that end at the fence are open then, each
 * rank ends its own and the waves go on. Resolves to the number of ranks that had failed by the
 * last wave, or undefined when the fence gave up first.
 */
export async function untilQuiet(w: WaveWorld): Promise<number | undefined> {
  let prevSent = -1;
  let prevRecv = -1;
  const start = performance.now();
  for (let wave = 0; ; wave++) {
    await w.settleLocal();
    if (w.stopped()) return undefined;
    const pause = wave === 0 ? 0 : wavePauseUs(performance.now() - start);
    const [s, r, f, open, done] = await w.allreduce(Float64Array.from(w.counts()), pause, WAVE_QUIET_US);
    if (w.stopped()) return undefined;
    w.seen(done!);
    if (s === r && s === prevSent && r === prevRecv) {
      if (open === 0 || f! > 0) return f!;
      // quiet but for streams that end at the fence: every rank saw the same sums, so all end theirs now, and the waves go on
      await w.closeStreams();
      prevSent = -1;
      prevRecv = -1;
      continue;
    }
    prevSent = s!;
    prevRecv = r!;
  }
}
