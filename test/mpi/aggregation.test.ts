/**
 * Small messages that travel together, under mpirun at 2 and 3 ranks, over shared memory and TCP
 * (test/mpi/aggregation.ts): every value arrives in send order whatever its shape (numbers,
 * strings, small objects in batches; large headers and typed arrays alone), histogram counts are
 * exact, every request (keys of every shape) is answered exactly, over three phases, with
 * aggregation at its default, off, and with a tiny buffer.
 */
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { rankResults } from './rank-results.js';

const SCRIPT = fileURLToPath(new URL('../mpi/aggregation.js', import.meta.url));

interface Result {
  rank: number;
  phases: Array<{ ordered: boolean; lists: number; counted: number; answered: number; wrong: number }>;
  mpiSent: number;
}

const N = 400;
const UPDATES = 20_000;

/** Runs the program; checks order and counts on every rank; returns the MPI messages sent by all ranks. */
function run(np: number, aggregate: string, btl: 'shm' | 'tcp'): number {
  const env = { TTG_AGGREGATE_BYTES: aggregate, ...(btl === 'tcp' ? { OMPI_MCA_btl: 'self,tcp' } : {}) };
  const rs = rankResults<Result>(np, SCRIPT, [String(N), String(UPDATES)], 120_000, env);
  for (const r of rs) {
    expect(r.phases.map((p) => p.ordered), `rank ${r.rank}: every sender's values in send order`).to.deep.equal([true, true, true]);
    expect(r.phases.map((p) => p.lists)).to.deep.equal([np, np, np]);
    expect(r.phases.map((p) => p.counted)).to.deep.equal([1, 2, 3].map((v) => v * UPDATES * np));
    expect(r.phases.map((p) => [p.answered, p.wrong]), `rank ${r.rank}: its requests answered, exactly`).to.deep.equal([[N, 0], [N, 0], [N, 0]]);
  }
  return rs.reduce((a, r) => a + r.mpiSent, 0);
}

describe('small messages travel together', function () {
  this.timeout(300_000);

  for (const np of [2, 3]) {
    it(`in send order and exact, with aggregation on (far fewer MPI messages), off and tiny, at ${np} ranks`, () => {
      const on = run(np, '16384', 'shm');
      const off = run(np, '0', 'shm');
      run(np, '64', 'shm');
      // each rank sends N values to each other rank and about (np - 1) / np of its UPDATES (random
      // counters) and of its N requests elsewhere, per phase (answers not counted)
      const remote = 3 * np * (N * (np - 1) + ((UPDATES + N) * (np - 1)) / np);
      expect(off, 'without aggregation, one MPI message per remote send').to.be.at.least(0.95 * remote);
      expect(on, 'with aggregation').to.be.below(off / 10);
    });
  }

  for (const np of [2, 3]) {
    it(`a message that fails on its receiver inside a batch fails every rank's fence at once, and the next phase works, at ${np} ranks`, () => {
      const rs = rankResults<{ rank: number; code: string; seconds: number; again: string; counted: number }>(np, SCRIPT, ['10', '10', 'duplicate'], 120_000);
      for (const r of rs) {
        expect(r.code, `rank ${r.rank}`).to.equal('E_DUPLICATE_INPUT');
        expect(r.seconds).to.be.below(10);
        // the next phase, without a duplicate, works: its 100 updates all arrive
        expect(r.again).to.equal('none');
        expect(r.counted).to.equal(100);
      }
    });
  }

  it('over TCP at 3 ranks', () => {
    run(3, '16384', 'tcp');
  });
});
