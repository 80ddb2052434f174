/**
 * The run that scripts/screenshots.mjs photographs (under `mpirun -np 2`, with TTG_DASHBOARD and
 * TTG_REPORT set by it): a chain of N (argument; 1200) generator tasks of ~4 ms passing from rank
 * to rank, each feeding a ~3 ms task on the other rank, whose values 8 reducing tasks sum (so the
 * page shows three TTs, tasks waiting for inputs, and both ranks busy for 8 s or so); every 8th GEN
 * also feeds a 256×256 GEMM on an emulated device of 3 MiB per rank (memory in use, copies,
 * kernels, evictions).
 *
 *   GEN [k] (rank k mod size) ──▶ GEN [k + 1]
 *      ├──▶ STENCIL [k] (rank k + 1 mod size) ──▶ SUM [k mod 8] (a reducing input of N / 8 values)
 *      └── every 8th k ──▶ GEMM [k] (device: C = A·B)
 */
import * as ttg from 'ttg';

const N = Number(process.argv[2] ?? 1200);
const busy = (ms) => {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* a task's work */ }
};

const world = await ttg.initialize({ device: { backend: 'emulated', devices: 1, memory: 3 << 20 } });
const next = new ttg.Edge('next');
const cells = new ttg.Edge('cells');
const parts = new ttg.Edge('parts');
const products = new ttg.Edge('products');
const gen = ttg.make_tt((k, _n, out) => {
  busy(4);
  if (k + 1 < N) out.sendk(0, k + 1);
  out.send(1, k, k);
  if (k % 8 === 0) out.sendk(2, k);
}, [next], [next, cells, products], { name: 'GEN' });
gen.set_procmap((k) => k % world.size);
const stencil = ttg.make_tt((k, v, out) => {
  busy(3);
  out.send(0, k % 8, v);
}, [cells], [parts], { name: 'STENCIL' });
stencil.set_procmap((k) => (k + 1) % world.size);
const sum = ttg.make_tt(() => busy(2), [parts], [], { name: 'SUM' }).set_input_reducer(0, (a, b) => a + b, N / 8);
sum.set_procmap((k) => k % world.size);
const M = 256;
const operands = Array.from({ length: 6 }, (_, i) => new ttg.Buffer(new Float64Array(M * M).fill(i + 1)));
const gemm = ttg.make_tt(function* (k) {
  const a = operands[k % 6];
  const b = operands[(k + 1) % 6];
  const c = new ttg.Buffer(M * M);
  const { stream } = yield ttg.device.input(a, b, c);
  ttg.device.kernels.dgemm(stream, 'N', 'N', M, M, M, 1, a, M, b, M, 0, c, M);
  yield ttg.device.kernel(c);
}, [products], [], { name: 'GEMM' });
gemm.set_procmap((k) => (k / 8) % world.size);
ttg.make_graph_executable(gen, stencil, sum, gemm);
if (world.rank === 0) gen.invoke(0);
await world.fence();
await ttg.finalize();
