/**
 * Main-thread cost per task, by kind of task, cold and warm (`npm run -s bench:taskcost`): the
 * event loop's active time (`performance.eventLoopUtilization`) per task, so the time kernels run on
 * pool threads and the time JS waits for them are left out. Cold is the first 1,000 tasks of a fresh
 * process, warm 20,000 tasks after 20,000 others; each kind in BENCH_RUNS (default 3) fresh
 * processes, medians.
 *
 *   host:      H(k) ──▶ H(k+1)                      a plain body that sends on
 *   async:     A(k) ──▶ A(k+1)                      an async body
 *   device:    D(k) ──▶ D(k+1)                      input(b) → dscal on 8 doubles → kernel(b), host backend
 *   devfan:    F(0), F(1), … F(n-1)                  the same body, n independent tasks on 64 buffers
 *   broadcast: B(k) ══▶ R(k, 0..15)                 one broadcast to 16 tasks (per receiving task)
 *   join:      S(k) ──▶ J(k) ◀── T(k)               two senders fill a two-input task (per J task)
 *
 * Last line: `{ kinds, cold_us, warm_us }`.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import * as ttg from 'ttg';

import { median } from './lib/stats.js';

const KINDS = ['host', 'async', 'device', 'devfan', 'broadcast', 'join'] as const;
type Kind = (typeof KINDS)[number];
const COLD = 1000;
const WARM = 20_000;
const RUNS = Number(process.env['BENCH_RUNS'] ?? 3);

/** Makes a graph of `kind` and returns a function that runs n of its tasks from key `from`. */
function build(kind: Kind): (from: number, n: number) => void {
  if (kind === 'broadcast') {
    const go = new ttg.Edge<number, number>('go');
    const fan = new ttg.Edge<[number, number], number>('fan');
    const src = ttg.make_tt((k: number, v: number, out) => out.broadcast(0, Array.from({ length: 16 }, (_, i): [number, number] => [k, i]), v), [go], [fan], { name: 'B' });
    const dst = ttg.make_tt((_k: [number, number], _v: number) => {}, [fan], [], { name: 'R' });
    ttg.make_graph_executable(src, dst);
    return (from, n) => { for (let k = from; k < from + n / 16; k++) src.invoke(k, k); };
  }
  if (kind === 'devfan') {
    const bufs = Array.from({ length: 64 }, () => new ttg.Buffer(new Float64Array(8).fill(1)));
    const go = new ttg.Edge<number, number>('go');
    const f = ttg.make_tt(function* (k: number) {
      const b = bufs[k % bufs.length]!;
      const { stream } = (yield ttg.device.input(b)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, 8, 1, b);
      yield ttg.device.kernel(b);
    }, [go], [], { name: 'F' });
    ttg.make_graph_executable(f);
    return (from, n) => { for (let k = from; k < from + n; k++) f.invoke(k, k); };
  }
  if (kind === 'join') {
    const a = new ttg.Edge<number, number>('a');
    const b = new ttg.Edge<number, number>('b');
    const ga = new ttg.Edge<number, number>('ga');
    const gb = new ttg.Edge<number, number>('gb');
    const s = ttg.make_tt((k: number, v: number, out) => out.send(0, k, v), [ga], [a], { name: 'S' });
    const t = ttg.make_tt((k: number, v: number, out) => out.send(0, k, v), [gb], [b], { name: 'T' });
    const j = ttg.make_tt((_k: number, _x: number, _y: number) => {}, [a, b], [], { name: 'J' });
    ttg.make_graph_executable(s, t, j);
    return (from, n) => { for (let k = from; k < from + n; k++) { s.invoke(k, k); t.invoke(k, k); } };
  }
  const self = new ttg.Edge<number, number>('next');
  const seed = new ttg.Edge<number, number>('seed');
  let end = 0;
  let body: ttg.Body<number, readonly [ttg.Edge<number, number>], readonly [typeof self]>;
  if (kind === 'host') body = (k, v, out) => { if (k + 1 < end) out.send(0, k + 1, v); };
  else if (kind === 'async') body = async (k, v, out) => { if (k + 1 < end) out.send(0, k + 1, v); };
  else {
    const buf = new ttg.Buffer(new Float64Array(8).fill(1));
    body = function* (k, v, out) {
      const { stream } = (yield ttg.device.input(buf)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, 8, 1, buf);
      yield ttg.device.kernel(buf);
      if (k + 1 < end) out.send(0, k + 1, v);
    };
  }
  const tt = ttg.make_tt(body, [ttg.fuse(seed, self)], [self], { name: kind });
  ttg.make_graph_executable(tt);
  return (from, n) => { end = from + n; tt.invoke(from, 0); };
}

/** Microseconds of event-loop activity per task for n tasks from key `from`. */
async function measure(run: (from: number, n: number) => void, from: number, n: number): Promise<number> {
  const before = performance.eventLoopUtilization();
  run(from, n);
  ttg.execute();
  await ttg.fence();
  const d = performance.eventLoopUtilization(before);
  return (d.active * 1000) / n;
}

const kindArg = process.argv[2] as Kind | undefined;
if (kindArg === undefined) {
  const cold: number[] = [];
  const warm: number[] = [];
  for (const kind of KINDS) {
    const c: number[] = [];
    const w: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      const run = spawnSync(process.execPath, [fileURLToPath(import.meta.url), kind], { encoding: 'utf8', env: { ...process.env, TTG_DEVICE: 'host:::1' } });
      const last = run.stdout.trim().split('\n').pop() ?? '';
      if (run.status !== 0 || !last.startsWith('{')) throw new Error(`${kind} failed:\n${run.stderr}`);
      const x = JSON.parse(last) as { cold: number; warm: number };
      c.push(x.cold);
      w.push(x.warm);
    }
    cold.push(median(c));
    warm.push(median(w));
  }
  const r2 = (x: number) => Math.round(x * 100) / 100;
  console.log('main-thread µs per task (event loop active time), median of fresh processes');
  console.log('kind         cold     warm');
  KINDS.forEach((k, i) => console.log(`${k.padEnd(10)} ${r2(cold[i]!).toFixed(2).padStart(7)} ${r2(warm[i]!).toFixed(2).padStart(8)}`));
  console.log(JSON.stringify({ kinds: KINDS, cold_us: cold.map(r2), warm_us: warm.map(r2) }));
} else {
  await ttg.initialize();
  const run = build(kindArg);
  const cold = await measure(run, 0, COLD);
  await measure(run, 1_000_000, WARM);
  const warm = await measure(run, 2_000_000, WARM);
  await ttg.finalize();
  console.log(JSON.stringify({ cold, warm }));
}
