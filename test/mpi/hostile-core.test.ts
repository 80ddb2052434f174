/**
 * Hostile regression tests under mpirun (test/mpi/hostile-core.ts): `make_allreduce` keeping
 * copy-on-write at 2 ranks and dropping its per-key plans with a failed phase at 2 and 3 ranks; a
 * fence that must not call a world complete while a message waits for a TT that is not executable;
 * a `world.split` rejected on one rank that must not leave the ranks out of step. Their one-process
 * side is test/ttg/hostile-allreduce.test.ts. Every run has a timeout, so a hang fails the test.
 */
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { rankResults } from './rank-results.js';

const SCRIPT = fileURLToPath(new URL('../mpi/hostile-core.js', import.meta.url));

type Settled = { ok: unknown } | { code: string; message: string };
type Result = Record<string, unknown> & { rank: number };

/** Every rank's RESULT; fails (with the job's output) when the job fails or outlives 60 s. */
function results(np: number, ...args: string[]): Result[] {
  return rankResults<Result>(np, SCRIPT, args, 60_000);
}

describe('hostile: make_allreduce, fences and splits under mpirun', function () {
  this.timeout(120_000);

  it('a partial also consumed and written in place on its rank is folded as sent, at 2 ranks', () => {
    for (const r of results(2, 'cow')) {
      expect(r['fence'], `rank ${r.rank}`).to.deep.equal({ ok: 0 });
      expect(r['got'], `rank ${r.rank}`).to.deep.equal([[11, 22]]);
    }
  });

  // 1 + 2 + ... + 6 after contributions went from 4 to 6; 1 + 2 + 3 + 4 all from rank 0
  for (const [change, sum] of [['contributions', 21], ['contributor', 10]] as const) {
    for (const np of [2, 3]) {
      it(`a failed phase leaves no all-reduce plan behind: a new ${change} counts, at ${np} ranks`, () => {
        for (const r of results(np, 'plan', change)) {
          expect(r['phase1'], `rank ${r.rank}`).to.equal('E_TASK_FAILED');
          expect(r['got'], `rank ${r.rank}: [key, sum]`).to.deep.equal([[0, sum]]);
          expect(r['phase2'], `rank ${r.rank}: phase 2 left waiting`).to.deep.equal([]);
        }
      });
    }
  }

  it('a message parked for a TT that is not executable shows in the fence report and fails a strict fence, at 2 ranks', () => {
    const r1 = results(2, 'parked')[1]!;
    expect(r1['report'], 'the report of rank 1, which holds the message').to.include('PARKED-1');
    const strict = r1['strict'] as Settled;
    expect(strict, 'strict fence on rank 1').to.have.property('code', 'E_INCOMPLETE');
    expect((strict as { message: string }).message).to.include('PARKED-2');
  });

  it('a split with a color that is not an integer on one rank rejects on every rank, and the next allreduce still works, at 2 ranks', () => {
    for (const r of results(2, 'split')) {
      for (const [name, shown] of [['fraction', '1.5'], ['nan', 'NaN']] as const) {
        const s = r[name] as Settled;
        expect(s, `rank ${r.rank} ${name}: the split rejects`).to.have.property('code').that.matches(/^E_/);
        const { code, message } = s as { code: string; message: string };
        if (r.rank === 1) {
          expect(code).to.equal('E_INVALID_ARGUMENT');
          expect(message).to.include(shown);
        } else {
          expect(message, `rank 0 ${name}: names rank 1's call`).to.include('rank 1').and.to.include('split');
        }
        expect(r[`${name}-after`], `rank ${r.rank} allreduce after ${name}`).to.equal(2);
      }
    }
  });
});
