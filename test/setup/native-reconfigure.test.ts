/**
 * The native build looks for MPI again at every configure: a first configure that did not find it
 * (simulated with compiler wrappers that do not exist, which CMake caches like a failed search)
 * does not keep a later one, after the packages are installed, from finding it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const cmakeJs = join(root, 'node_modules', '.bin', 'cmake-js');

/** Configures the addon into `dir` with extra cache definitions; returns the MPI status line. */
function configure(dir: string, defs: string[]): string {
  const run = spawnSync(cmakeJs, ['configure', '-d', join(root, 'native'), '-O', dir, '--CDTTG_WITH_CUDA=OFF', ...defs.map((d) => `--CD${d}`)],
    { encoding: 'utf8', cwd: root, timeout: 120_000 });
  expect(run.status, run.stderr).to.equal(0);
  return run.stdout.split('\n').find((l) => l.includes('MPI  :')) ?? '';
}

describe('native build configuration', function () {
  this.timeout(240_000);

  it('finds MPI on a later configure after a configure that did not (MPI installed, as the suite requires)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ttg-reconfigure-'));
    try {
      expect(configure(dir, ['MPI_C_COMPILER=/nonexistent/mpicc', 'MPIEXEC_EXECUTABLE=/nonexistent/mpiexec'])).to.include('NOT found');
      expect(configure(dir, [])).to.include('found: MPI');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
