/**
 * MPI message path: raw MPI ping-pong (`rawPingpong` of bench/lib/baselines.ts, blocking MPI_Send /
 * MPI_Recv run on ttg's comm thread) against a two-TT ttg cycle that carries a Float64Array between
 * rank 0 (Ping) and rank 1 (Pong) through the public API. Run as `npm run -s bench:pingpong`:
 * without mpirun it starts `mpirun -np 2` on itself. Prints a human table and, as its last line,
 * one JSON object (SPEC §7): sizes, raw_us, ttg_us, bw_ratio_1m, bw_ratio_16m, lat_overhead_us,
 * plus idle_cpu_pct (CPU use of a rank waiting in fence() while its peer computes),
 * lat_overhead_p50_us (the median single 8 B round trip of the ttg loop, less raw MPI's mean one)
 * and cpu_stall_pct / cpu_stalls_per_ms / cpu_stall_us (what the machine takes from a spinning
 * thread, both ranks spinning at once before MPI starts: see bench/cpu-stalls.ts).
 *
 * Both loops are measured alike: the same number of round trips, after the same untimed warm-up
 * rounds (min(10, rounds), as the raw loop does). On this VM a transfer that follows a pause runs
 * up to twice as slow for the next ~20 hops (the raw loop shows it too), so a run without
 * warm-up would measure the pause, not the message path. Before the runs of a size, both loops
 * also make SIZE_WARM_ROUNDS untimed round trips, so that ttg's runs measure compiled code.
 *
 * Every payload is verified when it arrives, in both loops alike: element 0 carries the round
 * number, the rest is checksummed by the baselines' `checksum` (Fletcher-style sums mod 2^32 over its
 * 32-bit words, bench/lib/baselines.ts), the one routine the raw loop runs on its own receives. The round trip is strictly
 * sequential, so the checks' time (summed over both ranks) is subtracted from each loop's elapsed
 * time: raw_us and ttg_us are the message paths alone. Why the raw loop checks too: a check is a
 * pause, and on this VM any pause slows the transfers after it (raw MPI, 16 MiB: 4.4 ms per round
 * trip, 6.6 ms with a 10 ms busy pause per hop, same time excluded); checking only the ttg side
 * with a slower JS checksum (8 ms per 16 MiB) charged ttg ~1.5 ms per round trip for the VM's
 * pauses. Both tasks consume their input and send it on, as a C++ TTG user writes `send(std::move(a))`: the array
 * is transferred, so each rank receives into the buffer its previous send just gave back, as the
 * raw loop reuses one buffer.
 *
 * Environment: BENCH_RUNS (default 5) runs per size, median reported; BENCH_SCALE scales the
 * number of round trips per run; BENCH_MPIRUN_ARGS extra mpirun arguments (e.g.
 * `--mca btl_vader_single_copy_mechanism none`); BENCH_SIZES a comma-separated subset of sizes.
 */

import * as ttg from 'ttg';

import { requireNative } from '../src/native/addon.js';
import { baselines, rawPingpong } from './lib/baselines.js';
import { measureCpuStalls } from './cpu-stalls.js';
import { relaunchUnderMpirun } from './lib/mpirun.js';
import { held } from './lib/held.js';
import { idleCpuPct } from './lib/idle-cpu.js';
import { median } from './lib/stats.js';

const ALL_SIZES = [8, 4096, 65536, 1 << 20, 16 << 20];
/** BENCH_SIZES=8,1048576 limits the run to some sizes (diagnosis; ratios of absent sizes are null). */
const SIZES = process.env['BENCH_SIZES'] === undefined ? ALL_SIZES : process.env['BENCH_SIZES'].split(',').map(Number);
const RUNS = Number(process.env['BENCH_RUNS'] ?? 5);
const NO_CHECK = process.env['BENCH_NO_CHECK'] === '1'; // diagnosis only: skips the checksums
const SCALE = Number(process.env['BENCH_SCALE'] ?? 1);
/** Timed round trips per run, by size (raw and ttg alike). */
const ROUNDS = SIZES.map((b) => [10000, 4000, 1000, 150, 12][ALL_SIZES.indexOf(b)] ?? 12).map((n) => Math.max(2, Math.round(n * SCALE)));
/** Spin time of the CPU-stall probe that runs on both ranks before the sizes. */
const STALL_PROBE_MS = 500;
/** Untimed warm-up round trips before each run: what the raw loop does before timing. */
const warmRounds = (rounds: number): number => Math.min(rounds, 10);
/**
 * Untimed round trips once per size before its runs, in both loops: V8 is still compiling the
 * message path for the first thousands of hops of a size, and the other benches warm up on ~10,000
 * tasks for the same reason. 1 MiB is the first size sent from pool buffers: its first messages
 * take branches the smaller sizes never took, V8 deoptimizes the six functions that hold them
 * (`--trace-deopt`), and re-optimizes them 2,000-3,000 round trips later (`--trace-opt`; with
 * 1,000 warm-up rounds that landed in runs 5 to 9, which read 290-420 us against 240-260).
 */
