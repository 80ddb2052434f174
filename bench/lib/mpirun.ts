/**
 * The one launcher of `mpirun` for tests and benchmarks. Benchmarks that must run on 2 ranks
 * start themselves under `mpirun -np 2` when launched plainly, print the ranks' human lines, and
 * end with the single JSON line rank 0 printed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { requireNative } from '../../src/native/addon.js';

/** Flags of every launch: root in containers, more ranks than cores. */
const MPIRUN_FLAGS = ['--oversubscribe', '--allow-run-as-root'];
/** Environment of every launch (one BLAS thread per rank; no colors in captured output). */
const launchEnv = (extra: Record<string, string> = {}) => ({ ...process.env, NO_COLOR: '1', OPENBLAS_NUM_THREADS: '1', ...extra });

/** The command line and environment of `node <file> ...args` under `mpirun -np np`, for a spawn of one's own. */
export function mpirunCommand(np: number, file: string, args: string[] = [], extraEnv: Record<string, string> = {}) {
  if (spawnSync('mpirun', ['--version']).error) throw new Error('mpirun not found: run scripts/install-system-packages.sh');
  if (!requireNative().info().mpi) throw new Error('the addon was built without MPI: install MPI, then npm run build:native');
  const env = launchEnv({ OMPI_MCA_btl_vader_single_copy_mechanism: process.env['OMPI_MCA_btl_vader_single_copy_mechanism'] ?? 'none', ...extraEnv });
  return { command: 'mpirun', args: ['-np', String(np), ...MPIRUN_FLAGS, process.execPath, file, ...args], env };
}

/**
 * Runs `node <script> ...args` under mpirun; returns exit status, stdout, stderr and elapsed
 * seconds. Each rank's output goes to files of its own (`--output-filename`), read back in rank
 * order: through mpirun's forwarding, the long lines of two ranks can interleave under load.
 */
export function mpirun(np: number, file: string, args: string[] = [], timeoutMs = 120_000, extraEnv: Record<string, string> = {}) {
  const c = mpirunCommand(np, file, args, extraEnv);
  const dir = mkdtempSync(join(tmpdir(), 'ttg-mpirun-'));
  try {
    const t0 = performance.now();
    const run = spawnSync(c.command, ['--output-filename', `${dir}:nocopy`, ...c.args], { encoding: 'utf8', env: c.env, timeout: timeoutMs, maxBuffer: 64 << 20 });
    const ranks = (what: 'stdout' | 'stderr') => [...Array(np).keys()].map((r) => rankFile(dir, r, what)).join('');
    const stdout = `${run.stdout ?? ''}${ranks('stdout')}`;
    const stderr = `${run.stderr ?? ''}${ranks('stderr')}`;
    return { status: run.status, stdout, stderr, output: `${stdout}\n${stderr}`, seconds: (performance.now() - t0) / 1000 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What rank `rank` wrote to `what` under `mpirun --output-filename dir` (`dir/<job>/rank.<rank>/<what>`). */
function rankFile(dir: string, rank: number, what: 'stdout' | 'stderr'): string {
  for (const job of readdirSync(dir)) {
    const f = join(dir, job, `rank.${rank}`, what);
    if (existsSync(f)) return readFileSync(f, 'utf8');
  }
  return '';
}

/**
 * When this process was not started by mpirun, runs `script` (an `import.meta.url`) under
 * `mpirun -np 2` (plus `BENCH_MPIRUN_ARGS`), relays its output and exits; otherwise returns.
 */
export function relaunchUnderMpirun(script: string): void {
  if (process.env['OMPI_COMM_WORLD_SIZE'] !== undefined) return;
  const extra = (process.env['BENCH_MPIRUN_ARGS'] ?? '').split(' ').filter((s) => s !== '');
  const args = ['-np', '2', ...MPIRUN_FLAGS, ...extra, process.execPath, fileURLToPath(script)];
  const run = spawnSync('mpirun', args, {
    encoding: 'utf8', env: launchEnv(), timeout: 600_000, maxBuffer: 64 << 20,
  });
  if (run.error) throw run.error;
  const lines = run.stdout.split('\n').filter((l) => l !== '');
  const json = lines.filter((l) => l.startsWith('{'));
  for (const l of lines) if (!l.startsWith('{')) console.log(l);
  if (run.status !== 0 || json.length !== 1) {
    process.stderr.write(run.stderr);
    console.error(`mpirun ${args.join(' ')} exited with ${run.status}`);
    process.exit(1);
  }
  console.log(json[0]);
  process.exit(0);
}

/**
 * Runs an example under `mpirun -np 2` with `args` (its CLI, `--json` added) and returns the
 * `gflops` of its JSON line, or null (after saying why) when the run failed.
 */
export function exampleGflopsOnTwoRanks(example: string, args: readonly string[]): number | null {
  const script = fileURLToPath(new URL(`../../examples/${example}/main.js`, import.meta.url));
  const run = spawnSync('mpirun', ['-np', '2', ...MPIRUN_FLAGS, process.execPath, script, ...args, '--json'], {
    encoding: 'utf8', env: launchEnv(), timeout: 600_000,
  });
  const last = run.stdout?.trim().split('\n').pop();
  if (run.status !== 0 || last === undefined) {
    console.log(`mpirun -np 2 failed (${run.status}): ${run.stderr?.slice(0, 400)}`);
    return null;
  }
  return (JSON.parse(last) as { gflops: number }).gflops;
}
