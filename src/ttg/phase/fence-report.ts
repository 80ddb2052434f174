/**
 * What a fence found still waiting when the world went quiet: tasks missing inputs and tasks held
 * by constraints. They do not block the fence; they are reported.
 */
import { describeKey } from '../../base/errors.js';
import type { Runtime } from '../runtime/runtime.js';
import type { Task, TTBase } from '../common/model.js';

/** A task that has some inputs but not all. */
export interface IncompleteTask {
  /** TT name. */
  tt: string;
  /** The task's key. */
  key: unknown;
  /** Input terminals with no (or an unfinished stream of) values, by index. */
  missing: number[];
  /** Names of the edges feeding the missing terminals. */
  edges: string[];
  /**
   * Per missing terminal, what arrived of a reducing input's stream ('2 of 3 values', and for a
   * keyed all-reduce which partials); '' for a plain input.
   */
  arrived: string[];
}

/** A task ready to run but held back by a constraint. */
export interface HeldTaskReport {
  tt: string;
  key: unknown;
  ordinal: number;
  /** Present (true) when the constraint is stopped: nothing opens before its `start()`. */
  stopped?: true;
}

/** Messages that reached this rank for a TT it has not made executable (they wait for it). */
export interface ParkedMessages {
  /** The TT's id: its place in the order in which the program makes TTs (the same on every rank). */
  ttId: number;
  /** The TT's name, when this rank has made it (but not made it executable). */
  tt?: string;
  /** How many messages wait. */
  messages: number;
}

/** Result of `ttg.fence()`. */
export interface FenceReport {
  /** Tasks still missing inputs on this rank. */
  incomplete: IncompleteTask[];
  /** Tasks held by constraints on this rank. */
  held: HeldTaskReport[];
  /** Messages for TTs this rank has not made executable (never delivered unless it does). */
  parked: ParkedMessages[];
}

/** Collects the report; also forgets TTs that hold nothing, so finished graphs can be collected. */
export function collectReport(rt: Runtime): FenceReport {
  const incomplete: IncompleteTask[] = [];
  for (const a of rt.live) {
    const tt = a.tt;
    let any = false;
    for (const t of a.pendingTasks()) {
      any = true;
      const missing: number[] = [];
      for (let i = 0; i < t.args.length; i++) if ((t.got & (1 << i)) === 0) missing.push(i);
      incomplete.push({ tt: tt.name, key: t.key, missing, edges: missing.map((i) => tt.inputs[i]!.edgeName), arrived: missing.map((i) => arrivedOf(tt, t, i)) });
    }
    if (!any) {
      rt.live.delete(a);
      a.live = false;
    }
  }
  const held: HeldTaskReport[] = [];
  // one push per task: push(...list) overflows the stack past ~100k held tasks
  for (const c of rt.constraints) for (const h of c.heldTasks(rt)) held.push(h);
  const parked = rt.parkedMessages().map(([ttId, messages]): ParkedMessages => {
    const tt = rt.ttById(ttId)?.name;
    return tt === undefined ? { ttId, messages } : { ttId, tt, messages };
  });
  return { incomplete, held, parked };
}

/** What arrived of input `i`'s stream of pending task `t`, or '' for a plain input. */
function arrivedOf(tt: TTBase, t: Task, i: number): string {
  const st = t.streams;
  if (tt.inputs[i]!.reducer === undefined || st === undefined) return '';
  const got = st[2 * i]!;
  const want = st[2 * i + 1]!;
  const count = `${got} of ${want >= 0 && Number.isFinite(want) ? want : 'an unset number of'} values`;
  return got === 0 || tt.describeInput === undefined ? count : `${count}: ${tt.describeInput(t.key, i, t.args[i])}`;
}

/** One missing input for a report line: `#i (edge: what arrived)`. */
export function describeMissing(t: IncompleteTask): string {
  return t.missing.map((m, j) => `#${m} (${t.edges[j]}${t.arrived[j] === '' ? '' : `: ${t.arrived[j]}`})`).join(', ');
}

/** What {@link collectReport} would count as waiting ({@link waitingIn}), without making the report. */
export function waitingCount(rt: Runtime): number {
  let n = rt.parkedMessages().length;
  for (const a of rt.live) n += a.pendingCount();
  for (const c of rt.constraints) n += c.heldTasks(rt).length;
  return n;
}

/** Tasks and messages a report says are still waiting. */
export function waitingIn(r: FenceReport): number {
  return r.incomplete.length + r.held.length + r.parked.length;
}

/** One line per task (at most `limit`), for the warning printed at fence. */
export function formatReport(r: FenceReport, rank: number, limit = 10): string {
  const lines: string[] = [];
  for (const t of r.incomplete.slice(0, limit)) {
    lines.push(`  ${t.tt}[${describeKey(t.key)}] missing input ${describeMissing(t)}`);
  }
  for (const h of r.held.slice(0, limit)) lines.push(`  ${h.tt}[${describeKey(h.key)}] held by a ${h.stopped ? 'stopped ' : ''}constraint at ordinal ${h.ordinal}`);
  for (const p of r.parked.slice(0, limit)) {
    const which = p.tt === undefined ? `TT #${p.ttId}, which this rank has not made` : `TT '${p.tt}' (#${p.ttId}), which this rank has not made executable`;
    lines.push(`  ${p.messages} message(s) for ${which} (make_graph_executable)`);
  }
  const more = waitingIn(r) - lines.length;
  if (more > 0) lines.push(`  ... and ${more} more`);
  const parked = r.parked.length === 0 ? '' : ` and messages for ${r.parked.length} TT(s) not made executable here`;
  const head = `ttg: rank ${rank}: fence found ${r.incomplete.length} task(s) missing inputs and ${r.held.length} held by constraints${parked}:`;
  return [head, ...lines].join('\n');
}

/** Forgets everything pending (after a failed run, so the next graph starts clean). */
export function clearPending(rt: Runtime): void {
  rt.failedRuns++;
  for (const a of rt.live) {
    a.clearPending();
    a.live = false;
  }
  rt.live.clear();
  for (const c of rt.constraints) c.dropHeld(rt);
}
