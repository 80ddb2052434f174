/**
 * Reducing inputs that end at the fence at 2 and 3 ranks (test/mpi/fence-streams.ts).
 */
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';
import { rankResults, resultLines } from './rank-results.js';

const SCRIPT = fileURLToPath(new URL('../mpi/fence-streams.js', import.meta.url));

describe("reducing inputs that end at the fence ('fence') under mpirun", function () {
  this.timeout(120_000);
  for (const np of [2, 3]) {
    it(`a per-category sum over items on every rank, then a grand total fed by it, each run once per key, two phases, at ${np} ranks`, () => {
      for (const r of rankResults<{ rank: number; phases: Array<{ sums: number[]; runs: number[]; total: number; incomplete: number }> }>(np, SCRIPT, [])) {
        r.phases.forEach((p, j) => {
          const phase = j + 1;
          const want = Array.from({ length: 13 }, (_, c) => Array.from({ length: 300 }, (_, i) => i).filter((i) => i % 13 === c).reduce((a, i) => a + i * phase, 0));
          expect(p.sums, `phase ${phase}`).to.deep.equal(want);
          expect(p.runs).to.deep.equal(Array(13).fill(1));
          expect(p.total).to.equal(want.reduce((a, b) => a + b));
          expect(p.incomplete).to.equal(0);
        });
      }
    });

    it(`ranks that built different TTs with such inputs get E_COLLECTIVE at the fence, not a wrong sum, at ${np} ranks`, () => {
      const run = mpirun(np, SCRIPT, ['mismatch'], 60_000);
      const results = resultLines<{ rank: number; mismatch: string }>(run.stdout);
      expect(results.map((r) => r.rank).sort(), run.output).to.deep.equal([...Array(np).keys()]);
      for (const r of results) {
        expect(r.mismatch).to.match(/^E_COLLECTIVE: the ranks of this world called different collectives: rank 0 called fence\(\) ending the streams of/)
          .and.include('ending the streams of 2 TT(s)').and.include('ending the streams of 3 TT(s)');
      }
    });
  }
});
