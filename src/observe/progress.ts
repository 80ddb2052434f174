/**
 * A fence's progress line: on rank 0, when the fence has lasted TTG_PROGRESS seconds (default 2)
 * and a person is watching (stderr is a terminal; under mpirun, which pipes a rank's stderr and
 * gives its stdout a terminal of its own whatever mpirun's output is, when mpirun's stderr is one),
 * one line on stderr, rewritten twice a second and erased when the fence ends:
 *
 *   ttg: fence 12 s: 1,234,567 tasks done on 4 ranks, 98,765/s, 12 running here
 *
 * The world's count comes with the fence's termination waves (which carry each rank's count of
 * finished tasks); between waves this rank's own tasks are added as they finish.
 */
import { readlinkSync } from 'node:fs';

import { progressDelayS } from '../base/settings.js';
import type { FenceWatch } from '../ttg/phase/fence-watch.js';
import type { Runtime } from '../ttg/runtime/runtime.js';

const REDRAW_MS = 500;
const group = (n: number): string => Math.round(n).toLocaleString('en-US');

/** Whether a person watches this process's stderr. */
function watched(): boolean {
  if (process.stderr.isTTY === true) return true;
  if (process.env['OMPI_COMM_WORLD_SIZE'] === undefined) return false;
  // rank 0 is mpirun's child on mpirun's node: where mpirun's stderr goes, ours is forwarded
  try {
    return /^\/dev\/(pts\/|tty)/.test(readlinkSync(`/proc/${process.ppid}/fd/2`));
  } catch {
    return false;
  }
}

/** The progress line of one fence of `rt`'s world, or undefined when there is none to show. */
export function fenceProgress(rt: Runtime): FenceProgress | undefined {
  if (rt.rank !== 0) return undefined;
  const delay = progressDelayS();
  if (delay === 0 || !watched()) return undefined;
  return new FenceProgress(rt, delay * 1000, (s) => process.stderr.write(s));
}

/** One fence's line. */
export class FenceProgress implements FenceWatch {
  private readonly t0 = performance.now();
  private timer: ReturnType<typeof setInterval> | undefined;
  /** The world's finished tasks at the last wave, and this rank's then. */
  private worldDone = 0;
  private localAtWave = 0;
  private lastDraw: { t: number; done: number } | undefined;
  private shown = false;

  constructor(private readonly rt: Runtime, private readonly delayMs: number, private readonly write: (s: string) => void) {
    this.localAtWave = rt.scheduler.completed;
    this.worldDone = this.localAtWave;
  }

  /** Starts redrawing; {@link stop} ends it. */
  start(): void {
    this.timer = setInterval(() => this.draw(), REDRAW_MS);
    this.timer.unref();
  }

  /** A wave summed the world's finished tasks. */
  seen(worldDone: number): void {
    this.worldDone = worldDone;
    this.localAtWave = this.rt.scheduler.completed;
  }

  /** Erases the line. */
  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    if (this.shown) this.write('\r\x1b[K');
  }

  private draw(): void {
    const now = performance.now();
    if (now - this.t0 < this.delayMs) return;
    const done = this.worldDone + this.rt.scheduler.completed - this.localAtWave;
    const rate = this.lastDraw === undefined ? undefined : ((done - this.lastDraw.done) * 1000) / (now - this.lastDraw.t);
    this.lastDraw = { t: now, done };
    const running = this.rt.scheduler.pending;
    const ranks = this.rt.size === 1 ? '' : ` on ${this.rt.size} ranks`;
    this.write(`\r\x1b[Kttg: fence ${Math.floor((now - this.t0) / 1000)} s: ${group(done)} tasks done${ranks}${rate === undefined ? '' : `, ${group(rate)}/s`}, ${running} running here`);
    this.shown = true;
  }
}
