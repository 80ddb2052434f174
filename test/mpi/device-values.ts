/**
 * Buffers nested in values that leave the rank (run by test/mpi/device-values-mpi.test.ts under
 * `mpirun -np 2` and `-np 3`, emulated devices): a device task writes buffers two levels down and
 * in a Map without copying them back, then sends the value to a host task on the next rank, which
 * must see the device's data. Each rank prints `RESULT <json>`. Mode `unsendable`: the value also
 * holds a function, so the send, deferred until the buffers are home, fails: every rank prints
 * `REJECTED <json>` for its fence.
 *
 *   D(k) on rank k % size ──{ inner: { db }, map, list }──▶ H(k) on rank (k+1) % size
 */
import * as ttg from 'ttg';
import { fenceOutcome } from './fence-outcome.js';

const unsendable = process.argv[2] === 'unsendable';
type Value = { inner: { db: ttg.Buffer }; map: Map<string, ttg.Buffer>; list: ttg.Buffer[][]; ints: ttg.Buffer<Int32Array> };

const world = await ttg.initialize({ device: { backend: 'emulated', devices: 2 } });
const { rank, size } = world;
const N = 1000;
const KEYS = 3 * size;
const go = new ttg.Edge<number, Value>('go');
const away = new ttg.Edge<number, Value>('away');
const seen: string[] = [];
const buffers = (v: Value) => [v.inner.db, v.map.get('m')!, v.list[0]![0]!];
const d = ttg.make_tt(function* (k: number, v: Value, out) {
  const { stream } = (yield ttg.device.input(buffers(v))) as ttg.device.InputResult;
  for (const b of buffers(v)) ttg.device.kernels.dscal(stream, N, k + 2, b);
  yield ttg.device.kernel();   // the data stays on the device
  out.send(0, k, unsendable ? { ...v, f: () => k } as Value : v);
}, [go], [away], { name: 'D' }).set_procmap((k) => k % size);
const h = ttg.make_tt((k: number, v: Value) => {
  const firstLast = buffers(v).map((b) => `${b.host[0]}/${b.host[N - 1]}`).join(',');
  seen.push(`${k}:${firstLast}:${v.ints.host[1]}:${v.inner.db instanceof ttg.Buffer}`);
}, [away], [], { name: 'H' }).set_procmap((k) => (k + 1) % size);
ttg.make_graph_executable(d, h);
for (let k = 0; k < KEYS; k++) {
  if (k % size !== rank) continue;
  const filled = (x: number) => new ttg.Buffer(new Float64Array(N).fill(x));
  d.invoke(k, { inner: { db: filled(1) }, map: new Map([['m', filled(2)]]), list: [[filled(3)]], ints: new ttg.Buffer(new Int32Array([k, k * 10])) });
}
ttg.execute();
await fenceOutcome(rank, false, { strict: true });
console.log(`RESULT ${JSON.stringify({ rank, seen: seen.sort() })}`);
await ttg.finalize();
