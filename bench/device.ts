/**
 * Device-task throughput on the `host` backend (or `--backend cuda`) versus the machine's tile
 * ceiling, measured in the same run with the same total flops. Prints a summary and, as its last
 * line, one JSON object (SPEC §7): body, backend, nb, tile_gflops, peak_gflops, ratio (cuda adds
 * big_gflops, one large dgemm, potrf_gflops, one dpotrf of order `--potrf-n` (default 32768; 0:
 * none), and kernels: cuBLAS and cuSOLVER or ours). `--body async` writes the tasks as
 * async functions that await their device steps instead of generators that yield them.
 *
 *   peak:  host: one native thread per core, each a loop of single-threaded 256x256 dgemm (no
 *          runtime); cuda: the same number of NB x NB dgemm calls back to back on the backend's
 *          streams, with the kernel its tasks call (cuBLAS when loaded), no runtime (lib/cuda-ceiling.ts)
 *   tiles: CHAINS independent chains  G(c,0) -> G(c,1) -> ...  that together run TOTAL tasks;
 *          each task is a device task (input -> dgemm on its stream -> kernel wait) on its chain's
 *          C tile, so several tasks per stream are queued at any time and the streams never wait
 *          for JS. A chain goes on while the shared count of started tasks is below TOTAL, so
 *          chains that ran on a faster core take more of the work and all end together, as the
 *          ceiling's loops do.
 */
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import * as ttg from 'ttg';
import { baselines } from './lib/baselines.js';
import { bigCeiling, cudaKernels, potrfCeiling, tileCeiling } from './lib/cuda-ceiling.js';
import { median } from './lib/stats.js';

/**
 * `--body generator|async`: the form of the device tasks' bodies (the same steps either way);
 * `--backend host|cuda`; `--nb`: the tile order (default 256 on host; 2048 on cuda, where a
 * smaller tile is done before JS can hand the stream its next task).
 */
const args = parseArgs({ options: { body: { type: 'string', default: 'generator' }, backend: { type: 'string', default: 'host' }, nb: { type: 'string' }, 'potrf-n': { type: 'string', default: '32768' } } }).values;
const BODY = args.body;
if (BODY !== 'generator' && BODY !== 'async') throw new Error(`--body must be generator or async, got '${BODY}'`);
const BACKEND = args.backend;
if (BACKEND !== 'host' && BACKEND !== 'cuda') throw new Error(`--backend must be host or cuda, got '${BACKEND}'`);
const CUDA = BACKEND === 'cuda';
const NB = Number(args.nb ?? (CUDA ? 2048 : 256));

await ttg.initialize({ device: { backend: BACKEND } });
// host: a core per stream; cuda: the backend's streams on device 0
const cores = CUDA ? ttg.device.stats().streams : availableParallelism();
// dgemm calls per measurement: long enough (~0.5 s) that graph setup and warm-up do not count
const TOTAL = Number(process.env.BENCH_TILES ?? (CUDA ? 2000 : 1000 * cores));
// Rounds (tiles + ceiling each). Single rounds' ratios spread 0.88-1.09 on this VM, so the median
// of 7 moved by +-1.5 points between invocations; 15 rounds halve the variance. A GPU does not
// throttle in bursts like this VM: 5 rounds there.
const RUNS = Number(process.env.BENCH_RUNS ?? (CUDA ? 5 : 15));
/** Tasks run untimed before measuring. */
const WARM_TASKS = CUDA ? TOTAL : 10000;
// Chains per core = tasks queued per stream. The pool wakes JS when a stream is down to its last
// queued kernel, so each wake hands over about CHAINS / cores - 1 tasks: with 8 per core, ~170
// wakes per 2000 tasks instead of ~500 with 4. Every wake puts the JS thread on a core that a
// worker was using (measured 0.93 of the ceiling with 8 per core, 0.91-0.93 with 4, 0.82-0.86
// with 2, 0.91 with 16, where the C tiles no longer fit in the caches).
const CHAINS = Number(process.env.BENCH_CHAINS ?? 8 * cores);
const flops = 2 * NB ** 3;

type Key = [number, number];

// Allocated and touched once, before any timing, as the ceiling's own tiles are: fresh tiles per
// run would put first-touch page faults, and the TLB-shootdown interrupts they send to the other
// worker's core, inside the timed region (~3% of each worker's time in a scratch run under perf).
const A = new ttg.Buffer(new Float64Array(NB * NB).fill(0.5));
const B = new ttg.Buffer(new Float64Array(NB * NB).fill(0.25));
const Cs = Array.from({ length: CHAINS }, () => new ttg.Buffer(new Float64Array(NB * NB).fill(1)));

