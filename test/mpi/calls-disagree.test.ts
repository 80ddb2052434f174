/**
 * Ranks whose collective calls disagree, errors of several ranks in one phase, strict fences and a
 * send the addon refuses, under mpirun at 2 and 3 ranks (test/mpi/calls-disagree.ts): every rank
 * gets the same documented error, nothing aborts the job, and the next phase works.
 */
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { rankResults } from './rank-results.js';

const SCRIPT = fileURLToPath(new URL('../mpi/calls-disagree.js', import.meta.url));
const TCP = { OMPI_MCA_btl: 'self,tcp' };

interface Outcome {
  code: string;
  message: string;
  errors?: string[];
}
type Result = Record<string, unknown> & { rank: number };

/** The cross graph's collector sum for one phase: 20 values 2i + 1. */
const PHASE_SUM = [...Array(20).keys()].reduce((x, i) => x + i * 2 + 1, 0);

/** Rank 0's call, rank 1's, and (at 3 ranks) rank 2's, as the error names them. */
function named(np: number, calls: string[]): string {
  return `the ranks of this world called different collectives: ${calls.slice(0, np).map((c, r) => `rank ${r} called ${c}`).join(', ')}`;
}

/** The same message on every rank, but for the note of the rank that announced it. */
const plain = (m: string): string => m.replace(/ \[announced by rank \d+\]/g, '');

