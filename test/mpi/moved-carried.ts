/**
 * Program for test/mpi/moved-carried.test.ts (`mpirun -np 2`, argv[2] = `first` | `after`): rank 1
 * sends rank 0 a 128 KiB array `a` (received into the transport's pool, so a move may detach it).
 * T on rank 0 consumes it and sends `{ ref: a }` to L on rank 0 and `a` itself to R on rank 1:
 *
 *   first:  T ──{ ref: a }──▶ L (rank 0)      then  T ──a──▶ R (rank 1)
 *   after:  T ──a──▶ R (rank 1)               then  T ──{ ref: a }──▶ L (rank 0)
 *
 * `first` must not detach `a` under L (L reads every element); `after` must fail with E_MOVED
 * (L would get a detached array). Rank 0 prints one JSON line.
 */
import * as ttg from 'ttg';

const mode = process.argv[2] ?? 'first';
const N = 16384;
const world = await ttg.initialize();
const toT = new ttg.Edge<number, Float64Array>('toT');
const toL = new ttg.Edge<number, { ref: Float64Array }>('toL');
const toR = new ttg.Edge<number, Float64Array>('toR');
let seen: { length: number; right: boolean } | undefined;
const T = ttg.make_tt((k: number, a: Float64Array, out) => {
  if (mode === 'first') {
    out.send(0, k, { ref: a });
    out.send(1, k, a);
  } else {
    out.send(1, k, a);
    out.send(0, k, { ref: a });
  }
}, [toT], [toL, toR], { name: 'T', consume: [0] }).set_procmap(() => 0);
const L = ttg.make_tt((_k: number, v: { ref: Float64Array }) => {
  seen = { length: v.ref.length, right: v.ref.length === N && v.ref.every((x, j) => x === j + 0.5) };
}, [toL], [], { name: 'L' }).set_procmap(() => 0);
const R = ttg.make_tt((_k: number, a: Float64Array) => {
  if (a.length !== N || a[N - 1] !== N - 0.5) throw new Error(`R got a wrong array (length ${a.length})`);
}, [toR], [], { name: 'R' }).set_procmap(() => 1);
ttg.make_graph_executable(T, L, R);
if (world.rank === 1) T.in(0).send(0, Float64Array.from({ length: N }, (_, j) => j + 0.5));
ttg.execute();
let error: { code?: string; message: string } | undefined;
try {
  await ttg.fence();
} catch (e) {
  error = { code: (e as ttg.TtgError).code, message: (e as Error).message };
}
if (world.rank === 0) console.log(JSON.stringify({ mode, seen, error }));
await ttg.finalize();
