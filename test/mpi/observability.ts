/**
 * Observability and robustness under mpirun (run by test/observability.test.ts). Modes:
 *
 *   hang     the last rank's async body never settles, rank 0 holds a task in a constraint and one
 *            missing an input: with TTG_HANG_TIMEOUT=1 every rank prints its report and its fence
 *            rejects with E_HANG (`REJECTED <json>`); then the process exits (the job ends non-zero)
 *   strict   every rank holds a task missing an input: fence({ strict: true }) rejects with
 *            E_INCOMPLETE on every rank, and the world keeps working (`STRICT <json>`)
 *   corrupt  TTG_CHECKSUM=1: one clean exchange, then rank 0 flips a payload byte after the checksum
 *            was taken: every fence rejects with E_CORRUPT naming edge, key and source rank
 *   kill     rank 1 SIGKILLs itself while values circulate: mpirun must end the job, non-zero
 *   trace    TTG_TRACE=<file>: tasks on every rank, messages between them, device kernels
 *
 *   W(k) on rank k % size ──payload──▶ V(k) on rank (k+1) % size
 */
import * as ttg from 'ttg';
import { payloadProbe } from '../../src/transport/mpi.js';

const mode = process.argv[2] ?? 'trace';
const world = await ttg.initialize(mode === 'trace' ? { device: { backend: 'host', streams: 2 } } : {});
const { rank, size } = world;

function pair(name: string, body?: (k: number, v: Float64Array) => void | Promise<void>) {
  const go = new ttg.Edge<number, Float64Array>(`${name}-go`);
  const payload = new ttg.Edge<number, Float64Array>('payload');
  const got: number[] = [];
  const w = ttg.make_tt((k: number, v: Float64Array, out) => out.send(0, k, v), [go], [payload], { name: `${name}W` });
  const v = ttg.make_tt((k: number, x: Float64Array) => {
    got.push(k);
    return body?.(k, x);
  }, [payload], [], { name: `${name}V` });
  w.set_procmap((k) => k % size);
  v.set_procmap((k) => (k + 1) % size);
  ttg.make_graph_executable(w, v);
  return { w, v, got };
}

async function report(tag: string, p: Promise<unknown>): Promise<boolean> {
  try {
    await p;
    console.log(`${tag} ${JSON.stringify({ rank, ok: true })}`);
    return true;
  } catch (e) {
    const err = e as ttg.TtgError;
    console.log(`${tag} ${JSON.stringify({ rank, code: err.code, message: err.message })}`);
    return false;
  }
}

if (mode === 'hang') {
  const c = new ttg.SequencedKeysConstraint((k: number) => k);
  const start = new ttg.Edge<number, number>('start');
  const half = new ttg.Edge<number, number>('half');
  const never = new ttg.Edge<number, number>('never');
  const stuck = ttg.make_tt(async (_k: number, _v: number) => {
    if (rank === size - 1) await new Promise(() => {});
  }, [start], [], { name: 'Stuck' });
  const held = ttg.make_tt((_k: number, _v: number) => {}, [new ttg.Edge<number, number>('held-in')], [], { name: 'Held' });
  const feed = ttg.make_tt((k: number, v: number, out) => out.send(0, k, v), [new ttg.Edge<number, number>('feed-in')], [half], { name: 'Feed' });
  const lonely = ttg.make_tt((_k: number, _a: number, _b: number) => {}, [half, never], [], { name: 'Lonely' });
  held.add_constraint(c);
  c.release(0);
  for (const tt of [stuck, held, feed, lonely]) tt.set_procmap(() => rank);
  ttg.make_graph_executable(stuck, held, feed, lonely);
  stuck.invoke(rank, 0);
  held.invoke(5, 0);
  feed.invoke(7, 0);
  const t0 = performance.now();
  const ok = await report('REJECTED', ttg.fence({ quiet: true }));
  console.log(`SECONDS ${JSON.stringify({ rank, s: (performance.now() - t0) / 1000 })}`);
  process.exit(ok ? 0 : 3);
} else if (mode === 'strict') {
  const a = new ttg.Edge<number, number>('a');
  const b = new ttg.Edge<number, number>('b');
  const j = ttg.make_tt((_k: number, _x: number, _y: number) => {}, [a, b], [], { name: 'J' });
  j.set_procmap((k) => k % size);
  ttg.make_graph_executable(j);
  // each rank sends input 0 of J(rank + size) from another rank: every rank ends with one incomplete task
  const feed = ttg.make_tt((k: number, _v: number, out) => out.send(0, k, 1), [new ttg.Edge<number, number>('f')], [a], { name: 'Feed' });
  feed.set_procmap(() => (rank + 1) % size);
  ttg.make_graph_executable(feed);
  feed.invoke(rank + size, 0);
  await report('STRICT', ttg.fence({ strict: true }));
  const { w, got } = pair('after');
  if (rank === 0) for (let k = 0; k < 2 * size; k++) w.invoke(k, Float64Array.of(k));
  await ttg.fence();
  console.log(`AFTER ${JSON.stringify({ rank, got: got.length })}`);
  await ttg.finalize();
} else if (mode === 'corrupt') {
  const clean = pair('clean');
  // larger than a header carries inline (input-header.ts): the checksum covers a payload part
  if (rank === 0) for (let k = 0; k < 2 * size; k++) clean.w.invoke(k, new Float64Array(256).fill(k));
  await report('CLEAN', ttg.fence());
  const bad = pair('bad');
  if (rank === 0) {
    payloadProbe.onSend = (parts) => {
      const p = parts[0];
      if (p === undefined) return;
      new Uint8Array(p.buffer, p.byteOffset, p.byteLength)[3]! ^= 0x40;  // after the checksum was taken
      payloadProbe.onSend = undefined;
    };
    bad.w.invoke(size * 10, new Float64Array(256).fill(1));  // W on rank 0 sends V(10 size) to rank 1
  }
  const ok = await report('REJECTED', ttg.fence());
  process.exit(ok ? 0 : 3);
} else if (mode === 'kill') {
  const ring = new ttg.Edge<number, number>('ring');
  const r = ttg.make_tt((i: number, v: number, out) => {
    if (rank === 1 && i > 200) process.kill(process.pid, 'SIGKILL');
    if (i < 1_000_000) out.send(0, i + 1, v);
  }, [ring], [ring], { name: 'Ring' });
  r.set_procmap((i) => i % size);
  ttg.make_graph_executable(r);
  if (rank === 0) r.invoke(0, 0);
  await ttg.fence();
  console.log(`NOT-KILLED ${rank}`);
  await ttg.finalize();
} else {
  const { w, got } = pair('t');
  const dev = new ttg.Edge<number, number>('dev');
  const d = ttg.make_tt(function* (k: number, _v: number) {
    const x = new ttg.Buffer(new Float64Array(64 * 64).fill(1));
    const { stream } = yield ttg.device.input(x);
    ttg.device.kernels.dscal(stream, 64 * 64, 2, x);
    yield ttg.device.kernel(x);
  }, [dev], [], { name: 'Dev' });
  d.set_procmap((k) => k % size);
  ttg.make_graph_executable(d);
  if (rank === 0) for (let k = 0; k < 4 * size; k++) w.invoke(k, Float64Array.of(k));
  if (rank === 0) for (let k = 0; k < 2 * size; k++) d.invoke(k, 0);
  await ttg.fence();
  console.log(`TRACE ${JSON.stringify({ rank, got: got.length })}`);
  await ttg.finalize();
}
