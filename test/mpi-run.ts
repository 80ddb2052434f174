/**
 * Runs a compiled script under real `mpirun` for the distributed tests (not a test file itself).
 */
import { spawnSync } from 'node:child_process';

import { requireNative } from '../src/native/addon.js';

/** Runs `node <script> ...args` under mpirun; returns exit status, stdout, stderr and elapsed seconds. */
export function mpirun(np: number, file: string, args: string[] = [], timeoutMs = 120_000, extraEnv: Record<string, string> = {}) {
  if (spawnSync('mpirun', ['--version']).error) throw new Error('mpirun not found: run scripts/install-system-packages.sh');
  if (!requireNative().info().mpi) throw new Error('the addon was built without MPI: install MPI, then npm run build:native');
  const env = {
    ...process.env,
    NO_COLOR: '1',
    OPENBLAS_NUM_THREADS: '1',
    OMPI_MCA_btl_vader_single_copy_mechanism: process.env['OMPI_MCA_btl_vader_single_copy_mechanism'] ?? 'none',
    ...extraEnv,
  };
  const t0 = performance.now();
  const run = spawnSync('mpirun', ['-np', String(np), '--oversubscribe', '--allow-run-as-root', process.execPath, file, ...args], {
    encoding: 'utf8', env, timeout: timeoutMs,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr, output: `${run.stdout}\n${run.stderr}`, seconds: (performance.now() - t0) / 1000 };
}

