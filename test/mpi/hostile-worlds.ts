/**
 * Hostile interleavings of fences, splits and collectives under mpirun, run by
 * test/mpi/hostile-worlds.test.ts. Each mode is one program; ranks print `RESULT {...}` where the
 * test needs their view. Every mode exists because the runtime once hung, mixed up worlds or
 * aborted MPI on it, so each is built to hit its race every time rather than now and then.
 *
 *   leave <return|exit>: the job fences once, then rank 1 ends with exit code 0 without
 *     `finalize()` (its script just ends, or it calls `process.exit(0)`) while the others wait in
 *     a second fence. The job must end soon, non-zero, naming rank 1, instead of hanging.
 *   split-in-fence: sub-world A = job ranks {0, 1}. A's rank 1 runs a slow async task, so A's
 *     fence cannot end yet; rank 0 is already in A's termination waves when every rank splits the
 *     default world. The split and A's fence must both complete.
 *   two-splits: halves A = {0, 1} and B = the rest; then every rank splits its half and the
 *     default world at once (Promise.all), so one rank makes two splits from different parents
 *     concurrently. A ring runs in each new world: each must see its own tokens only, and fence.
 *   early-phase: phases of invoke, `await fence()`, `phase = p + 1`. Every task checks that the
 *     phase it was sent in is the phase its rank is in when it runs: a task of the next phase
 *     must not run before its rank's `fence()` has resolved there.
 *   hang-queued / hang-after: a task on the last rank never finishes and TTG_HANG_TIMEOUT is
 *     small, so the fence rejects with E_HANG; an allreduce, a broadcast and a split, queued
 *     behind that fence or called after it, must each reject with a TtgError (no MPI abort).
 *   failed-send: rank 0's comm thread fails its 3rd send (TTG_FAULT_SEND, set on rank 0 only)
 *     while one task makes 6 sends to rank 1. The other 5 must still arrive (their tasks may be
 *     dropped once the failure is known there), and the fence, which can only end on the
 *     watchdog (the lost message was counted as sent), rejects with E_HANG whose cause is the
 *     send's error, on every rank.
 */
import * as ttg from 'ttg';

import { defaultRuntime } from '../../src/ttg/runtime/runtime.js';
import type { MpiTransport } from '../../src/transport/mpi.js';

// before initialize, which hands the addon its settings
if (process.argv[2] === 'failed-send' && process.env['OMPI_COMM_WORLD_RANK'] === '0') process.env['TTG_FAULT_SEND'] = '3';
const world = await ttg.initialize({ device: { backend: 'host', streams: 1 } });
const { rank, size } = world;
const mode = process.argv[2] ?? '';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** What went wrong, as text: a TtgError's code and message, or anything else stringified. */
function describe(e: unknown): string {
  return e instanceof ttg.TtgError ? `${e.code}: ${e.message}` : `not a TtgError: ${String(e)}`;
}

function report(fields: Record<string, unknown>): void {
  console.log(`RESULT ${JSON.stringify({ rank, ...fields })}`);
}

/**
 * A token passed around every rank of `w`, `laps` times, carrying `tag`: `hops` counts the hops
 * that ran here, `foreign` those whose token carried another tag (a message of another world).
 */
function ring(w: ttg.World, tag: number, laps: number): { start(): void; hops(): number; foreign(): number } {
  const e = new ttg.Edge<number, number>(`ring${tag}`);
  let hops = 0;
  let foreign = 0;
  const tt = ttg.make_tt((k: number, t: number, o) => {
    hops++;
    if (t !== tag) foreign++;
    if (k + 1 < laps * w.size) o.send(0, k + 1, t);
  }, [e], [e], { world: w, name: `RING${tag}` });
  tt.set_procmap((k) => k % w.size);
  ttg.make_graph_executable(tt);
  return { start: () => { if (w.rank === 0) tt.invoke(0, tag); }, hops: () => hops, foreign: () => foreign };
}

