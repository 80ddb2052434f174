/**
 * A build without MPI or BLAS says so on stderr when a program initializes (never a silent slow
 * run); a full build says nothing.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { buildWarning } from '../../src/world/build-warning.js';
import { requireNative } from '../../src/native/addon.js';

describe('build warning', () => {
  it('names what the addon lacks and how to get it, and nothing for a full build', () => {
    expect(buildWarning({ mpi: false, blas: false })).to.include('without MPI (one rank only) and without BLAS')
      .and.include('scripts/install-system-packages.sh');
    expect(buildWarning({ mpi: true, blas: false })).to.match(/without BLAS \(plain-loop kernels, far slower\); run /);
    expect(buildWarning({ mpi: false, blas: true })).to.include('without MPI (one rank only);');
    expect(buildWarning(null, 'cannot open shared object')).to.include('did not load (cannot open shared object)');
    expect(buildWarning({ mpi: true, blas: true })).to.equal(undefined);
  });

  it('an example run with this build prints the warning exactly when the addon lacks MPI or BLAS', () => {
    const main = fileURLToPath(new URL('../../examples/potrf/main.js', import.meta.url));
    const run = spawnSync(process.execPath, [main, '--n', '64', '--nb', '32', '--json'], { encoding: 'utf8', timeout: 60_000 });
    expect(run.status, run.stderr).to.equal(0);
    const info = requireNative().info();
    const lines = run.stderr.split('\n').filter((l) => l.startsWith('ttg: the native addon'));
    expect(lines).to.have.length(info.mpi && info.blas ? 0 : 1);
  });
});
