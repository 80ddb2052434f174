/**
 * Fine-grained irregular work across ranks, written the natural ttg way (`npm run -s
 * bench:irregular`): the launcher runs itself under `mpirun -np 1` and `-np 2`, alternated, and
 * prints per rank rates, medians of BENCH_RUNS processes (default 3) of the medians of BENCH_ROUNDS
 * timed rounds each (default 3, after one warm-up round of a tenth of the size), and the
 * 2-rank/1-rank ratios.
 *
 *   histogram:   GEN [r] ──(k, 1)──▶ COUNT [k]       a reducing input (+) per counter, ending at the fence
 *   hand:        GEN [r] ──Int32Array of counters──▶ BUCKET [r, dst]   the same, aggregated by the program
 *   gather:      GEN [r] ──(i)──▶ REQ [i, r, j] ──table[i]──▶ GOT [r, j]   a task per request, on the owner of i
 *   spread:      GEN [r] ──(k, v)──▶ SINK [k]        a task per send, keys spread over the ranks
 *
 * Counters, indices and keys are random (a fixed seed per rank); every count and every gathered
 * value is checked. At 2 ranks the histogram and the gather also run in plain MPI on ttg's comm
 * thread (rawIrregular of bench/lib/baselines.ts), same shapes and sizes, checked alike: `naive`, a
 * message per remote update or request (and per reply), and `buffered`, exstack-style buffers of
 * MPI_BUFFER records per destination.
 *
 * Last line: `{ ranks, histogram_mups, hand_mups, gather_mrps, spread_msps, ratio_2_to_1, mpi,
 * ttg_to_mpi }`: each ttg figure is `[1 rank, 2 ranks]` per rank (M updates, requests or sends per
 * second); `mpi` holds the 2-rank plain-MPI figures per rank, `{ histogram_naive,
 * histogram_buffered, gather_naive, gather_buffered }`, and `ttg_to_mpi` the 2-rank ttg figure of
 * the natural form (histogram or gather) divided by each. Environment: BENCH_RUNS, BENCH_ROUNDS, BENCH_UPDATES
 * (per rank, default 400,000), BENCH_REQUESTS (per rank, 100,000), BENCH_SENDS (per rank,
 * 100,000), TTG_AGGREGATE_BYTES.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import * as ttg from 'ttg';

import { rawIrregular, type IrregularKind, type IrregularVariant } from './lib/baselines.js';
import { mpirunCommand } from './lib/mpirun.js';
import { xorshift32 } from './lib/xorshift.js';
import { median } from './lib/stats.js';

const RUNS = Number(process.env['BENCH_RUNS'] ?? 3);
/** Timed rounds of each pattern in one process, after its warm-up round. */
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const UPDATES = Number(process.env['BENCH_UPDATES'] ?? 400_000);
const REQUESTS = Number(process.env['BENCH_REQUESTS'] ?? 100_000);
const SENDS = Number(process.env['BENCH_SENDS'] ?? 100_000);
const COUNTERS_PER_RANK = 1000;
const TABLE_PER_RANK = 10_000;
/** Records per destination buffer of the buffered MPI baselines. */
const MPI_BUFFER = 1024;

type Figures = { histogram: number; hand: number; gather: number; spread: number };
const NAMES: Array<keyof Figures> = ['histogram', 'hand', 'gather', 'spread'];
type MpiName = `${IrregularKind}_${IrregularVariant}`;
const MPI_NAMES: MpiName[] = ['histogram_naive', 'histogram_buffered', 'gather_naive', 'gather_buffered'];
/** A run's line: the ttg figures, and at 2 ranks the plain-MPI ones as `mpi_<kind>_<variant>`. */
type Line = Figures & Partial<Record<`mpi_${MpiName}`, number>>;

if (process.env['OMPI_COMM_WORLD_SIZE'] === undefined) launch();
else await measure();