// Built once, like an application's graph, and run once per measurement: a graph built per run
// kept V8's compiler threads busy (~15 ms of CPU per run) on the cores the kernels use.
let started = 0;
const e = new ttg.Edge<Key, ttg.Buffer>('gemm-chain');
const next = (key: Key, C: ttg.Buffer, out: ttg.Out<[typeof e]>): void => {
  if (started < TOTAL) {
    started++;
    out.send(0, [key[0], key[1] + 1], C);
  }
};
const tt = BODY === 'generator'
  ? ttg.make_tt(function* (key: Key, C: ttg.Buffer, out) {
    const { stream } = (yield ttg.device.input(A, B, C)) as ttg.device.InputResult;
    ttg.device.kernels.dgemm(stream, 'N', 'N', NB, NB, NB, 1 / NB, A, NB, B, NB, 0.5, C, NB);
    yield ttg.device.kernel();
    next(key, C, out);
  }, [e], [e], { name: 'G' })
  : ttg.make_tt(async (key: Key, C: ttg.Buffer, out) => {
    const { stream } = await ttg.device.input(A, B, C);
    ttg.device.kernels.dgemm(stream, 'N', 'N', NB, NB, NB, 1 / NB, A, NB, B, NB, 0.5, C, NB);
    await ttg.device.kernel();
    next(key, C, out);
  }, [e], [e], { name: 'G' });
ttg.make_graph_executable(tt);

async function tiles(): Promise<number> {
  const t0 = process.hrtime.bigint();
  started = Math.min(CHAINS, TOTAL);
  for (let c = 0; c < started; c++) tt.invoke([c, 0], Cs[c]!);
  ttg.execute();
  await ttg.fence();
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  return (TOTAL * flops) / s / 1e9;
}

async function peak(): Promise<number> {
  return CUDA ? tileCeiling(NB, TOTAL, cores) : baselines().devPeak(NB, Math.ceil(TOTAL / cores), cores);
}

const st = ttg.device.stats();
console.log(`${BACKEND} backend: ${st.streams} streams; ${CUDA ? cudaKernels() : ttg.device.info()?.kernels ?? ''}`);
// Warm-up: page-in, BLAS buffers, and V8's optimizing compiler, which reaches the runtime's hot
// paths (enqueue, send, kernel waits...) only after some thousands of tasks: with one warm-up run
// of 2000 tasks they were still being compiled during the first timed rounds (--trace-opt), and
// the ratio read 0.931-0.939 in five invocations, against 0.937-0.974 with four warm-up runs.
for (let w = 0; w < Math.max(1, Math.ceil(WARM_TASKS / TOTAL)); w++) await tiles();
// This kind of VM throttles CPU in bursts, so each round measures both sides back to back (in
// alternating order, to cancel drift) and the ratio is the median of the per-round ratios.
const rounds: Array<{ t: number; p: number }> = [];
for (let i = 0; i < RUNS; i++) {
  if (i % 2 === 0) {
    const p = await peak();
    rounds.push({ p, t: await tiles() });
  } else {
    const t = await tiles();
    rounds.push({ t, p: await peak() });
  }
}
const big = CUDA ? await bigCeiling(8192, 5) : undefined;
const POTRF_N = Number(args['potrf-n']);
const potrf = CUDA && POTRF_N > 0 ? await potrfCeiling(POTRF_N) : undefined;
const ratio = median(rounds.map((r) => r.t / r.p));
const tile_gflops = median(rounds.map((r) => r.t)), peak_gflops = median(rounds.map((r) => r.p));
console.log(rounds.map((r) => `tiles ${r.t.toFixed(1)} / peak ${r.p.toFixed(1)} GF/s`).join('\n'));
console.log(`(${TOTAL} dgemm ${NB}x${NB} per measurement, ${CHAINS} chains)`);
const kernels = CUDA ? cudaKernels() : undefined;
await ttg.finalize();
console.log(JSON.stringify({
  body: BODY, backend: BACKEND, nb: NB, tile_gflops: +tile_gflops.toFixed(2), peak_gflops: +peak_gflops.toFixed(2), ratio: +ratio.toFixed(3),
  ...(big === undefined ? {} : { big_gflops: +big.toFixed(1), kernels }),
  ...(potrf === undefined ? {} : { potrf_n: POTRF_N, potrf_gflops: +potrf.toFixed(1) }),
}));
