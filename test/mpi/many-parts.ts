/**
 * Program for test/mpi/many-parts.test.ts (`mpirun -np 2`): rank 0 sends rank 1 one value holding
 * `argv[2]` small typed arrays (each 1–4 elements, a few kinds, and one large array among them);
 * rank 1 checks every element and prints one JSON line `{ ok, parts, seconds }` (the time from
 * the send to the end of the fence on rank 1).
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

let ok = false;
const e = new ttg.Edge<number, ReturnType<typeof make>>('many');
const dst = ttg.make_tt((_k: number, v: ReturnType<typeof make>) => {
  const want = make();
  ok = v.small.length === N && v.big.every((x, j) => x === want.big[j]) &&
    v.small.every((a, i) => a.constructor === want.small[i]!.constructor && a.byteLength === want.small[i]!.byteLength &&
      new Uint8Array(a.buffer, a.byteOffset, a.byteLength).every((b, j) => b === new Uint8Array(want.small[i]!.buffer, want.small[i]!.byteOffset, want.small[i]!.byteLength)[j]));
}, [e], [], { name: 'DST' }).set_procmap(() => 1);
ttg.make_graph_executable(dst);
const value = world.rank === 0 ? make() : undefined;
await world.barrier();
const t0 = performance.now();
if (world.rank === 0) dst.in(0).send(0, value!);
ttg.execute();
await ttg.fence();
const seconds = (performance.now() - t0) / 1000;
if (world.rank === 1) console.log(JSON.stringify({ ok, parts: N + 1, seconds }));
await ttg.finalize();
