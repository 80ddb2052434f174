/**
 * Program for test/mpi/many-parts.test.ts (`mpirun -np 2`): rank 0 sends rank 1 one value holding
 * `argv[2]` small typed arrays (each 1–4 elements, a few kinds, and one large array among them);
 * rank 1 checks every element and prints one JSON line `{ ok, parts, seconds, total }`: the time
 * from the send to the start of the receiving body (`seconds`, the codec and the transfer), and to
 * the end of the fence (`total`, with the check).
 *
 *   rank 0: SRC ──value (N small arrays + 1 large)──▶ rank 1: DST (checks every element)
 */
import * as ttg from 'ttg';

const N = Number(process.argv[2] ?? 100_000);
const world = await ttg.initialize();

function make(): { small: ArrayBufferView[]; big: Float64Array } {
  const small: ArrayBufferView[] = [];
  for (let i = 0; i < N; i++) {
    const n = 1 + (i % 4);
    small.push(i % 3 === 0 ? Float64Array.from({ length: n }, (_, j) => i + j / 8)
      : i % 3 === 1 ? Int32Array.from({ length: n }, (_, j) => -i - j) : Uint8Array.from({ length: n }, (_, j) => (i + j) & 255));
  }
  return { small, big: Float64Array.from({ length: 1 << 16 }, (_, j) => j * 0.5) };
}

const bytes = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
function same(a: ArrayBufferView, b: ArrayBufferView): boolean {
  if (a.constructor !== b.constructor || a.byteLength !== b.byteLength) return false;
  const x = bytes(a), y = bytes(b);
  for (let j = 0; j < x.length; j++) if (x[j] !== y[j]) return false;
  return true;
}

let ok = false;
let arrived = 0;
const e = new ttg.Edge<number, ReturnType<typeof make>>('many');
const dst = ttg.make_tt((_k: number, v: ReturnType<typeof make>) => {
  arrived = performance.now();
  const want = make();
  ok = v.small.length === N && same(v.big, want.big) && v.small.every((a, i) => same(a, want.small[i]!));
}, [e], [], { name: 'DST' }).set_procmap(() => 1);
ttg.make_graph_executable(dst);
const value = world.rank === 0 ? make() : undefined;
await world.barrier();
const t0 = performance.now();
if (world.rank === 0) dst.in(0).send(0, value!);
ttg.execute();
await ttg.fence();
const total = (performance.now() - t0) / 1000;
if (world.rank === 1) console.log(JSON.stringify({ ok, parts: N + 1, seconds: (arrived - t0) / 1000, total }));
await ttg.finalize();
