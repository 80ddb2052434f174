import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { requireNative } from '../../src/native/addon.js';

const SCRIPT = fileURLToPath(new URL('../mpi/native-smoke.js', import.meta.url));

interface SmokeResult {
  rank: number;
  size: number;
  mpi: boolean;
  bad: number;
  pingpong: [number, number] | null;
  allreduce: number[];
  stats: { sent_msgs: number; recv_msgs: number; sent_bytes: number; recv_bytes: number };
}

function mpirun(np: number): SmokeResult[] {
  const probe = spawnSync('mpirun', ['--version'], { encoding: 'utf8' });
  if (probe.error) {
    throw new Error('mpirun not found: run `sudo scripts/install-system-packages.sh`, then `npm run build:native`');
  }
  if (!requireNative().info().mpi) {
    throw new Error('the addon was built without MPI: install MPI (scripts/install-system-packages.sh) and `npm run build:native`');
  }
  const env = {
    ...process.env,
    NO_COLOR: '1',
    OPENBLAS_NUM_THREADS: '1',
    OMPI_MCA_btl_vader_single_copy_mechanism: process.env['OMPI_MCA_btl_vader_single_copy_mechanism'] ?? 'none',
  };
  const args = ['-np', String(np), '--oversubscribe', '--allow-run-as-root', process.execPath, SCRIPT];
  const run = spawnSync('mpirun', args, { encoding: 'utf8', env, timeout: 120_000 });
  const out = `${run.stdout}\n${run.stderr}`;
  expect(run.status, `mpirun -np ${np} failed:\n${out}`).to.equal(0);
  const lines = run.stdout.split('\n').filter((l) => l.startsWith('NATIVE-SMOKE '));
  return lines.map((l) => JSON.parse(l.slice('NATIVE-SMOKE '.length)) as SmokeResult).sort((a, b) => a.rank - b.rank);
}

describe('native addon under mpirun', function () {
  this.timeout(180_000);

  for (const np of [2, 3]) {
    it(`exchanges 16 MiB payloads between all pairs and allreduces at ${np} ranks`, () => {
      const results = mpirun(np);
      expect(results.map((r) => r.rank)).to.deep.equal([...Array(np).keys()]);
      const payload = 16 * 2 ** 20 + 2;
      for (const r of results) {
        expect(r).to.include({ size: np, mpi: true, bad: 0 });
        expect(r.allreduce).to.deep.equal([np, (np * (np - 1)) / 2, 0]);
        expect(r.stats.sent_msgs).to.equal(np * 6);
        expect(r.stats.recv_msgs).to.equal(np * 6);
        expect(r.stats.recv_bytes).to.be.greaterThan(np * payload);
        if (r.rank < 2) {
          expect(r.pingpong![0], 'seconds per round trip').to.be.greaterThan(0);
          expect(r.pingpong![1], 'payloads failing the check').to.equal(0);
        } else {
          expect(r.pingpong).to.equal(null);
        }
      }
    });
  }
});
