/**
 * Device buffers that leave the rank while the rank's own device tasks still work on them (issue
 * 35, item 8), run by test/mpi/hostile-device.test.ts under `mpirun -np 2` with emulated devices
 * (one device, two streams). Rank 0 does the device work, rank 1 receives. Mode (argv[2]):
 *
 *   consumer  Z(0) holds stream 0 (it wrote u there, then waits for a gate).
 *             W(0) lists u and x (so it joins Z on stream 0), writes x = 2 on the device, waits,
 *             then enqueues ~0.2 s of work on stream 0 and sends x
 *               ──x──▶ R(0) on rank 1 (x comes home first: its copy queues behind that work)
 *               ──x──▶ L(0) on rank 0, which consumes x and multiplies it by 10 on the device
 *             (stream 1: stream 0 carries two tasks). The remote send still needs x as sent, so
 *             L must work on a copy: rank 1 must receive 2 in every element, L must see 20.
 *   home      W(0) writes x = 2 on the device; L(0) lists x, enqueues ~0.1 s of work, asks for a
 *             copy home (`x.toHost()`, queued behind that work), then multiplies x by 10 and
 *             waits, and sends x ──▶ R(0) on rank 1. The copy home ran before the multiply: it
 *             must not leave the host copy marked current with 2. Rank 1 must receive 20, and on
 *             rank 0 `await x.toHost()` must give 20.
 *
 * Every rank prints `RESULT <json>`: how its fence ended and what it saw.
 */
import * as ttg from 'ttg';

const mode = process.argv[2] ?? 'consumer';
const world = await ttg.initialize({ device: { backend: 'emulated', devices: 1, streams: 2 } });
const { rank } = world;
const N = 128, X = 4096;

/** C += ones * ones / N, `reps` times: keeps `stream` busy (~0.2 ms each). */
function busy(stream: ttg.device.Stream, ones: ttg.Buffer, C: ttg.Buffer, reps: number): void {
  for (let i = 0; i < reps; i++) ttg.device.kernels.dgemm(stream, 'N', 'N', N, N, N, 1 / N, ones, N, ones, N, 1, C, N);
}

/** How many elements of `a` differ from `want`, and the first such value. */
function wrong(a: ArrayLike<number>, want: number): { count: number; first?: number } {
  let count = 0, first: number | undefined;
  for (let i = 0; i < a.length; i++) if (a[i] !== want) { if (count++ === 0) first = a[i]; }
  return count === 0 ? { count } : { count, first };
}

const ones = new ttg.Buffer(new Float64Array(N * N).fill(1));
const C = new ttg.Buffer(N * N);
const x = new ttg.Buffer(new Float64Array(X).fill(1));
const result: Record<string, unknown> = { rank, mode };

const toRemote = new ttg.Edge<number, ttg.Buffer>('remote');
const R = ttg.make_tt((_k: number, b: ttg.Buffer) => {
  result['received'] = wrong(b.host, mode === 'consumer' ? 2 : 20);
  result['receivedFirst'] = b.host[0];
}, [toRemote], [], { name: 'R' }).set_procmap(() => 1);

const tts: Array<Parameters<typeof ttg.make_graph_executable>[number]> = [R];
let start: () => void | Promise<void>;

if (mode === 'consumer') {
  const u = new ttg.Buffer(new Float64Array(16).fill(1));
  let open!: () => void, zReady!: () => void;
  const gate = new Promise<void>((r) => { open = r; });
  const zIn = new Promise<void>((r) => { zReady = r; });
  const Z = ttg.make_tt(function* () {
    const { stream } = (yield ttg.device.input(u)) as ttg.device.InputResult;
    result['zStream'] = stream.index;
    ttg.device.kernels.dscal(stream, 16, 1, u);   // u's last writer: this stream
    zReady();
    yield gate;
  }, [new ttg.Edge<number, number>('z')], [], { name: 'Z' }).set_procmap(() => 0);
  const toLocal = new ttg.Edge<number, ttg.Buffer>('local');
  const W = ttg.make_tt(function* (k: number, _v: number, out) {
    const { stream } = (yield ttg.device.input(u, x, ones, C)) as ttg.device.InputResult;
    result['wStream'] = stream.index;
    ttg.device.kernels.dscal(stream, X, 2, x);     // x = 2, on the device only
    yield ttg.device.kernel();
    busy(stream, ones, C, 1000);                   // the copy home of x for R queues behind this
    out.send(0, k, x);                             // to R on rank 1
    out.send(1, k, x);                             // to L here
  }, [new ttg.Edge<number, number>('w')], [toRemote, toLocal], { name: 'W' }).set_procmap(() => 0);
  const L = ttg.make_tt(function* (_k: number, b: ttg.Buffer) {
    const { stream } = (yield ttg.device.input(b)) as ttg.device.InputResult;
    result['lStream'] = stream.index;
    ttg.device.kernels.dscal(stream, X, 10, b);    // the consumer's own x: 20
    yield ttg.device.kernel(b);
    result['local'] = wrong(b.host, 20);
    open();
  }, [toLocal], [], { name: 'L', consume: [0] }).set_procmap(() => 0);
  tts.push(Z, W, L);
  start = async () => {
    setTimeout(() => open(), 3000);   // never hold Z forever, whatever happens to L
    Z.invoke(0, 0);
    await zIn;                        // Z holds stream 0 and wrote u there: W follows u to it
    W.invoke(0, 0);
  };
} else {
  const toL = new ttg.Edge<number, number>('l');
  const W = ttg.make_tt(function* (k: number, _v: number, out) {
    const { stream } = (yield ttg.device.input(x)) as ttg.device.InputResult;
    ttg.device.kernels.dscal(stream, X, 2, x);     // x = 2, on the device only
    yield ttg.device.kernel();
    out.send(0, k, 0);
  }, [new ttg.Edge<number, number>('w')], [toL], { name: 'W' }).set_procmap(() => 0);
  const L = ttg.make_tt(function* (k: number, _v: number, out) {
    const { stream } = (yield ttg.device.input(x, ones, C)) as ttg.device.InputResult;
    busy(stream, ones, C, 500);
    void x.toHost();                               // a copy home of x = 2, queued behind that work
    ttg.device.kernels.dscal(stream, X, 10, x);    // then x = 20
    yield ttg.device.kernel();
    out.send(0, k, x);                             // x leaves the rank: it must arrive as 20
  }, [toL], [toRemote], { name: 'L' }).set_procmap(() => 0);
  tts.push(W, L);
  start = () => W.invoke(0, 0);
}

ttg.make_graph_executable(...tts);
ttg.execute();
if (rank === 0) await start();
try {
  await ttg.fence({ quiet: true });
  result['fence'] = 'ok';
} catch (e) {
  result['fence'] = `${(e as ttg.TtgError).code}: ${(e as Error).message}`;
}
if (rank === 0 && mode === 'home') {
  await x.toHost();
  result['home'] = wrong(x.host, 20);
}
console.log(`RESULT ${JSON.stringify(result)}`);
await ttg.finalize();
