/**
 * Starts test/mpi/dashboard.ts under `mpirun -np 2` with the dashboard on, for the tests that
 * look at the live page over HTTP (dashboard.test.ts) and in a browser (dashboard-browser.test.ts).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { mpirunCommand } from '../../bench/lib/mpirun.js';

const SCRIPT = fileURLToPath(new URL('../mpi/dashboard.js', import.meta.url));

/** A started run: the page's URL as printed, its exit status to come, its output so far. */
export interface DashboardRun {
  url: string;
  exited: Promise<number | null>;
  output: () => string;
}

/**
 * Starts the run with `TTG_DASHBOARD=dashboard` and `args` (the chain's length); resolves once
 * rank 0 printed the dashboard's URL, which is before the first task runs.
 */
export function startDashboardRun(dashboard: string, args: string[] = []): Promise<DashboardRun> {
  const c = mpirunCommand(2, SCRIPT, args, { TTG_DASHBOARD: dashboard });
  const child = spawn(c.command, c.args, { env: c.env });
  let out = '';
  child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /ttg: dashboard on (\S+)/.exec(out);
      if (m !== null) resolve({ url: m[1]!, exited, output: () => out });
    });
    child.on('exit', () => reject(new Error(`the run ended without a dashboard line:\n${out}`)));
  });
}
