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

/** Pause in microseconds before the next wave of a fence that started `elapsedMs` ago. */
export function wavePauseUs(elapsedMs: number): number {
  return Math.min(WAVE_PAUSE_MAX_US, Math.floor((elapsedMs * 1000) / WAVE_PAUSE_SHARE));
}
