/**
 * `finalize()` ends the work a program left unfenced, like C++ TTG's finalize
 * (test/mpi/finalize-pending.ts): under mpirun at 2 and 3 ranks, and as a plain process.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';
import { rankResults, resultLines } from './rank-results.js';

const SCRIPT = fileURLToPath(new URL('../mpi/finalize-pending.js', import.meta.url));
const KEYS = 1000;

interface Shown {
  count: number;
  wrong: number;
}
interface Result extends Partial<Shown> {
  rank: number;
  code?: string;
  message?: string;
  subSize?: number;
  allreduce?: string;
  d?: Shown;
  s?: Shown;
}

describe('finalize() with work the program did not fence', function () {
  this.timeout(120_000);

  it('a plain process (one rank): the collector holds all 1,000 values after finalize', () => {
    const run = spawnSync(process.execPath, [SCRIPT, 'forgot', 'all'], { encoding: 'utf8', timeout: 60_000 });
    expect(run.status, `${run.stdout}\n${run.stderr}`).to.equal(0);
    expect(resultLines<Result>(run.stdout)).to.deep.equal([{ rank: 0, count: KEYS, wrong: 0 }]);
  });

  for (const np of [2, 3]) {
    describe(`${np} ranks`, () => {
      it("forgotten fence, on: 'all': every rank's collector holds all 1,000 values after finalize", () => {
        for (const r of rankResults<Result>(np, SCRIPT, ['forgot', 'all'])) expect(r).to.deep.equal({ rank: r.rank, count: KEYS, wrong: 0 });
      });

      it('forgotten fence, on: 0: rank 0 holds all 1,000 values after finalize', () => {
        for (const r of rankResults<Result>(np, SCRIPT, ['forgot', '0'])) expect(r).to.deep.equal({ rank: r.rank, count: r.rank === 0 ? KEYS : 0, wrong: 0 });
      });

      it('a fence the program did not await: finalize queues behind it; the work invoked after it ends too', () => {
        for (const r of rankResults<Result>(np, SCRIPT, ['queued'])) expect(r).to.deep.equal({ rank: r.rank, count: KEYS, wrong: 0 });
      });

      it("the last rank awaits an allreduce while the others are in finalize: it gets E_COLLECTIVE, finalize waits for its fence, and the work ends", () => {
        for (const r of rankResults<Result>(np, SCRIPT, ['mismatch'])) {
          expect(r).to.deep.equal({ rank: r.rank, count: KEYS, wrong: 0, ...(r.rank === np - 1 ? { allreduce: 'E_COLLECTIVE' } : {}) });
        }
      });

      for (const who of ['first', 'others']) {
        it(`${who === 'first' ? 'rank 0 fences' : 'the ranks but 0 fence'} once more than the rest before finalize: every rank ends, every value arrives`, () => {
          for (const r of rankResults<Result>(np, SCRIPT, ['extra-fence', who], 60_000)) expect(r).to.deep.equal({ rank: r.rank, count: KEYS, wrong: 0 });
        });
      }

      it('a task throws in the unfenced work: finalize rejects with E_TASK_FAILED on every rank, MPI ends properly, the program exits 0', () => {
        const run = mpirun(np, SCRIPT, ['throws']);
        expect(run.status, run.output).to.equal(0);
        expect(run.output).to.not.match(/MPI_ABORT|ttg rank \d+:/);
        const results = resultLines<Result>(run.stdout).sort((a, b) => a.rank - b.rank);
        expect(results.map((r) => r.rank), run.output).to.deep.equal([...Array(np).keys()]);
        for (const r of results) {
          expect(r.code, run.output).to.equal('E_TASK_FAILED');
          expect(r.message).to.include('square-xyz of 7').and.to.include("TT 'SQ-d'");
        }
      });

      it('a split world and the default world, neither fenced: finalize ends the work of both', () => {
        const results = rankResults<Result>(np, SCRIPT, ['split']);
        for (const r of results) {
          expect(r.d).to.deep.equal({ count: r.rank === 0 ? KEYS : 0, wrong: 0 });
          expect(r.s).to.deep.equal({ count: KEYS, wrong: 0 });
        }
        expect(results.map((r) => r.subSize)).to.deep.equal(np === 2 ? [2, 2] : [2, 2, 1]);
      });
    });
  }
});
