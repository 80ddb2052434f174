/**
 * Benchmarks that must run on 2 ranks start themselves under `mpirun -np 2` when launched
 * plainly, print the ranks' human lines, and end with the single JSON line rank 0 printed.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * When this process was not started by mpirun, runs `script` (an `import.meta.url`) under
 * `mpirun -np 2` (plus `BENCH_MPIRUN_ARGS`), relays its output and exits; otherwise returns.
 */
export function relaunchUnderMpirun(script: string): void {
  if (process.env['OMPI_COMM_WORLD_SIZE'] !== undefined) return;
  const extra = (process.env['BENCH_MPIRUN_ARGS'] ?? '').split(' ').filter((s) => s !== '');
  const args = ['-np', '2', '--oversubscribe', '--allow-run-as-root', ...extra, process.execPath, fileURLToPath(script)];
  const run = spawnSync('mpirun', args, {
    encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', OPENBLAS_NUM_THREADS: '1' }, timeout: 600_000, maxBuffer: 64 << 20,
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
  const script = fileURLToPath(new URL(`../examples/${example}/main.js`, import.meta.url));
  const run = spawnSync('mpirun', ['-np', '2', '--oversubscribe', '--allow-run-as-root', process.execPath, script, ...args, '--json'], {
    encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', OPENBLAS_NUM_THREADS: '1' }, timeout: 600_000,
  });
  const last = run.stdout?.trim().split('\n').pop();
  if (run.status !== 0 || last === undefined) {
    console.log(`mpirun -np 2 failed (${run.status}): ${run.stderr?.slice(0, 400)}`);
    return null;
  }
  return (JSON.parse(last) as { gflops: number }).gflops;
}
