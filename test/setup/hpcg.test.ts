/**
 * The HPCG example end to end on 1, 2 and 3 ranks: --check runs every rank's program in one
 * process and expects the task graph's bits; the symmetry tests pass; and on a 16^3 block per rank
 * the scaled residual after 50 preconditioned iterations is the one HPCG's reference code (3.1,
 * built with mpicxx -O3, `xhpcg --nx=16 --ny=16 --nz=16`) prints as "Scaled residual mean" on the
 * same number of ranks.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';
import { scratchDir } from '../scratch-dir.js';

const MAIN = fileURLToPath(new URL('../../examples/hpcg/main.js', import.meta.url));

interface HpcgJson {
  example: string; nx: number; ny: number; nz: number; ranks: number; kernel: string; iterations: number; relres: number;
  relres_unpreconditioned: number; symmetry: { spmv: number; mg: number }; gflops: number; ok: boolean;
}

const parse = (stdout: string): HpcgJson => JSON.parse(stdout.trim().split('\n').pop()!) as HpcgJson;

function run(np: number, args: string[]): HpcgJson {
  const r = np === 1
    ? spawnSync(process.execPath, [MAIN, ...args, '--check', '--json'], { encoding: 'utf8', timeout: 120_000 })
    : mpirun(np, MAIN, [...args, '--check', '--json']);
  expect(r.status, r.stderr).to.equal(0);
  return parse(r.stdout);
}

/** HPCG 3.1's "Scaled residual mean" for a 16^3 block per rank, by rank count (printed to 6 digits). */
const REFERENCE_RELRES: Record<number, number> = { 1: 3.66234e-41, 2: 7.53688e-32, 3: 1.045e-28 };

describe('HPCG example', function () {
  this.timeout(240_000);

  for (const kernel of ['native', 'js']) {
    for (const np of [1, 2, 3]) {
      it(`16^3 per rank on ${np} rank(s), ${kernel} kernels: the task graph's bits, symmetric operators, and the reference code's residual`, () => {
        const r = run(np, ['--nx', '16', '--ny', '16', '--nz', '16', '--kernel', kernel]);
        expect(r).to.include({ example: 'hpcg', ranks: np, kernel, iterations: 50, ok: true });
        expect(r.symmetry.spmv).to.be.at.most(1);
        expect(r.symmetry.mg).to.be.at.most(1);
        expect(r.relres / REFERENCE_RELRES[np]!).to.be.closeTo(1, 1e-5);
        expect(r.gflops).to.be.greaterThan(0);
      });
    }
  }

  it('16^3 per rank on 8 ranks (2 x 2 x 2: halos through faces, edges and corners): the task graph\'s bits, and the reference\'s residual but for the order of 8-way sums', () => {
    const r = run(8, ['--nx', '16', '--ny', '16', '--nz', '16']);
    expect(r).to.include({ ranks: 8, iterations: 50, ok: true });
    // HPCG 3.1 prints 1.74862e-19 here; MPI_Allreduce adds 8 partials in another order than rank
    // order, and after 50 iterations that rounding shows at this depth
    expect(r.relres / 1.74862e-19).to.be.closeTo(1, 0.1);
  });

  it('an uneven block (8 x 16 x 24) on 2 ranks, with fewer iterations, both kernels', () => {
    for (const kernel of ['native', 'js']) {
      const r = run(2, ['--nx', '8', '--ny', '16', '--nz', '24', '--iters', '7', '--kernel', kernel]);
      expect(r).to.include({ nx: 8, ny: 16, nz: 24, kernel, iterations: 7, ok: true });
      expect(r.relres).to.be.below(r.relres_unpreconditioned);
    }
  });

  it('without a C compiler the default is the JavaScript kernels, with a line saying why; --kernel native then fails', () => {
    // a fresh TMPDIR: no kernel library built before; a PATH without cc
    const env = { ...process.env, TMPDIR: scratchDir('hpcg-nocc-'), PATH: '/nonexistent' };
    const auto = spawnSync(process.execPath, [MAIN, '--nx', '8', '--ny', '8', '--nz', '8', '--iters', '3', '--json'], { encoding: 'utf8', env });
    expect(auto.status, auto.stderr).to.equal(0);
    expect(parse(auto.stdout).kernel).to.equal('js');
    expect(auto.stderr).to.match(/hpcg: JavaScript kernels \(the native ones are unavailable: .*cc/);
    const forced = spawnSync(process.execPath, [MAIN, '--nx', '8', '--ny', '8', '--nz', '8', '--kernel', 'native'], { encoding: 'utf8', env });
    expect(forced.status).to.not.equal(0);
    expect(forced.stderr).to.match(/cc/);
  });

  it('rejects a block that four multigrid levels cannot halve, and an unknown kernel', () => {
    const r = spawnSync(process.execPath, [MAIN, '--nx', '12'], { encoding: 'utf8' });
    expect(r.status).to.equal(2);
    expect(r.stderr).to.include('--nx must be a multiple of 8');
    const k = spawnSync(process.execPath, [MAIN, '--kernel', 'fortran'], { encoding: 'utf8' });
    expect(k.status).to.equal(2);
    expect(k.stderr).to.include("--kernel must be js or native, got 'fortran'");
  });
});
