/**
 * The seeded message fuzz (test/mpi/message-fuzz.ts) under `mpirun -np 2` and `-np 3`, over
 * shared memory and over TCP (the path between nodes): payloads of 8 B to 8 MiB around the 4 KiB
 * and 64 KiB limits, broadcasts to the sender's own rank and others whose local receivers
 * overwrite or move the value at once, reducers closed by a count, a stream size or a finalize
 * right after the values, and keys fed again after their task ran. Every value arrives intact,
 * every planned task runs exactly once, and no fence rejects.
 *
 * Each run draws a new seed (shown in the test's title and in every failure, with the command
 * that replays it); `FUZZ_SEED=n` fixes the first run's seed (the others use n+1, n+2, ...) and
 * `FUZZ_PHASES` the number of phases (default 8). A hang fails the run within TTG_HANG_TIMEOUT
 * (30 s), and the run is killed after 90 s whatever happens.
 */
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';
import { resultLines } from './rank-results.js';

/** The `RESULT` line of one rank (see message-fuzz.ts). */
interface FuzzResult {
  rank: number;
  size: number;
  seed: number;
  phases: number;
  ms: number;
  /** Tasks this rank had to run (its share of every phase's plan), and how many distinct ones ran. */
  expected: number;
  ran: number;
  mismatched: number;
  /** Mismatches by the TT that saw them. */
  byTT: Record<string, number>;
  mismatches: string[];
  missed: number;
  missing: string[];
  extras: number;
  extra: string[];
  rejected: number;
  rejections: string[];
}

const SCRIPT = fileURLToPath(new URL('../mpi/message-fuzz.js', import.meta.url));
const TCP = { OMPI_MCA_btl: 'self,tcp' };
const PHASES = Number(process.env['FUZZ_PHASES'] ?? 8);
const FIRST_SEED = process.env['FUZZ_SEED'] !== undefined ? Number(process.env['FUZZ_SEED']) : Math.floor(Math.random() * 2 ** 31);
const RUN_MS = 90_000;

/** What went wrong on one rank, one line per kind of failure (empty when nothing did). */
function problems(r: FuzzResult): string[] {
  const out: string[] = [];
  const at = `rank ${r.rank}`;
  if (r.mismatched > 0) out.push(`${at}: ${r.mismatched} values not as sent ${JSON.stringify(r.byTT)}: ${r.mismatches.join(' | ')}`);
  if (r.missed > 0) out.push(`${at}: ${r.missed} of ${r.expected} tasks never ran: ${r.missing.join(', ')}`);
  if (r.extras > 0) out.push(`${at}: ${r.extras} tasks ran unplanned or more than once: ${r.extra.join(', ')}`);
  if (r.rejected > 0) out.push(`${at}: ${r.rejected} fences rejected: ${r.rejections.join(' | ')}`);
  return out;
}

/** How to replay one run: all four runs by seed, or this one by hand (after `npx tsc`; as root add --allow-run-as-root). */
function replay(np: number, env: Record<string, string>, seed: number): string {
  const vars = Object.entries(env).map(([k, v]) => `${k}=${v} `).join('');
  return `seed ${seed}; replay: FUZZ_SEED=${FIRST_SEED} FUZZ_PHASES=${PHASES} npx mocha --no-config dist/test/mpi/message-fuzz.test.js, `
    + `or ${vars}mpirun -np ${np} --oversubscribe node dist/test/mpi/message-fuzz.js ${seed} ${PHASES}`;
}

describe('message fuzz under mpirun', function () {
  const runs = [[2, 'shared memory', {}], [3, 'shared memory', {}], [2, 'TCP', TCP], [3, 'TCP', TCP]] as const;
  this.timeout(runs.length * (RUN_MS + 10_000));

  runs.forEach(([np, path, env], i) => {
    const seed = (FIRST_SEED + i) >>> 0;
    it(`${np} ranks over ${path}, seed ${seed}: every value intact, every task once, no rejection`, function () {
      this.timeout(RUN_MS + 10_000);
      const run = mpirun(np, SCRIPT, [String(seed), String(PHASES)], RUN_MS, { ...env, TTG_HANG_TIMEOUT: '30' });
      const how = replay(np, env, seed);
      const results = resultLines<FuzzResult>(run.stdout).sort((a, b) => a.rank - b.rank);
      expect(results.map((r) => r.rank), `${how}\n${run.output}`).to.deep.equal([...Array(np).keys()]);
      for (const r of results) expect(r.expected, `rank ${r.rank} had nothing to do; ${how}`).to.be.above(PHASES);
      expect(results.flatMap(problems), how).to.deep.equal([]);
      expect(run.status, `${how}\n${run.output}`).to.equal(0);
    });
  });
});
