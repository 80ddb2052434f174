/**
 * A run for the live dashboard's tests (test/mpi/dashboard*.test.ts), with TTG_DASHBOARD set by the
 * test: a chain of N (argument; 400) tasks of ~5 ms passing from rank to rank (2 s or more at
 * 400; a browser test that must see the count rise asks for more), then a graph whose
 * task fails with a known message; the fence's rejection is caught and the ranks stay a second
 * more (the dashboard shows the error), then finalize. Every 10th STEP feeds a GEMM on an emulated
 * device of 2 MiB: 256×256 products whose operands do not all fit (the page shows memory in use,
 * copies, kernels and evictions). Prints `RESULT {...}` per rank.
 *
 *   STEP [k] (on rank k mod size) ──▶ STEP [k + 1]          BOOM [0] (throws)
 *      └── every 10th k ──▶ GEMM [k] (device: C = A·B)
 */
import * as ttg from 'ttg';

const world = await ttg.initialize({ device: { backend: 'emulated', devices: 1, memory: 2 << 20 } });
const { rank, size } = world;
const N = Number(process.argv[2] ?? 400);
const next = new ttg.Edge<number, void>('next');
const products = new ttg.Edge<number, void>('products');
const step = ttg.make_tt((k: number, _n: void, out) => {
  const until = performance.now() + 5;
  while (performance.now() < until) { /* a task's work */ }
  if (k + 1 < N) out.sendk(0, k + 1);
  if (k % 10 === 0) out.sendk(1, k);
}, [next], [next, products], { name: 'STEP' });
step.set_procmap((k) => k % size);
const M = 256;
const operands = Array.from({ length: 6 }, (_, i) => new ttg.Buffer(new Float64Array(M * M).fill(i + 1)));
const gemm = ttg.make_tt(function* (k: number) {
  const a = operands[k % 6]!;
  const b = operands[(k + 1) % 6]!;
  const c = new ttg.Buffer(M * M);
  const { stream } = (yield ttg.device.input(a, b, c)) as ttg.device.InputResult;
  ttg.device.kernels.dgemm(stream, 'N', 'N', M, M, M, 1, a, M, b, M, 0, c, M);
  yield ttg.device.kernel(c);
}, [products], [], { name: 'GEMM' });
gemm.set_procmap((k) => (k / 10) % size);
const go = new ttg.Edge<number, void>('go');
const boom = ttg.make_tt(() => { throw new Error('planted failure for the dashboard'); }, [go], [], { name: 'BOOM' });
ttg.make_graph_executable(step, gemm, boom);
if (rank === 0) step.invoke(0);
await world.fence();
if (rank === 0) boom.invoke(0);
let failed = '';
try {
  await world.fence({ quiet: true });
} catch (e) {
  failed = (e as ttg.TtgError).code;
}
await new Promise((r) => setTimeout(r, 1500));
console.log(`RESULT ${JSON.stringify({ rank, failed })}`);
await ttg.finalize();