describe('calls that disagree and errors that meet, under mpirun', function () {
  this.timeout(240_000);

  const cases: Array<[number, string, string]> = [[2, 'mismatch', 'shm'], [2, 'in-task', 'shm'], [3, 'mismatch', 'shm'], [3, 'in-task', 'shm'], [3, 'mismatch', 'tcp']];
  for (const [np, mode, btl] of cases) {
    it(`${mode}: E_COLLECTIVE on every rank naming each call, the fence's work kept for the next fence, later phases intact, at ${np} ranks over ${btl}`, () => {
      for (const r of rankResults<Result>(np, SCRIPT, [mode], 180_000, btl === 'tcp' ? TCP : {})) {
        const at = `rank ${r.rank}`;
        expect(r['first'], at).to.deep.equal({ code: 'E_COLLECTIVE', message: named(np, ["allreduce(a number, 'sum')", 'fence()', 'barrier()']) });
        expect(r['second'], at).to.deep.equal({ code: 'E_COLLECTIVE', message: named(np, ['broadcast(value, root 0)', 'split()', 'fence()']) });
        expect(r['third'], at).to.deep.equal({ code: 'E_COLLECTIVE', message: named(np, ['fence()', "allreduce(Float64Array of 2, 'sum')", "allreduce(a number, 'max')"]) });
        expect(r['fourth'], at).to.deep.equal({
          code: 'E_COLLECTIVE',
          message: named(np, ["allreduce(Float64Array of 1, 'sum')", "allreduce(Float64Array of 2, 'sum')", "allreduce(Float64Array of 2, 'sum')"]),
        });
        // the work in flight during each mismatch arrived by the next fence, all of it
        expect(r['after'], at).to.deep.equal(['ok', r.rank === 0 ? PHASE_SUM : -1]);
        expect(r['after2'], at).to.deep.equal(['ok', r.rank === 0 ? PHASE_SUM : -1]);
        expect(r['after3'], at).to.equal(r.rank === 0 ? 3 * PHASE_SUM : -1);
        expect(r['sum'], at).to.equal((np * (np + 1)) / 2);
        expect(r['sub'], at).to.equal(np);
        expect(r['subMismatch'], at).to.deep.equal({ code: 'E_COLLECTIVE', message: named(np, ["allreduce(a number, 'sum')", 'fence()', 'fence()']) });
        expect(r['subAfter'], at).to.deep.equal(['ok', 2 * np]);
        if (mode === 'in-task') {
          expect(r['refused'], at).to.deep.equal(['E_INVALID_ARGUMENT']);
          // a split world's task calling its parent's collective, and the reverse
          expect(r['inSub'], at).to.deep.equal(['E_INVALID_ARGUMENT', 'E_INVALID_ARGUMENT']);
        }
      }
    });
  }

  for (const np of [2, 3]) {
    it(`errors on several ranks in one phase: one error (the least rank's that raised one) on every rank, each rank's in err.errors, at ${np} ranks`, () => {
      const rs = rankResults<Result>(np, SCRIPT, ['first-error'], 120_000);
      const phases = rs.map((r) => r['outcomes'] as Outcome[]);
      for (let p = 0; p < 3; p++) {
        const seen = phases.map((o) => o[p]!);
        for (const o of seen) expect(o.code, JSON.stringify(seen)).to.equal('E_TASK_FAILED');
        // one outcome per fence on every rank
        expect(new Set(seen.map((o) => plain(o.message))).size, JSON.stringify(seen)).to.equal(1);
        expect(new Set(seen.map((o) => JSON.stringify(o.errors!.map(plain)))).size, JSON.stringify(seen)).to.equal(1);
        const errors = seen[0]!.errors!.map(plain);
        expect(plain(seen[0]!.message)).to.equal(errors[0]!.slice(errors[0]!.indexOf(':') + 1));
        const ranks = errors.map((e) => Number(e.slice(0, e.indexOf(':'))));
        expect(ranks, 'sorted by rank').to.deep.equal([...ranks].sort((a, b) => a - b));
        for (const e of errors) expect(e).to.match(/^(\d+):task body threw: boom-\1$/);
        // phase 2: only the last rank threw; phase 1: every rank but 0 did (rank 0 may have
        // been told before its own late task threw, then it raised none)
        if (p === 2) expect(ranks).to.deep.equal([np - 1]);
        if (p === 1) expect(ranks).to.deep.equal([...Array(np - 1).keys()].map((i) => i + 1));
      }
      for (const r of rs) expect((r['next'] as Outcome).code).to.equal('ok');
    });

    it(`a strict fence rejects on every rank when work waits on any, naming where, at ${np} ranks`, () => {
      for (const r of rankResults<Result>(np, SCRIPT, ['strict'], 120_000)) {
        const s = r['strict'] as Outcome;
        const s2 = r['strict2'] as Outcome;
        expect(s.code).to.equal('E_INCOMPLETE');
        expect(s2.code).to.equal('E_INCOMPLETE');
        if (r.rank === np - 1) {
          expect(s.message).to.include("1 message(s) for TT 'LATE'").and.not.include('other ranks');
          expect(s2.message).to.include('wait on other ranks (rank 0: 1)');
        } else {
          expect(s.message).to.include(`rank ${r.rank}: nothing waits here`).and.include(`wait on other ranks (rank ${np - 1}: 1)`);
        }
        if (r.rank === 0) expect(s2.message).to.include('TWO[7] missing input #1 (b)').and.include(`(rank ${np - 1}: 1)`);
        if (r.rank !== 0 && r.rank !== np - 1) expect(s2.message).to.include(`(rank 0: 1, rank ${np - 1}: 1)`);
        // a fence that is not strict still resolves with its own report
        expect(r['lax']).to.deep.equal({ code: 'ok', message: r.rank === 0 || r.rank === np - 1 ? '1' : '0' });
      }
    });

    it(`a send the addon refuses after it was counted (a header over 1 GiB) fails the fence at once with its error, at ${np} ranks`, () => {
      for (const r of rankResults<Result>(np, SCRIPT, ['huge-header'], 180_000)) {
        const big = r['big'] as Outcome;
        expect(big.code, big.message).to.equal('E_SERIALIZE');
        expect(big.message).to.include("sent by TT 'BIG' (task 1) to input terminal 0 of TT 'SINK'").and.include('header larger than 1 GiB');
        expect(r['seconds'] as number).to.be.below(60);
        expect(r['next']).to.deep.equal({ code: 'ok', message: String(np) });
      }
    });
  }
});
