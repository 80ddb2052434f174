/**
 * What the JS thread does for the devices over timed factorizations (issue 57): bytes it hashes
 * and stages, native device allocations and copies placed in blocks the memory pool already held
 * (`reused`), ops enqueued, and its busy share (the event loop's utilization), summed over the
 * runs between {@link JsWork.begin} and {@link JsWork.end}.
 */
import * as ttg from 'ttg';

/** Counters of the JS thread's device work over timed runs. */
export class JsWork {
  private hashed = 0;
  private staged = 0;
  private allocations = 0;
  private reused = 0;
  private ops = 0;
  private activeMs = 0;
  private idleMs = 0;
  private runs = 0;
  private start: { stats: ReturnType<typeof ttg.device.stats>; elu: ReturnType<typeof performance.eventLoopUtilization> } | undefined;

  /** A timed run starts. */
  begin(): void {
    this.start = { stats: ttg.device.stats(), elu: performance.eventLoopUtilization() };
  }

  /** The timed run that {@link begin} started has ended. */
  end(): void {
    const s0 = this.start!.stats, s1 = ttg.device.stats(), elu = performance.eventLoopUtilization(this.start!.elu);
    this.hashed += s1.js_hashed_bytes - s0.js_hashed_bytes;
    this.staged += s1.js_staged_bytes - s0.js_staged_bytes;
    this.allocations += s1.allocations - s0.allocations;
    this.reused += s1.reused - s0.reused;
    this.ops += s1.ops - s0.ops;
    this.activeMs += elu.active;
    this.idleMs += elu.idle;
    this.runs++;
  }

  /** The mean per run, as the JSON fields of `potrf --json` and bench:potrf. */
  perRun(): Record<string, number | null> {
    const n = Math.max(1, this.runs);
    const round = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d;
    return {
      js_hashed_mib: round(this.hashed / n / 2 ** 20, 1), js_staged_mib: round(this.staged / n / 2 ** 20, 1),
      allocations: Math.round(this.allocations / n), reused: Math.round(this.reused / n), ops: Math.round(this.ops / n),
      js_busy: round(this.activeMs / Math.max(1e-9, this.activeMs + this.idleMs), 3),
      js_us_per_op: this.ops === 0 ? null : round((this.activeMs * 1000) / this.ops, 2),
    };
  }
}
