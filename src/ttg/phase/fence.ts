/**
 * `fence()` of one world: waits for global quiescence, then reports what is still waiting.
 */
import { Errors, TtgError } from '../../base/errors.js';
import { clearPending, collectReport, formatReport, waitingCount, waitingIn, type FenceReport } from './fence-report.js';
import type { Runtime } from '../runtime/runtime.js';
import type { LocalWork, Quiet, Transport } from '../common/transport.js';
import { callsDiffered } from '../common/agreement.js';
import { closeFenceStreams, openFenceStreams } from './fence-streams.js';
import { fenceWatch, type FenceWatch } from './fence-watch.js';
import { hangTimeout } from '../../base/settings.js';
import { Watchdog } from './watchdog.js';
import { calledInTask } from '../collective/in-task.js';
import { showFenceFailure } from '../runtime/shown-errors.js';

/** Options of `fence`. */
export interface FenceOptions {
  /** Reject with `E_INCOMPLETE` when tasks still miss inputs (default: report and resolve). */
  strict?: boolean;
  /** Do not print the report of incomplete tasks to stderr. */
  quiet?: boolean;
}

/**
 * Resolves when every rank of `rt`'s world is idle and no message is in flight; rejects with the
 * first error of the phase. Messages that ranks send after it wait on their receiver until its
 * fence has ended.
 */
export function fenceRuntime(rt: Runtime, options: FenceOptions): Promise<FenceReport> {
  // it would wait for the task that waits for it: refused at once rather than a hang report
  const inTask = calledInTask(rt, 'fence()');
  if (inTask !== undefined) return Promise.reject(inTask);
  return rt.lane.fence(() => fenceTurn(rt, options));
}

async function fenceTurn(rt: Runtime, options: FenceOptions): Promise<FenceReport> {
  rt.scheduler.execute();
  const transport = rt.transport!;
  let ended = true;
  try {
    return await closePhase(rt, transport, options);
  } catch (e) {
    showFenceFailure(rt, e);
    // ranks that called different collectives: this fence did not take place (on any rank), so
    // its phase goes on and its work is kept for the next fence
    if (callsDiffered(e)) {
      ended = false;
      rt.fences--;
    }
    throw e;
  } finally {
    if (ended) {
      rt.phasesEnded++;
      transport.endFence();
      rt.device?.phaseEnded();
    }
  }
}

/** The part of the fence that belongs to the phase it ends. */
async function closePhase(rt: Runtime, transport: Transport, options: FenceOptions): Promise<FenceReport> {
  const dog = new Watchdog(rt, ++rt.fences, hangTimeout());
  const progress = fenceWatch(rt);
  progress?.start();
  const tr = rt.scheduler.tracer;
  const t0 = tr?.now() ?? 0;
  rt.fenceSince = performance.now();
  let quiet: Quiet;
  try {
    quiet = await Promise.race([transport.quiesce(localWork(rt, progress, options)), dog.hung]);
  } catch (e) {
    if (callsDiffered(e)) throw e;
    // a hang (or a world that hung before): nothing of this run can complete any more; an error
    // recorded meanwhile (a failed send, a lost message) is likely why, so the hang carries it
    const recorded = rt.scheduler.takeError();
    clearPending(rt);
    throw recorded !== undefined && e instanceof TtgError && e.code === 'E_HANG' && e.cause === undefined ? withCause(e, recorded) : e;
  } finally {
    dog.stop();
    progress?.stop();
    rt.fenceSince = undefined;
    tr?.fence(rt.fences, t0);
  }
  const own = rt.scheduler.takeError();
  const err = quiet.error ?? own;
  if (err !== undefined) {
    clearPending(rt);
    // one rank, or a transport that does not gather them: the phase's one error
    if (err.errors === undefined) Object.defineProperty(err, 'errors', { value: [err], writable: true, configurable: true, enumerable: false });
    throw err;
  }
  const report = collectReport(rt);
  const waiting = waitingIn(report);
  const elsewhere = quiet.waitingByRank?.some((n, r) => n > 0 && r !== rt.rank) === true;
  if ((waiting !== 0 || elsewhere) && options.strict === true) {
    throw Errors.incomplete(report.incomplete.length, incompleteText(report, rt.rank, quiet.waitingByRank), rt.rank);
  }
  if (waiting !== 0 && options.quiet !== true) console.warn(formatReport(report, rt.rank));
  return report;
}

/** This rank's part of the fence: settling its work, the streams that end at the fence, the progress line. */
function localWork(rt: Runtime, progress: FenceWatch | undefined, options: FenceOptions): LocalWork {
  return {
    waiting: () => waitingCount(rt),
    strict: options.strict === true,
    done: () => rt.scheduler.completed,
    seen: (worldDone) => progress?.seen(worldDone),
    settle: () => settleLocal(rt),
    // a failed run ends at this fence: nothing more of it runs
    openStreams: () => (rt.fenceTTs.length === 0 ? [] : rt.scheduler.error !== undefined ? rt.fenceTTs.map(() => 0) : openFenceStreams(rt)),
    closeStreams: (open) => closeFenceStreams(rt, open),
  };
}

/**
 * Resolves when this rank is idle and stays idle across one macrotask turn, so promise callbacks
 * that user code queued (and that may invoke more tasks) have run.
 */
async function settleLocal(rt: Runtime): Promise<void> {
  const s = rt.scheduler;
  for (;;) {
    await s.whenIdle();
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (s.isIdle()) return;
  }
}

/** What a strict fence reports: this rank's waiting work, and where else work waits. */
function incompleteText(report: FenceReport, rank: number, byRank: number[] | undefined): string {
  const others = (byRank ?? []).map((n, r) => (n > 0 && r !== rank ? `rank ${r}: ${n}` : '')).filter((t) => t !== '');
  const here = waitingIn(report) === 0 ? `ttg: rank ${rank}: nothing waits here` : formatReport(report, rank, 3);
  return others.length === 0 ? here : `${here}\n  tasks, held tasks or TTs with parked messages wait on other ranks (${others.join(', ')}): see their reports`;
}

/** `e`, now with `cause` as its cause (as `new Error(message, { cause })` would have set it). */
function withCause(e: TtgError, cause: TtgError): TtgError {
  Object.defineProperty(e, 'cause', { value: cause, writable: true, configurable: true, enumerable: false });
  return e;
}
