/**
 * bench:irregular's plain-MPI baselines (rawIrregular of bench/lib/baselines.ts) under mpirun (run
 * by test/mpi/irregular-baselines.test.ts). Every rank runs each kind and variant over a few sizes
 * (buffers of one record, of a size that divides nothing, larger than a rank's picks, and large
 * enough for MPI's rendezvous path), then parameters the job refuses, then one good job again.
 * Prints `RESULT {...}` per rank: `runs` as [kind, variant, n, perRank, buffer, check, expected
 * check] and `refused` as the messages of the refusals.
 */
import { rawIrregular, type IrregularKind, type IrregularVariant } from '../../bench/lib/baselines.js';
import { held } from '../../bench/lib/held.js';
import { requireNative } from '../../src/native/addon.js';

const addon = requireNative();
const { rank, size } = addon.start(() => {});
const MASK = (1n << 64n) - 1n;

/** The sum of this rank's counters after every rank's `n` picks, replaying the job's generator (a 64-bit LCG per rank). */
function expectedSum(n: number, perRank: number): number {
  let mine = 0;
  for (let r = 0; r < size; r++) {
    let x = (0x9e3779b97f4a7c15n * BigInt(r + 1)) & MASK;
    for (let i = 0; i < n; i++) {
      x = (x * 6364136223846793005n + 1442695040888963407n) & MASK;
      if (Number((x >> 33n) % BigInt(perRank * size)) % size === rank) mine++;
    }
  }
  return mine;
}

/** The message of the rejection of `f()` (whether it throws or its promise rejects), or 'resolved'. */
async function refusal(f: () => Promise<unknown>): Promise<string> {
  try {
    await f();
    return 'resolved';
  } catch (e) {
    return `${(e as Error).name}: ${(e as Error).message}`;
  }
}

const runs: Array<[IrregularKind, IrregularVariant, number, number, number, number, number]> = [];
const sizes: Array<[number, number, number]> = [[3000, 50, 1], [3000, 50, 7], [500, 1, 2000], [20_000, 300, 8192], [0, 5, 4]];
for (const kind of ['histogram', 'gather'] as const) {
  for (const variant of ['naive', 'buffered'] as const) {
    for (const [n, perRank, buffer] of sizes) {
      const { seconds, check } = await rawIrregular(kind, variant, n, perRank, buffer);
      if (!(seconds > 0)) throw new Error(`${kind} ${variant}: ${seconds} seconds`);
      runs.push([kind, variant, n, perRank, buffer, check, kind === 'histogram' ? expectedSum(n, perRank) : 0]);
    }
  }
}

const refused: string[] = [];
for (const args of [['histogram', 'buffered', 100, 10, 0], ['gather', 'buffered', 100, 10, -1], ['histogram', 'naive', -1, 10, 1],
  ['gather', 'naive', 100, 0, 1], ['gather', 'naive', 100, 2 ** 31 - 1, 1], ['histogram', 'buffered', 100, 10, 2 ** 21], ['histogram', 'naive', 2 ** 31 - 1, 1, 1],
  ['histogram', 'naive', 2 ** 32 + 5, 10, 1], ['gather', 'naive', 1.5, 10, 1], ['gather', 'naive', 10, Number.NaN, 1],
  ['scatter', 'naive', 10, 10, 1], ['histogram', 'exstack', 10, 10, 1]] as const) {
  refused.push(await refusal(() => rawIrregular(...(args as unknown as Parameters<typeof rawIrregular>))));
}
const after = await rawIrregular('gather', 'buffered', 1000, 20, 16);
const total = (await held(addon.allreduce(Float64Array.of(after.check))))[0];
// each refusal as an index into its distinct messages: a line of several KB from each of 3 ranks
// may reach mpirun's output interleaved with another's
const messages = [...new Set(refused)];
console.log(`RESULT ${JSON.stringify({ rank, size, runs, refused: refused.map((m) => messages.indexOf(m)), messages, after: [after.check, total] })}`);
await held(addon.barrier());
addon.finalize();
