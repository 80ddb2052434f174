/**
 * Blocking collectives on the comm thread keep their call order across communicators (run by
 * test/mpi/native-mpi.test.ts under `mpirun -np 2`). Each rank calls, in this order: an allreduce
 * on communicator A (delayed 300 ms on rank 0 only, as a paused fence wave is), a split of the
 * job's communicator (blocking) and a job on communicator B (blocking: a raw ping-pong). If rank 0
 * started its job before its split (the job's communicator has nothing queued before it), it
 * would wait for rank 1 in the ping-pong while rank 1 waits for it in the split. With the argument
 * `poll`, rank 0's JS thread polls throughout (as after a batch in a fence): it then starts the
 * delayed allreduce itself and leaves the split and the job to the comm thread. Prints
 * `RESULT {...}` per rank.
 */
import { baselines } from '../../bench/lib/baselines.js';
import { requireNative } from '../../src/native/addon.js';

const addon = requireNative();
const { rank } = addon.start(() => {});
const a = (await addon.split(0, 0, rank))[0]!;
const b = (await addon.split(0, 0, rank))[0]!;
const polls = process.argv[2] === 'poll' && rank === 0;
const ready = addon.allreduce(Float64Array.of(1));
// a poll that found a batch leaves the JS thread polling, for the comm thread
if (polls) while (!addon.poll(1000, () => {})) { /* until the completion's batch comes */ }
await ready;
const t0 = performance.now();
const wave = addon.allreduce(Float64Array.of(1), rank === 0 ? 300_000 : 0, a);
const split = addon.split(0, 0, rank);
const job = addon.commJob(baselines().pingpongJob(1 - rank, 8, 10, true), b);
let settled = false;
void Promise.allSettled([wave, split, job]).then(() => (settled = true));
while (polls && !settled) {
  addon.poll(1000, () => {});
  await new Promise((r) => setImmediate(r));
}
const [sum] = await wave;
const [comm] = await split;
const [seconds, failed] = await job;
console.log(`RESULT ${JSON.stringify({ rank, sum, comm, jobOk: seconds! > 0 && failed === 0, ms: performance.now() - t0 })}`);
await addon.barrier();
addon.finalize();