const SIZE_WARM_ROUNDS = SIZES.map((b) => [2000, 2000, 2000, 3000, 100][ALL_SIZES.indexOf(b)] ?? 100);

relaunchUnderMpirun(import.meta.url);

// Before the comm thread exists, whose polls would count as gaps. The ranks start together, so
// both cores are busy at once, as in the runs.
const stalls = measureCpuStalls(STALL_PROBE_MS);

const world = await ttg.initialize();
const { rank, size } = world;
if (size !== 2) throw new Error(`pingpong needs exactly 2 ranks, got ${size}`);
const native = requireNative();
const { checksum } = baselines();

// ---- the ttg cycle: Ping(k) on rank 0 --> Pong(k) on rank 1 --> Ping(k + 1) ----
const seed = new ttg.Edge<number, Float64Array>('seed');
const toPong = new ttg.Edge<number, Float64Array>('to-pong');
const toPing = new ttg.Edge<number, Float64Array>('to-ping');
let runEnd = 0;
let runStart = 0;
/** First timed round of the run: rounds before it are warm-up. */
let timedFrom = 0;
let started: ((t: number) => void) | undefined;
/** Start time of each timed round on rank 0, while a run records single round trips (8 B). */
let roundStarts: Float64Array | undefined;
let finished: ((t: number) => void) | undefined;
let expected = 0;
let got = 0;
let checkMs = 0;
let badRound = 0;
let badSum = 0;
/** Payloads of the raw loop that failed the same check. */
let rawBad = 0;

function verify(a: Float64Array, round: number): void {
  if (a[0] !== round) badRound++;
  got++;
  if (a.length > 1 && !NO_CHECK && round >= timedFrom) {
    const t = performance.now();
    if (checksum(a.subarray(1)) !== expected) badSum++;
    checkMs += performance.now() - t;
  }
}

const ping = ttg.make_tt((k: number, a: Float64Array, out) => {
  if (k !== runStart) verify(a, k - 1);
  if (roundStarts !== undefined && k >= timedFrom) roundStarts[k - timedFrom] = performance.now();
  if (k === timedFrom) started?.(performance.now());
  if (k === runEnd) {
    finished?.(performance.now());
    return;
  }
  a[0] = k;
  out.send(0, k, a);
}, [ttg.fuse(seed, toPing)], [toPong], { name: 'Ping', consume: [0] });
const pong = ttg.make_tt((k: number, a: Float64Array, out) => {
  verify(a, k);
  out.send(0, k + 1, a);
}, [toPong], [toPing], { name: 'Pong', consume: [0] });
ping.set_procmap(() => 0);
pong.set_procmap(() => 1);
ttg.make_graph_executable(ping, pong);
ttg.execute();


let nextKey = 0;

/**
 * One run: warm-up, then `rounds` timed round trips; returns microseconds per round trip (rank 0).
 * With `singles`, also appends each timed round trip's own duration to it.
 */
async function ttgRun(base: Float64Array, expect: number, rounds: number, singles?: number[]): Promise<number> {
  const warm = warmRounds(rounds);
  runStart = nextKey;
  timedFrom = runStart + warm;
  runEnd = timedFrom + rounds;
  nextKey = runEnd + 1;
  expected = expect;
  got = 0;
  checkMs = 0;
  const t0 = new Promise<number>((resolve) => (started = resolve));
  const done = new Promise<number>((resolve) => (finished = resolve));
  roundStarts = singles === undefined ? undefined : new Float64Array(rounds + 1);
  if (rank === 0) {
    const a = base.slice();
    a[0] = -1;
    ping.invoke(runStart, a);
  }
  await ttg.fence();
  const [check] = await held(native.allreduce(Float64Array.of(checkMs)));
  const us = rank === 0 ? ((await done) - (await t0) - check!) * 1000 / rounds : 0;
  started = undefined;
  finished = undefined;
  if (singles !== undefined && rank === 0) for (let i = 0; i < rounds; i++) singles.push((roundStarts![i + 1]! - roundStarts![i]!) * 1000);
  roundStarts = undefined;
  if (got !== warm + rounds) badRound++;
  return us;
}