/** Runs a ring of `laps` laps in `w` and fences it; the hops seen here, or the fence's error. */
async function ringRun(w: ttg.World, tag: number, laps: number): Promise<{ hops: number; foreign: number; fence: string }> {
  const r = ring(w, tag, laps);
  r.start();
  w.execute();
  let fence = 'ok';
  try {
    await w.fence({ quiet: true });
  } catch (e) {
    fence = describe(e);
  }
  return { hops: r.hops(), foreign: r.foreign(), fence };
}

async function leave(how: string): Promise<void> {
  await ttg.fence();
  if (rank === 1) {
    console.log('LEAVING 1');
    if (how === 'exit') process.exit(0);
    return; // the script ends here on rank 1: exit code 0, no finalize()
  }
  await ttg.fence();
  await ttg.finalize();
  report({ done: true });
}

/** A task of world `w` on its rank `where` that awaits `ms` milliseconds (busy, but not blocking JS). */
function slowTask(w: ttg.World, where: number, ms: number): void {
  const tt = ttg.make_tt(async (_k: number) => {
    await sleep(ms);
  }, [], [], { world: w, name: 'SLOW' });
  tt.set_procmap(() => where);
  ttg.make_graph_executable(tt);
  // invoked on its own rank, so the task is there before that rank's fence looks for work
  if (w.rank === where) tt.invoke(0);
  w.execute();
}

async function splitInFence(): Promise<void> {
  const a = await world.split(rank < 2 ? 0 : 1);
  if (a === undefined) throw new Error('no world for a non-negative color');
  if (rank < 2) slowTask(a, 1, 1500);
  const fenceA = a.fence({ quiet: true }).then(() => 'ok', describe);
  // A's rank 0 has nothing to do: this lets it start A's first termination wave before the split
  await sleep(200);
  const c = await world.split(rank % 2, -rank);
  if (c === undefined) throw new Error('no world for a non-negative color');
  const r = await ringRun(c, 7, 5);
  report({ sub: rank < 2 ? 'A' : 'B', fenceA: await fenceA, cRank: c.rank, cSize: c.size, ...r });
}

async function twoSplits(): Promise<void> {
  const half = await world.split(rank < 2 ? 0 : 1);
  if (half === undefined) throw new Error('no world for a non-negative color');
  // both splits start before either ends: two parents, one rank, at the same time
  const [c, d] = await Promise.all([half.split(0), world.split(0)]);
  if (c === undefined || d === undefined) throw new Error('no world for a non-negative color');
  // tags differ per world (and per half) so that a token routed to the wrong world is seen
  const [rc, rd] = await Promise.all([ringRun(c, rank < 2 ? 1 : 2, 10), ringRun(d, 3, 10)]);
  report({
    half: rank < 2 ? 'A' : 'B', cSize: c.size, dSize: d.size,
    cHops: rc.hops, cForeign: rc.foreign, cFence: rc.fence, dHops: rd.hops, dForeign: rd.foreign, dFence: rd.fence,
  });
}

/**
 * Keeps the last rank's event loop from ever being idle for long (0.2 ms turns), as on a loaded
 * machine: it then learns of a fence's end after the other ranks have sent the next phase's work.
 */
function keepBusy(): () => void {
  let busy = rank === size - 1;
  const spin = (ms: number) => { const end = performance.now() + ms; while (performance.now() < end); };
  const tick = () => {
    if (!busy) return;
    spin(0.2);
    setImmediate(tick);
  };
  tick();
  return () => { busy = false; };
}

async function earlyPhase(phases: number): Promise<void> {
  let phase = 0;
  const stale: string[] = [];
  let ran = 0;
  const go = new ttg.Edge<[number, number, number], number>('go');
  const t = ttg.make_tt((k: [number, number, number], sentIn: number) => {
    ran++;
    if (sentIn !== phase) stale.push(`task of phase ${sentIn} from rank ${k[1]} ran in phase ${phase}`);
  }, [go], [], { name: 'PHASED' });
  // owned by another rank than the invoking one: every invoke is a message that can cross phases
  t.set_procmap((k) => (k[1] + 1 + (k[2] % (size - 1))) % size);
  ttg.make_graph_executable(t);
  ttg.execute();
  const stop = keepBusy();
  const perRank = 4;
  for (let p = 0; p < phases; p++) {
    for (let i = 0; i < perRank; i++) t.invoke([p, rank, i], phase);
    await ttg.fence();
    phase = p + 1;
  }
  stop();
  const deferred = (defaultRuntime().transport as MpiTransport).counters().deferred;
  report({ ran, stale: stale.length, first: stale.slice(0, 5), deferred, expected: phases * perRank });
}

