/**
 * Starts test/mpi/dashboard.ts (or another program) under `mpirun -np 2` (or `np`) with the dashboard on,
 * for the tests that look at the live page over HTTP (dashboard.test.ts) and in a browser
 * (dashboard-browser.test.ts), and for scripts/screenshots.mjs.
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
 * Starts the run of `script` with `TTG_DASHBOARD=dashboard`, `args` (dashboard.ts: the chain's
 * length) and `env`; resolves once rank 0 printed the dashboard's URL, before the first task runs.
 */
export function startDashboardRun(dashboard: string, args: string[] = [], script = SCRIPT, env: Record<string, string> = {}, np = 2): Promise<DashboardRun> {
  const c = mpirunCommand(np, script, args, { ...env, TTG_DASHBOARD: dashboard });
  return spawnDashboardRun(c.command, c.args, c.env);
}

/** Spawns `command args` (a run with TTG_DASHBOARD in `env`); resolves once it printed the dashboard's URL. */
export function spawnDashboardRun(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<DashboardRun> {
  const child = spawn(command, args, { env });
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