const [stallPct, stallsPerMs, stallUs] = (await held(native.allreduce(Float64Array.of(stalls.pct, stalls.perMs, stalls.medianUs)))).map((x) => x / size);

const raw: number[] = [];
const viaTtg: number[] = [];
/** Single 8 B round trips of the ttg loop's timed runs (rank 0), in microseconds. */
const singles8: number[] = [];
for (let s = 0; s < SIZES.length; s++) {
  const bytes = SIZES[s]!;
  const base = new Float64Array(bytes / 8);
  for (let i = 0; i < base.length; i++) base[i] = i * 1.25 + bytes;
  const expect = base.length > 1 ? checksum(base.subarray(1)) : 0;
  await ttgRun(base, expect, SIZE_WARM_ROUNDS[s]!); // first use of this size: JIT, pool buffers
  rawBad += (await rawPingpong(1 - rank, bytes, SIZE_WARM_ROUNDS[s]!, !NO_CHECK))[1];
  const r: number[] = [];
  const t: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    await ttg.fence();
    const [seconds, failed] = await rawPingpong(1 - rank, bytes, ROUNDS[s]!, !NO_CHECK);
    r.push(seconds * 1e6);
    rawBad += failed;
    t.push(await ttgRun(base, expect, ROUNDS[s]!, bytes === 8 ? singles8 : undefined));
  }
  raw.push(median(r));
  viaTtg.push(median(t));
}

// ---- idle CPU of a waiting rank: rank 0 waits in fence() while rank 1 computes for IDLE_MS ----
const IDLE_MS = 1500;
const idleCpu = await idleCpuPct(rank, IDLE_MS);

const bad = await held(native.allreduce(Float64Array.of(badRound, badSum + rawBad)));
await ttg.finalize();

if (rank === 0) {
  const r2 = (x: number) => Math.round(x * 100) / 100;
  const human = (b: number) => (b >= 1 << 20 ? `${b >> 20} MiB` : b >= 1024 ? `${b >> 10} KiB` : `${b} B`);
  console.log(`ping-pong, 2 ranks, round trip (median of ${RUNS} runs), payload verified: ${bad[0] === 0 && bad[1] === 0 ? 'ok' : `FAILED (${bad[0]} rounds, ${bad[1]} checksums)`}`);
  console.log('size        raw_us     ttg_us   raw/ttg   ttg GB/s');
  for (let s = 0; s < SIZES.length; s++) {
    const b = SIZES[s]!;
    console.log(`${human(b).padEnd(8)} ${r2(raw[s]!).toFixed(2).padStart(9)} ${r2(viaTtg[s]!).toFixed(2).padStart(10)} ${(raw[s]! / viaTtg[s]!).toFixed(3).padStart(9)} ${((2 * b) / (viaTtg[s]! * 1000)).toFixed(3).padStart(10)}`);
  }
  if (singles8.length > 0) console.log(`8 B: median single round trip ${r2(median(singles8))} us, mean of runs ${r2(viaTtg[SIZES.indexOf(8)]!)} us`);
  console.log(`idle rank (waiting in fence while the peer computes ${IDLE_MS} ms): ${idleCpu.toFixed(1)}% of a core`);
  console.log(`machine: a spinning thread lost ${stallPct!.toFixed(1)}% of its time, ${stallsPerMs!.toFixed(1)} gaps per ms of ${stallUs!.toFixed(1)} us (median)`);
  if (bad[0] !== 0 || bad[1] !== 0) process.exitCode = 1;
  const i1m = SIZES.indexOf(1 << 20);
  const i16m = SIZES.indexOf(16 << 20);
  console.log(JSON.stringify({
    sizes: SIZES,
    raw_us: raw.map(r2),
    ttg_us: viaTtg.map(r2),
    bw_ratio_1m: Math.round((raw[i1m]! / viaTtg[i1m]!) * 1000) / 1000,
    bw_ratio_16m: Math.round((raw[i16m]! / viaTtg[i16m]!) * 1000) / 1000,
    lat_overhead_us: r2(viaTtg[0]! - raw[0]!),
    lat_overhead_p50_us: singles8.length === 0 ? null : r2(median(singles8) - raw[SIZES.indexOf(8)]!),
    idle_cpu_pct: Math.round(idleCpu * 10) / 10,
    cpu_stall_pct: Math.round(stallPct! * 10) / 10,
    cpu_stalls_per_ms: Math.round(stallsPerMs! * 10) / 10,
    cpu_stall_us: Math.round(stallUs! * 10) / 10,
    payload_ok: bad[0] === 0 && bad[1] === 0,
  }));
}
