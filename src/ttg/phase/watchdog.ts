/**
 * The hang watchdog of `fence()`. While a fence waits, it samples this rank's progress (tasks
 * finished or resumed, tasks queued, messages sent and received); when nothing moved for
 * `TTG_HANG_TIMEOUT` seconds (default 30) the rank votes "stalled" to the others. Once every rank
 * stalled on the same fence, each prints what it holds (running tasks, tasks missing inputs or held
 * by constraints, messages waiting for a TT) and the fence rejects with `E_HANG` everywhere.
 * A rank busy in a long body, with device work in flight or receiving a payload does not vote, so
 * it is never mistaken for a hang.
 */
import { BodyKind } from '../common/body.js';
import { describeKey, Errors, type TtgError } from '../../base/errors.js';
import { collectReport, describeMissing } from './fence-report.js';
import type { Runtime } from '../runtime/runtime.js';
import type { Transport } from '../common/transport.js';

/** Watches one fence; `hung` rejects with `E_HANG` when the world stopped moving. */
export class Watchdog {
  /** Rejects with the hang error; never resolves. */
  readonly hung: Promise<never>;
  private reject!: (e: TtgError) => void;
  private readonly timer: NodeJS.Timeout;
  private last: string;
  private lastChange = performance.now();
  private voted = false;
  private done = false;

  private readonly transport: Transport;

  constructor(private readonly rt: Runtime, private readonly fenceNo: number, private readonly timeoutS: number) {
    this.transport = rt.transport!;
    this.hung = new Promise<never>((_resolve, reject) => {
      this.reject = reject;
    });
    this.hung.catch(() => {});
    this.last = this.signature();
    this.timer = setInterval(() => this.check(), Math.max(10, Math.min(1000, timeoutS * 250)));
    this.transport.onVote = () => this.check();
    if (this.transport.hangNotice !== undefined) queueMicrotask(() => this.check());
  }

  /** The fence ended (either way). */
  stop(): void {
    this.done = true;
    clearInterval(this.timer);
    if (this.transport.onVote !== undefined) this.transport.onVote = undefined;
  }

  private signature(): string {
    const s = this.rt.scheduler;
    return `${s.completed} ${s.resumed} ${s.pending} ${s.discarded} ${this.transport.progress()}`;
  }

  private check(): void {
    if (this.done) return;
    const notice = this.transport.hangNotice;
    if (notice !== undefined) {
      this.transport.hangNotice = undefined;
      this.declare(true);
      return;
    }
    const sig = this.signature();
    const now = performance.now();
    // a kernel running, or a payload arriving, for longer than the timeout is work, not a hang
    if (sig !== this.last || this.rt.device?.busy() === true || this.transport.payloadArriving()) {
      this.last = sig;
      this.lastChange = now;
      if (this.voted) {
        this.voted = false;
        this.transport.vote(this.fenceNo, false);
      }
      return;
    }
    if (now - this.lastChange < this.timeoutS * 1000) return;
    if (!this.voted) {
      this.voted = true;
      this.transport.vote(this.fenceNo, true);
    }
    if (this.transport.othersStalled(this.fenceNo)) this.declare(false);
  }

  private declare(announced: boolean): void {
    this.stop();
    const { text, summary } = hangReport(this.rt, this.timeoutS);
    console.error(text);
    const err = Errors.hang(this.timeoutS, summary, this.rt.rank);
    if (!announced) this.transport.announceFailure(err);
    this.rt.scheduler.abandonSuspended();
    this.transport.abandon(err);
    this.reject(err);
  }
}

/** What this rank holds while hung: printed in full, summarized in the error message. */
export function hangReport(rt: Runtime, timeoutS: number): { text: string; summary: string } {
  const scheduler = rt.scheduler;
  const limit = 20;
  const lines: string[] = [];
  const running = scheduler.suspendedTasks();
  for (const t of running.slice(0, limit)) {
    const what = t.tt.kind === BodyKind.Generator || t.tt.kind === BodyKind.AsyncGenerator
      ? 'suspended at a yield (awaiting a promise or a device step)'
      : 'awaiting the promise its body returned';
    lines.push(`  running: ${t.tt.name}[${describeKey(t.key)}] ${what}`);
  }
  if (running.length > limit) lines.push(`  ... and ${running.length - limit} more running`);
  const report = collectReport(rt);
  for (const t of report.incomplete.slice(0, limit)) {
    lines.push(`  incomplete: ${t.tt}[${describeKey(t.key)}] missing input ${describeMissing(t)}`);
  }
  if (report.incomplete.length > limit) lines.push(`  ... and ${report.incomplete.length - limit} more incomplete`);
  for (const h of report.held.slice(0, limit)) lines.push(`  held: ${h.tt}[${describeKey(h.key)}] by a constraint at ordinal ${h.ordinal}`);
  if (report.held.length > limit) lines.push(`  ... and ${report.held.length - limit} more held`);
  const parked = rt.parkedMessages();
  for (const [id, n] of parked) {
    const name = rt.ttById(id)?.name;
    lines.push(`  messages: ${n} for TT ${name === undefined ? `#${id} (not built on this rank)` : `'${name}'`} that is not executable here`);
  }
  const behind = rt.lane.behindFence;
  if (behind !== undefined) lines.push(`  waiting for this fence: ${behind}`);
  const queued = scheduler.pending - running.length;
  if (queued > 0) lines.push(`  queued: ${queued} task(s)`);
  const counts = (rt.transport as { counters?: () => { sent: number; received: number } } | undefined)?.counters?.();
  const parkedTotal = parked.reduce((a, [, n]) => a + n, 0);
  if (counts !== undefined) lines.push(`  messages sent ${counts.sent}, received ${counts.received} by this rank, and ${parkedTotal} more waiting for a TT`);
  const head = `ttg: rank ${rt.rank}: fence() made no progress for ${timeoutS} s (TTG_HANG_TIMEOUT); this rank holds:`;
  const text = [head, ...(lines.length === 0 ? ['  nothing (waiting for other ranks)'] : lines)].join('\n');
  const cause = behind === undefined || running.length === 0 ? ''
    : `; ${behind} was called while this fence ran and waits for it to end: a task of this world that awaits it never ends (call collectives from the main program)`;
  const summary = `rank ${rt.rank} holds ${running.length} running task(s)${running.length > 0 ? ` (first: ${running[0]!.tt.name}[${describeKey(running[0]!.key)}])` : ''}, `
    + `${report.incomplete.length} missing inputs, ${report.held.length} held by constraints, `
    + `${parkedTotal} message(s) waiting for a TT${cause}`;
  return { text, summary };
}
