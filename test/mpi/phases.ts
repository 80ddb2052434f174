/**
 * Fence as a phase boundary, run by test/fence-phases.test.ts under `mpirun -np 2` and `-np 3`.
 * Each phase invokes producers on every rank, runs, and fences; the next phase starts on a rank as
 * soon as its own fence returns, so its messages reach ranks that are still finishing that fence.
 *
 *   L(k) on rank (k+1)%size ──Float64Array──▶ J(k) on rank k%size ◀──number── R(k) on rank (k+2)%size
 *
 * Half the R(k) are invoked from rank (k+1)%size, so Invoke messages cross phases too.
 * Keys change every phase (phase * KEYS_PER_PHASE + i) so that a task of one phase can never be
 * completed by an input of another. Most fences are strict; every fourth is a non-strict one that
 * prints its report (a false "missing inputs" report then shows in stderr and in `reports`).
 * The last rank's event loop is kept busy (0.2 ms turns) so that the race shows at 2 ranks too.
 * Every rank prints `RESULT <json>`: its rejections, non-empty reports, and how many tasks J ran
 * (and which of its keys ran never or more than once), and how many messages of a next phase it held.
 */
import * as ttg from 'ttg';
import { defaultRuntime } from '../../src/ttg/runtime/runtime.js';
import type { MpiTransport } from '../../src/transport/mpi.js';

const PHASES = Number(process.argv[2] ?? 200);
const world = await ttg.initialize();
const { rank, size } = world;
const KEYS_PER_PHASE = 2 * size;

const goL = new ttg.Edge<number, void>('go-l');
const goR = new ttg.Edge<number, void>('go-r');
const left = new ttg.Edge<number, Float64Array>('left');
const right = new ttg.Edge<number, number>('right');
// the fixed-layout header (one typed array, integer key) on one side, a msgpack header on the other
const l = ttg.make_tt((k: number, _v: void, out) => out.send(0, k, Float64Array.of(k, rank)), [goL], [left], { name: 'L' });
const r = ttg.make_tt((k: number, _v: void, out) => out.send(0, k, k + 0.5), [goR], [right], { name: 'R' });
/** Runs of J per key, and runs on the wrong rank or with inputs of another key. */
const runs = new Map<number, number>();
let wrong = 0;
const j = ttg.make_tt((k: number, a: Float64Array, b: number) => {
  runs.set(k, (runs.get(k) ?? 0) + 1);
  if (a[0] !== k || a[1] !== (k + 1) % size || b !== k + 0.5 || k % size !== rank) wrong++;
}, [left, right], [], { name: 'J' });
l.set_procmap((k) => (k + 1) % size);
r.set_procmap((k) => (k + 2) % size);
j.set_procmap((k) => k % size);
ttg.make_graph_executable(l, r, j);
ttg.execute();

// The last rank's event loop is never idle for long, as a loaded machine's would be: the end of a
// fence then reaches its JS late, after messages that other ranks sent in the next phase.
const spin = (ms: number) => { const end = performance.now() + ms; while (performance.now() < end); };
let busy = rank === size - 1;
const tick = () => {
  if (!busy) return;
  spin(0.2);
  setImmediate(tick);
};
tick();

const rejections: string[] = [];
let reports = 0;
for (let phase = 0; phase < PHASES; phase++) {
  for (let i = 0; i < KEYS_PER_PHASE; i++) {
    const k = phase * KEYS_PER_PHASE + i;
    if ((k + 1) % size === rank) l.invoke(k, undefined);
    // the second half of the keys' R is invoked from L's rank, not its own: Invoke messages
    if ((k + (i < size ? 2 : 1)) % size === rank) r.invoke(k, undefined);
  }
  if (phase % 4 === 3) {
    const report = await ttg.fence();
    if (report.incomplete.length + report.held.length > 0) reports++;
    continue;
  }
  try {
    await ttg.fence({ strict: true });
  } catch (e) {
    rejections.push(`${phase}: ${(e as ttg.TtgError).code}`);
  }
}

busy = false;
// Summaries, not the runs themselves: mpirun may split a long line of one rank with another's.
const missing: number[] = [];
for (let k = rank; k < PHASES * KEYS_PER_PHASE; k += size) if (!runs.has(k)) missing.push(k);
const twice = [...runs].filter(([, n]) => n !== 1).map(([k]) => k);
const ran = runs.size;
// messages of a next phase that reached this rank while it was still in a fence
const deferred = (defaultRuntime().transport as MpiTransport).counters().deferred;
console.log(`RESULT ${JSON.stringify({ rank, size, rejections: rejections.slice(0, 20), rejected: rejections.length, reports, wrong, ran, deferred, missing: missing.slice(0, 20), twice: twice.slice(0, 20) })}`);
await ttg.finalize();
