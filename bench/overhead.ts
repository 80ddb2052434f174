/**
 * Hot-path overhead of the core runtime (task creation, key lookup, send, scheduling), one
 * process. Prints a human summary and, as its last line, one JSON object (SPEC §7):
 * chain_sync_ns, chain_async_ns, chain_gen_ns, stencil_ns, reduce_ns, chain_rss_mb.
 *
 *   chain:    C(k) --send(k+1)--> C(k+1)    (a 1,000,000-task cycle through a fused edge)
 *   stencil:  S(t,x) --> S(t+1,x-1), S(t+1,x), S(t+1,x+1)   (width 16, periodic, 3 inputs/task)
 *   reduce:   leaves --> R(n) --(sum)--> R(n>>1) --> ... --> R(1)   (binary fan-in, count 2)
 */
import * as ttg from 'ttg';
import { median } from './lib/stats.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const CHAIN = 1_000_000;

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

async function timeIt(setup: () => () => void): Promise<number> {
  gc();
  const start = setup();
  const t0 = process.hrtime.bigint();
  start();
  await ttg.fence();
  return Number(process.hrtime.bigint() - t0);
}

type ChainKind = 'sync' | 'async' | 'gen';

async function chain(kind: ChainKind, n: number): Promise<number> {
  const ns = await timeIt(() => {
    const fromSelf = new ttg.Edge<number, number>('next');
    const seed = new ttg.Edge<number, number>('seed');
    const plain = (k: number, v: number, out: ttg.Out<[typeof fromSelf]>) => { if (k < n) out.send(0, k + 1, v + 1); };
    const body = kind === 'sync' ? plain
      : kind === 'async' ? async (k: number, v: number, out: ttg.Out<[typeof fromSelf]>) => { if (k < n) out.send(0, k + 1, v + 1); }
        : function* (k: number, v: number, out: ttg.Out<[typeof fromSelf]>) { if (k < n) out.send(0, k + 1, v + 1); };
    const c = ttg.make_tt(body, [ttg.fuse(seed, fromSelf)], [fromSelf], { name: `chain_${kind}` });
    ttg.make_graph_executable(c);
    return () => { c.invoke(1, 0); ttg.execute(); };
  });
  return ns / n;
}

async function stencil(width: number, steps: number): Promise<number> {
  const ns = await timeIt(() => {
    const l = new ttg.Edge<[number, number], number>('left');
    const c = new ttg.Edge<[number, number], number>('center');
    const r = new ttg.Edge<[number, number], number>('right');
    const s = ttg.make_tt((key: [number, number], _a: number, _b: number, _c: number, out) => {
      const t = key[0] + 1;
      if (t === steps) return;
      const x = key[1];
      out.send(0, [t, x === width - 1 ? 0 : x + 1], x); // I am the left neighbour of x+1
      out.send(1, [t, x], x);
      out.send(2, [t, x === 0 ? width - 1 : x - 1], x); // and the right neighbour of x-1
    }, [l, c, r], [l, c, r], { name: 'stencil' });
    ttg.make_graph_executable(s);
    return () => {
      for (let x = 0; x < width; x++) s.invoke([0, x], 0, 0, 0);
      ttg.execute();
    };
  });
  return ns / (width * steps);
}

async function reduce(levels: number): Promise<number> {
  const leaves = 2 ** levels;
  let inputs = 0;
  let total = 0;
  const ns = await timeIt(() => {
    const up = new ttg.Edge<number, number>('up');
    const seed = new ttg.Edge<number, number>('leaf');
    const red = ttg.make_tt((k: number, sum: number, out) => {
      if (k === 1) total = sum;
      else out.send(0, k >> 1, sum);
    }, [ttg.fuse(seed, up)], [up], { name: 'reduce' });
    red.set_input_reducer(0, (a, b) => a + b, 2);
    ttg.make_graph_executable(red);
    inputs = 2 * leaves - 2; // every node but the root sends one value up
    return () => {
      for (let i = 0; i < leaves; i++) red.invoke((leaves + i) >> 1, 1);
      ttg.execute();
    };
  });
  if (total !== leaves) throw new Error(`reduction gave ${total}, expected ${leaves}`);
  return ns / inputs;
}

async function main(): Promise<void> {
  await ttg.initialize();
  const rss0 = process.memoryUsage().rss;
  const results: Record<string, number[]> = { chain_sync_ns: [], chain_async_ns: [], chain_gen_ns: [], stencil_ns: [], reduce_ns: [] };
  results.chain_sync_ns!.push(await chain('sync', CHAIN));
  const chainRssMb = process.resourceUsage().maxRSS / 1024;
  for (let r = 0; r < RUNS; r++) {
    if (r > 0) results.chain_sync_ns!.push(await chain('sync', CHAIN));
    results.chain_async_ns!.push(await chain('async', CHAIN));
    results.chain_gen_ns!.push(await chain('gen', CHAIN));
    results.stencil_ns!.push(await stencil(16, 20_000));
    results.reduce_ns!.push(await reduce(19));
  }
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(results)) out[k] = Math.round(median(v) * 10) / 10;
  out.chain_rss_mb = Math.round(chainRssMb * 10) / 10;
  console.log(`ttg overhead, median of ${RUNS} runs (ns per task; reduce: ns per input); start RSS ${(rss0 / 2 ** 20).toFixed(1)} MB`);
  for (const [k, v] of Object.entries(out)) console.log(`  ${k.padEnd(16)} ${v}`);
  console.log(JSON.stringify(out));
  await ttg.finalize();
}

await main();