/** A task on the last rank whose promise never settles: the fence can only end in E_HANG. */
function stuckTask(): void {
  const tt = ttg.make_tt(async (_k: number) => {
    await new Promise<void>(() => {});
  }, [], [], { name: 'STUCK' });
  tt.set_procmap(() => size - 1);
  ttg.make_graph_executable(tt);
  if (rank === size - 1) tt.invoke(0);
  ttg.execute();
}

/** How `p` settled: 'resolved', or the code of the TtgError and of its cause. */
async function outcome(p: Promise<unknown>): Promise<{ how: string; code?: string; cause?: string; text?: string }> {
  try {
    await p;
    return { how: 'resolved' };
  } catch (e) {
    if (!(e instanceof ttg.TtgError)) return { how: 'rejected', text: String(e) };
    const cause = e.cause instanceof ttg.TtgError ? e.cause.code : undefined;
    return { how: 'rejected', code: e.code, ...(cause === undefined ? {} : { cause }), text: e.message.slice(0, 300) };
  }
}

async function hangThenCollectives(queued: boolean): Promise<void> {
  stuckTask();
  const fence = outcome(ttg.fence({ quiet: true }));
  if (!queued) await fence;
  // queued: these take their turn in the world's lane behind the fence that will hang
  const calls = {
    allreduce: outcome(world.allreduce(1)),
    broadcast: outcome(world.broadcast({ x: 1 }, 0)),
    split: outcome(world.split(0)),
  };
  report({
    fence: await fence, allreduce: await calls.allreduce, broadcast: await calls.broadcast, split: await calls.split,
  });
  // the first rank to exit aborts the job (a hung world): let the others print first
  await sleep(1000);
  await ttg.finalize();
}

async function failedSend(): Promise<void> {
  const go = new ttg.Edge<number, void>('fs-go');
  const to = new ttg.Edge<number, Float64Array>('fs-to');
  const got: number[] = [];
  const src = ttg.make_tt((_k: number, _v: void, out) => {
    // sizes on both sides of the staging and eager limits: copied, copied later, sent in place
    for (let i = 0; i < 6; i++) out.send(0, i, new Float64Array(i % 2 === 0 ? 1 : 16384).fill(i));
  }, [go], [to], { name: 'FS-SRC' });
  const dst = ttg.make_tt((k: number, v: Float64Array) => {
    if (v.every((x) => x === k)) got.push(k);
  }, [to], [], { name: 'FS-DST' });
  src.set_procmap(() => 0);
  dst.set_procmap(() => 1);
  ttg.make_graph_executable(src, dst);
  if (rank === 0) src.invoke(0);
  ttg.execute();
  let fence = 'ok';
  let cause = '';
  try {
    await ttg.fence({ quiet: true });
  } catch (e) {
    fence = describe(e);
    cause = describe((e as Error).cause);
  }
  // counted when handled by the transport: a task of a run already failed may be dropped unrun
  const { sent, received } = (defaultRuntime().transport as MpiTransport).counters();
  report({ got: got.sort((a, b) => a - b), sent, received, fence, cause });
  await sleep(1000); // a hung world aborts the job at exit: let the other ranks print first
  await ttg.finalize();
}

switch (mode) {
  case 'leave': await leave(process.argv[3] ?? 'return'); break;
  case 'split-in-fence': await splitInFence(); await ttg.finalize(); break;
  case 'two-splits': await twoSplits(); await ttg.finalize(); break;
  case 'early-phase': await earlyPhase(Number(process.argv[3] ?? 100)); await ttg.finalize(); break;
  case 'hang-queued': await hangThenCollectives(true); break;
  case 'hang-after': await hangThenCollectives(false); break;
  case 'failed-send': await failedSend(); break;
  default: throw new Error(`unknown mode '${mode}'`);
}
