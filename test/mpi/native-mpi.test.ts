import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';
import { rankResults } from './rank-results.js';

const SCRIPT = fileURLToPath(new URL('../mpi/native-smoke.js', import.meta.url));

interface SmokeResult {
  rank: number;
  size: number;
  mpi: boolean;
  bad: number;
  pingpong: [number, number] | null;
  failedJob: string | null;
  stencil: number;
  badStencil: string;
  allreduce: number[];
  inOrder: number[];
  inOrderPolling: number[];
  waveSum: number;
  waveMs: number;
  splitCall: number[];
  splitMs: number;
  noComm: string;
  stats: { sent_msgs: number; recv_msgs: number; sent_bytes: number; recv_bytes: number };
}

function smoke(np: number): SmokeResult[] {
  const run = mpirun(np, SCRIPT);
  expect(run.status, `mpirun -np ${np} failed:\n${run.output}`).to.equal(0);
  const lines = run.stdout.split('\n').filter((l) => l.startsWith('NATIVE-SMOKE '));
  return lines.map((l) => JSON.parse(l.slice('NATIVE-SMOKE '.length)) as SmokeResult).sort((a, b) => a.rank - b.rank);
}

describe('native addon under mpirun', function () {
  this.timeout(180_000);

  for (const np of [2, 3]) {
    it(`exchanges 16 MiB payloads between all pairs, allreduces and runs comm-thread jobs at ${np} ranks`, () => {
      const results = smoke(np);
      expect(results.map((r) => r.rank)).to.deep.equal([...Array(np).keys()]);
      const payload = 16 * 2 ** 20 + 2;
      for (const r of results) {
        expect(r).to.include({ size: np, mpi: true, bad: 0 });
        expect(r.allreduce).to.deep.equal([np, (np * (np - 1)) / 2, 0]);
        expect(r.inOrder, 'a delayed allreduce, then one started at once').to.deep.equal([(np * (np - 1)) / 2, np, 5 * np * (np - 1), np, np]);
        expect(r.inOrderPolling, 'the same while the JS thread polls').to.deep.equal(r.inOrder);
        expect(r.waveSum).to.equal(np);
        expect(r.waveMs, 'a 100 ms delay, counted once').to.be.within(95, 190);
        expect(r.splitCall.slice(0, 2), 'the two allreduces').to.deep.equal([np, np]);
        expect(r.splitCall[2], 'the split gave a communicator').to.be.greaterThan(0);
        expect(r.splitMs, 'the split waits for the 100 ms allreduce before it, not for the JS thread').to.be.within(95, 500);
        expect(r.noComm).to.match(/no communicator 99/);
        expect(r.stats.sent_msgs).to.equal(np * 6);
        expect(r.stats.recv_msgs).to.equal(np * 6);
        expect(r.stats.recv_bytes).to.be.greaterThan(np * payload);
        if (r.rank < 2) {
          expect(r.pingpong![0], 'seconds per round trip').to.be.greaterThan(0);
          expect(r.pingpong![1], 'payloads failing the check').to.equal(0);
        } else {
          expect(r.pingpong).to.equal(null);
          expect(r.failedJob).to.match(/^ttg_native: pingpong: need a peer rank other than self/);
        }
        // 50 kernels of 20 us in sequence on every rank, plus the exchanges
        expect(r.stencil, 'raw stencil seconds').to.be.within(50 * 20e-6, 5);
        expect(r.badStencil).to.match(/stencil: needs steps >= 1/);
      }
    });
  }

  for (const poll of [false, true]) {
    it(`starts blocking collectives (a split, a job) in call order across communicators, behind a delayed one, at 2 ranks${poll ? ', while the JS thread polls' : ''}`, () => {
      const script = fileURLToPath(new URL('../mpi/blocking-order.js', import.meta.url));
      const out = rankResults<{ rank: number; sum: number; comm: number; jobOk: boolean; ms: number }>(2, script, poll ? ['poll'] : [], 60_000);
      for (const r of out) expect([r.sum, r.comm > 0, r.jobOk], `rank ${r.rank}`).to.deep.equal([2, true, true]);
      // rank 0's allreduce waited out its delay, and nothing waited much longer
      expect(out[0]!.ms).to.be.within(290, 5000);
    });
  }
});
