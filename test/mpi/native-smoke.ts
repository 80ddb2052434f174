// Run under `mpirun -np N`: every rank sends every rank (itself included) a header-only message
// and a message with a 16 MiB Float64Array received directly into a JS-allocated array, checks
// header order and contents, runs the raw ping-pong baseline as a job on the comm thread (ranks 0
// and 1; a third rank runs a job that fails), an allreduce and a barrier, then prints one result line.
import { rawPingpong, rawStencil } from '../../bench/lib/baselines.js';
import { arrivalEvents, requireNative, type NativeEvent } from '../../src/native/addon.js';

const ELEMS = (16 * 2 ** 20) / 8;
const SMALL = 5; // header-only messages per pair, to check ordering
const addon = requireNative();
const pending: NativeEvent[] = [];
let wake: () => void = () => {};
let batches = 0;
const { rank, size, mpi } = addon.start((meta, bytes, extra, length) => {
  batches++;
  pending.push(...arrivalEvents(meta, bytes, extra, length));
  wake();
});

const value = (src: number, dst: number, i: number): number => src * 2 ** 40 + dst * 2 ** 32 + i;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

for (let dst = 0; dst < size; dst++) {
  for (let s = 0; s < SMALL - 1; s++) addon.send(dst, encoder.encode(JSON.stringify({ src: rank, seq: s })), []);
  // a small payload travels inside the header message and arrives with it (eager)
  addon.send(dst, encoder.encode(JSON.stringify({ src: rank, seq: SMALL - 1 })), [Uint16Array.of(rank, dst, 7)]);
  const big = new Float64Array(ELEMS);
  for (let i = 0; i < ELEMS; i++) big[i] = value(rank, dst, i);
  addon.send(dst, encoder.encode(JSON.stringify({ src: rank, seq: SMALL })), [big, new Uint8Array([rank, dst])]);
}

const lastSeq = new Map<number, number>();
const inflight = new Map<number, { src: number; big: Float64Array; tail: Uint8Array }>();
let bigDone = 0;
let bad = 0;
while (bigDone < size) {
  if (pending.length === 0) await new Promise<void>((r) => (wake = r));
  for (const e of pending.splice(0)) {
    if (e.kind === 'error') throw new Error(e.message);
    if (e.kind === 'msg') {
      const h = JSON.parse(decoder.decode(e.header)) as { src: number; seq: number };
      if (h.src !== e.src || h.seq !== (lastSeq.get(e.src) ?? -1) + 1) bad++;
      lastSeq.set(e.src, h.seq);
      if (h.seq === SMALL - 1) {
        const want = new Uint8Array(Uint16Array.of(e.src, rank, 7).buffer);
        if (e.eager === undefined || e.sizes.length !== 1 || e.eager.join() !== want.join()) bad++;
      } else if (e.sizes.length > 0) {
        const big = new Float64Array(e.sizes[0]! / 8);
        const tail = new Uint8Array(e.sizes[1]!);
        inflight.set(e.id, { src: e.src, big, tail });
        addon.recv(e.id, [big, tail]);
      }
    } else {
      const m = inflight.get(e.id)!;
      inflight.delete(e.id);
      for (let i = 0; i < ELEMS; i++) if (m.big[i] !== value(m.src, rank, i)) { bad++; break; }
      if (m.tail[0] !== m.src || m.tail[1] !== rank) bad++;
      bigDone++;
    }
  }
}

// the raw baseline of bench:pingpong, verifying every payload: [seconds per round trip, failed checks]
const pingpong = rank < 2 ? await rawPingpong(1 - rank, 65536 + 8, 3, true) : null;
// a job that fails (its peer is itself) rejects with the job's own message
const failedJob = rank === 2 ? await rawPingpong(2, 8, 1, false).then(() => 'resolved', (e: Error) => e.message) : null;
// the raw baseline of bench:taskbench on every rank: 50 steps of a 20 us kernel, barrier to barrier
const stencil = await rawStencil(20_000, 50);
const badStencil = await rawStencil(20_000, 0).then(() => 'resolved', (e: Error) => e.message);
const sum = await addon.allreduce(new Float64Array([1, rank, bad]));
// the JS thread starts a collective itself only when nothing is queued or delayed before it: one
// called after a delayed one must not overtake it (a 3-value reduction against a 2-value one would abort)
const delayed = addon.allreduce(Float64Array.of(rank, 1), 2000);
const after = addon.allreduce(Float64Array.of(10 * rank, 1, 1));
const inOrder = [...await delayed, ...await after];
// The same with the even ranks' JS thread polling (after a poll that found a batch): a delayed
// collective is then queued without waking the comm thread, and the JS thread starts it itself
// when due; the odd ranks take the comm thread's path. Either way the call order holds on every
// rank (ranks that disagreed would reduce 3 values against 2).
const found = addon.allreduce(Float64Array.of(1));
if (rank % 2 === 0) while (!addon.poll(1000, () => {})) { /* until the completion's batch comes */ }
await found;
const delayedWhilePolling = addon.allreduce(Float64Array.of(rank, 1), 2000);
const afterWhilePolling = addon.allreduce(Float64Array.of(10 * rank, 1, 1));
let settled = false;
const both = Promise.all([delayedWhilePolling, afterWhilePolling]).finally(() => (settled = true));
while (!settled && rank % 2 === 0) {
  addon.poll(1000, () => {});
  await new Promise((r) => setImmediate(r));
}
const inOrderPolling = (await both).flatMap((v) => [...v]);
// A delayed allreduce alone while the even ranks poll (one long poll, so their comm threads
// sleep): they start it themselves when it is due, not later; its delay counts once, from the call.
const waveStart = performance.now();
const wave = addon.allreduce(Float64Array.of(1), 100_000);
let waveDone = false;
void wave.finally(() => (waveDone = true));
while (!waveDone && rank % 2 === 0) {
  addon.poll(300_000, () => {});
  await new Promise((r) => setImmediate(r));
}
const [waveSum] = await wave;
const waveMs = performance.now() - waveStart;
// A split called behind two delayed allreduces on two communicators while the even ranks poll:
// their JS threads start the allreduces when due (the one on the world's communicator first),
// and the split, which only the comm thread starts, must not wait for them to stop polling.
const [other] = await addon.split(0, 0, rank);
const splitStart = performance.now();
const waits = [addon.allreduce(Float64Array.of(1), 100_000, other), addon.allreduce(Float64Array.of(1), 20_000), addon.split(0, 0, rank)];
let splitDone = false;
void Promise.all(waits).finally(() => (splitDone = true));
while (!splitDone && rank % 2 === 0 && performance.now() - splitStart < 3000) {
  addon.poll(1_000_000, () => {});
  await new Promise((r) => setImmediate(r));
}
const splitCall = (await Promise.all(waits)).map((v) => v[0]!);
const splitMs = performance.now() - splitStart;
const noComm = await addon.allreduce(Float64Array.of(1), 0, 99).then(() => 'resolved', (e: Error) => e.message);
await addon.barrier();
const stats = addon.stats();
addon.finalize();
console.log(`NATIVE-SMOKE ${JSON.stringify({ rank, size, mpi, bad, allreduce: [...sum], inOrder, inOrderPolling, waveSum, waveMs, splitCall, splitMs, noComm, batches, stats, pingpong, failedJob, stencil, badStencil })}`);