/** Runs this file at 1 and 2 ranks, alternated, and prints the medians. */
function launch(): void {
  const seen: Record<number, Line[]> = { 1: [], 2: [] };
  for (let r = 0; r < RUNS; r++) {
    for (const np of [1, 2]) {
      const c = mpirunCommand(np, fileURLToPath(import.meta.url));
      const run = spawnSync(c.command, c.args, { encoding: 'utf8', env: c.env, timeout: 600_000 });
      const line = run.stdout.split('\n').find((l) => l.startsWith('{'));
      if (run.status !== 0 || line === undefined) {
        process.stderr.write(`${run.stdout}\n${run.stderr}`);
        throw new Error(`bench:irregular at ${np} ranks failed (status ${run.status})`);
      }
      seen[np]!.push(JSON.parse(line) as Line);
    }
  }
  const round3 = (x: number): number => Math.round(x * 1000) / 1000;
  const med = (np: number, k: keyof Line): number => round3(median(seen[np]!.map((f) => f[k]!)));
  const out: Record<string, unknown> = { ranks: [1, 2] };
  console.log('per rank, M/s      1 rank   2 ranks   2/1');
  for (const k of NAMES) {
    out[`${k}_${k === 'gather' ? 'mrps' : k === 'spread' ? 'msps' : 'mups'}`] = [med(1, k), med(2, k)];
    console.log(`${k.padEnd(16)} ${med(1, k).toFixed(3).padStart(8)} ${med(2, k).toFixed(3).padStart(8)} ${(med(2, k) / med(1, k)).toFixed(3).padStart(6)}`);
  }
  out['ratio_2_to_1'] = Object.fromEntries(NAMES.map((k) => [k, round3(med(2, k) / med(1, k))]));
  console.log('plain MPI, 2 ranks, per rank, M/s   ttg/MPI');
  const mpi: Record<string, number> = {};
  const ttgToMpi: Record<string, number> = {};
  for (const m of MPI_NAMES) {
    mpi[m] = med(2, `mpi_${m}`);
    ttgToMpi[m] = round3(med(2, m.startsWith('histogram') ? 'histogram' : 'gather') / mpi[m]!);
    console.log(`mpi_${m.padEnd(20)} ${mpi[m]!.toFixed(3).padStart(8)} ${ttgToMpi[m]!.toFixed(3).padStart(9)}`);
  }
  out['mpi'] = mpi;
  out['ttg_to_mpi'] = ttgToMpi;
  console.log(JSON.stringify(out));
}

