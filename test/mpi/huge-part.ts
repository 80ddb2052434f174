/**
 * Program for test/mpi/huge-part.test.ts (`mpirun -np 2`): rank 0 gives rank 1 one Float64Array of
 * `argv[3]` GiB, as `argv[2]` says: `array`, sent plain (the comm thread receives it into memory of
 * its own); `buffer`, sent inside an object as a ttg.Buffer (JS receives it into the array the
 * Buffer's metadata allocates); `bcast`, by `world.broadcast`. Element i holds i + 0.25, so a chunk
 * received in the wrong place or not at all shows. Both ranks check every element (the sender after
 * the fence: the send did not change its array) and print one JSON line `{ rank, ok, bytes, seconds }`.
 *
 *   rank 0: SRC ──array (send, or broadcast)──▶ rank 1: DST (checks every element)
 */
import * as ttg from 'ttg';

const mode = process.argv[2] ?? 'array';
const bytes = Math.round(Number(process.argv[3] ?? 2.25) * 2 ** 30 / 8) * 8;
const world = await ttg.initialize();

function check(a: Float64Array): boolean {
  if (a.length * 8 !== bytes) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== i + 0.25) return false;
  return true;
}

let ok = world.rank === 0;
type Value = Float64Array | { tag: string; buf: ttg.Buffer };
const e = new ttg.Edge<number, Value>('huge');
const dst = ttg.make_tt((_k: number, v: Value) => {
  ok = v instanceof Float64Array ? check(v) : v.tag === 'big' && check(v.buf.host as Float64Array);
}, [e], [], { name: 'DST' }).set_procmap(() => 1);
ttg.make_graph_executable(dst);
let sent: Float64Array | undefined;
if (world.rank === 0) {
  sent = new Float64Array(bytes / 8);
  for (let i = 0; i < sent.length; i++) sent[i] = i + 0.25;
}
await world.barrier();
const t0 = performance.now();
if (mode === 'bcast') {
  const got = await world.broadcast(sent, 0);
  if (world.rank === 1) ok = got instanceof Float64Array && check(got);
} else {
  if (world.rank === 0) dst.in(0).send(0, mode === 'buffer' ? { tag: 'big', buf: new ttg.Buffer(sent!) } : sent!);
  ttg.execute();
  await ttg.fence();
}
const seconds = (performance.now() - t0) / 1000;
if (world.rank === 0) ok = check(sent!);
console.log(JSON.stringify({ rank: world.rank, ok, bytes, seconds }));
await ttg.finalize();
