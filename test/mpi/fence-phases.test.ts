/**
 * `fence()` as a phase boundary under real `mpirun -np 2` and `-np 3` (test/mpi/phases.ts): a
 * program that repeats invoke, execute, `fence({ strict: true })` sees no rejection and no false
 * "missing inputs" report, although messages of the next phase reach ranks still in the fence, and
 * runs every task exactly once.
 */
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';
import { resultLines } from './rank-results.js';

interface RankResult {
  rank: number;
  size: number;
  /** The first rejections, as `phase: code`. */
  rejections: string[];
  rejected: number;
  /** Non-strict fences that reported waiting tasks. */
  reports: number;
  wrong: number;
  /** Messages of a next phase that arrived while this rank was still in a fence. */
  deferred: number;
  /** Keys for which J ran here. */
  ran: number;
  /** The first of this rank's keys for which J never ran, or ran more than once. */
  missing: number[];
  twice: number[];
}

const PHASES = 200;

describe('fence() as a phase boundary under mpirun', function () {
  this.timeout(240_000);

  for (const np of [2, 3]) {
    it(`${np} ranks, ${PHASES} phases of cross-rank joins: no rejection, no report, every task once`, () => {
      const run = mpirun(np, fileURLToPath(new URL('../mpi/phases.js', import.meta.url)), [String(PHASES)]);
      expect(run.status, run.output).to.equal(0);
      const results = resultLines<RankResult>(run.stdout);
      expect(results.map((r) => r.rank).sort(), run.output).to.deep.equal([...Array(np).keys()]);
      const rejected = results.reduce((n, r) => n + r.rejected, 0);
      expect(results.flatMap((r) => r.rejections.map((x) => `rank ${r.rank} phase ${x}`)), `${rejected} rejections`).to.deep.equal([]);
      expect(results.map((r) => r.reports)).to.deep.equal(Array(np).fill(0));
      expect(run.output).to.not.match(/missing input/);
      for (const r of results) {
        expect(r.wrong).to.equal(0);
        expect(r.missing).to.deep.equal([]);
        expect(r.twice).to.deep.equal([]);
      }
      expect(results.reduce((n, r) => n + r.ran, 0)).to.equal(PHASES * 2 * np);
      // the race happened: some messages of a next phase reached a rank still in a fence
      expect(results.reduce((n, r) => n + r.deferred, 0)).to.be.above(0);
    });
  }
});