/** One process of the run: every pattern once, rates per rank on rank 0's line. */
async function measure(): Promise<void> {
  const world = await ttg.initialize();
  const { rank, size } = world;
  const random = xorshift32(12345 + 7919 * rank);

  // histogram, natural form
  const hgo = new ttg.Edge<number, number>('hgo');
  const upd = new ttg.Edge<number, number>('upd');
  const hgen = ttg.make_tt((_k: number, n: number, out) => {
    const counters = COUNTERS_PER_RANK * size;
    for (let i = 0; i < n; i++) out.send(0, random() % counters, 1);
  }, [hgo], [upd], { name: 'GEN' });
  hgen.set_procmap((k) => k);
  let counted = 0;
  const count = ttg.make_tt((_k: number, c: number) => {
    counted += c;
  }, [upd], [], { name: 'COUNT' });
  count.set_procmap((k) => k % size);
  count.set_input_reducer(0, (a: number, v: number) => a + v, 'fence');

  // histogram, aggregated by the program
  const ago = new ttg.Edge<number, number>('ago');
  const bucket = new ttg.Edge<[number, number], Int32Array>('bucket');
  const local = new Int32Array(COUNTERS_PER_RANK);
  const agen = ttg.make_tt((k: number, n: number, out) => {
    const lists = Array.from({ length: size }, () => new Int32Array(n));
    const fill = new Int32Array(size);
    for (let i = 0; i < n; i++) {
      const c = random() % (COUNTERS_PER_RANK * size);
      const d = c % size;
      lists[d]![fill[d]!++] = (c - d) / size;
    }
    for (let d = 0; d < size; d++) out.send(0, [k, d], lists[d]!.subarray(0, fill[d]!));
  }, [ago], [bucket], { name: 'AGEN' });
  agen.set_procmap((k) => k);
  const bucketTT = ttg.make_tt((_k: [number, number], idx: Int32Array) => {
    for (let i = 0; i < idx.length; i++) local[idx[i]!]!++;
  }, [bucket], [], { name: 'BUCKET' });
  bucketTT.set_procmap((k) => k[1]);

  // index-gather, natural form: the owner of index i answers with table[i]
  const ggo = new ttg.Edge<number, number>('ggo');
  const req = new ttg.Edge<[number, number, number], void>('req');
  const got = new ttg.Edge<[number, number], number>('got');
  const table = Float64Array.from({ length: TABLE_PER_RANK }, (_, j) => (j * size + rank) * 0.5);
  const asked = new Int32Array(REQUESTS);
  const ggen = ttg.make_tt((_k: number, n: number, out) => {
    for (let j = 0; j < n; j++) {
      const i = random() % (TABLE_PER_RANK * size);
      asked[j] = i;
      out.sendk(0, [i, rank, j]);
    }
  }, [ggo], [req], { name: 'GGEN' });
  ggen.set_procmap((k) => k);
  const reqTT = ttg.make_tt((k: [number, number, number], _c: void, out) => {
    out.send(0, [k[1], k[2]], table[(k[0] - rank) / size]!);
  }, [req], [got], { name: 'REQ' });
  reqTT.set_procmap((k) => k[0] % size);
  let wrong = 0;
  let answered = 0;
  const gotTT = ttg.make_tt((k: [number, number], v: number) => {
    answered++;
    if (v !== asked[k[1]]! * 0.5) wrong++;
  }, [got], [], { name: 'GOT' });
  gotTT.set_procmap((k) => k[0]);

  // spread sends: a task per send
  const sgo = new ttg.Edge<number, number>('sgo');
  const spread = new ttg.Edge<number, number>('spread');
  const sgen = ttg.make_tt((_k: number, n: number, out) => {
    for (let i = 0; i < n; i++) out.send(0, rank * n + i, i);
  }, [sgo], [spread], { name: 'SGEN' });
  sgen.set_procmap((k) => k);
  let sunk = 0;
  const sink = ttg.make_tt((_k: number, _v: number) => {
    sunk++;
  }, [spread], [], { name: 'SINK' });
  sink.set_procmap((k) => (k * 2654435761) % size);

  ttg.make_graph_executable(hgen, count, agen, bucketTT, ggen, reqTT, gotTT, sgen, sink);
  ttg.execute();

  /** Seconds for `start` and the fence after it, all ranks starting together. */
  const timed = async (start: () => void): Promise<number> => {
    await world.barrier();
    const t0 = performance.now();
    start();
    await ttg.fence();
    return (performance.now() - t0) / 1000;
  };
  const check = async (what: string, mine: number, want: number): Promise<void> => {
    const all = await world.allreduce(mine);
    if (all !== want) throw new Error(`bench:irregular: ${what} is ${all}, expected ${want}`);
  };

  // one untimed round of each first, a tenth of the size, then ROUNDS timed ones (medians): the
  // first rounds of full size still run partly unoptimized code
  const seen: Record<keyof Figures, number[]> = { histogram: [], hand: [], gather: [], spread: [] };
  for (let round = 0; round <= ROUNDS; round++) {
    const warm = round === 0;
    const scale = warm ? 10 : 1;
    counted = 0;
    const th = await timed(() => hgen.invoke(rank, UPDATES / scale));
    await check('the histogram total', counted, (UPDATES / scale) * size);
    local.fill(0);
    const ta = await timed(() => agen.invoke(rank, UPDATES / scale));
    await check('the hand-aggregated total', local.reduce((a, b) => a + b, 0), (UPDATES / scale) * size);
    answered = 0;
    const tg = await timed(() => ggen.invoke(rank, REQUESTS / scale));
    await check('the gathered values', answered - wrong, (REQUESTS / scale) * size);
    sunk = 0;
    const ts = await timed(() => sgen.invoke(rank, SENDS / scale));
    await check('the spread sends', sunk, (SENDS / scale) * size);
    if (warm) continue;
    seen.histogram.push(UPDATES / th / 1e6);
    seen.hand.push(UPDATES / ta / 1e6);
    seen.gather.push(REQUESTS / tg / 1e6);
    seen.spread.push(SENDS / ts / 1e6);
  }
  const line: Line = { histogram: median(seen.histogram), hand: median(seen.hand), gather: median(seen.gather), spread: median(seen.spread) };
  if (size === 2) {
    for (const m of MPI_NAMES) {
      const [kind, variant] = m.split('_') as [IrregularKind, IrregularVariant];
      const n = kind === 'histogram' ? UPDATES : REQUESTS;
      const perRank = kind === 'histogram' ? COUNTERS_PER_RANK : TABLE_PER_RANK;
      const rates: number[] = [];
      for (let round = 0; round <= ROUNDS; round++) {
        const picks = round === 0 ? Math.floor(n / 10) : n;
        const run = await rawIrregular(kind, variant, picks, perRank, MPI_BUFFER);
        // histogram: the counters of all ranks; gather: the requests answered wrongly or not at all
        await check(`plain MPI ${m}`, run.check, kind === 'histogram' ? picks * size : 0);
        if (round > 0) rates.push(n / run.seconds / 1e6);
      }
      line[`mpi_${m}`] = median(rates);
    }
  }
  if (rank === 0) console.log(JSON.stringify(line));
  await ttg.finalize();
}
