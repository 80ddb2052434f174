/**
 * TTs and edges named like members of Object.prototype (`__proto__`, `constructor`, `toString`,
 * `hasOwnProperty`, `__defineGetter__`, `valueOf`) in whole runs, at 1 rank and at 2 under mpirun
 * (test/mpi/dashboard-names.ts): with TTG_DASHBOARD, the state rank 0 serves gives each TT its
 * exact counts on each rank, while its tasks are ready, waiting and held and after they ran, though
 * a rank also sent a hostile summary; with TTG_REPORT and TTG_TRACE, each is a row of the report's
 * per-TT table and a track of events of the trace. Every rank's Object.prototype stays empty and the
 * program's own sum exact.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';
import { spawnDashboardRun, startDashboardRun, type DashboardRun } from './dashboard-run.js';
import { resultLines } from './rank-results.js';
import { scratchDir } from '../scratch-dir.js';

const SCRIPT = fileURLToPath(new URL('../mpi/dashboard-names.js', import.meta.url));
const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', '__defineGetter__', 'valueOf'];
/** Per rank, TT j has j + 1 tasks ready, j + 2 waiting and 3 held, then runs them all. */
const WAITS = (j: number): number[] => [0, j + 1, j + 2, 3];
const RUNS = (j: number): number => j + 1 + j + 2 + 3;

interface Result { rank: number; total: number; want: number; prototype: { keys: string[]; third: string } }
interface State { ranks: Array<{ rank: number; tts: object }> }

/** `o[k]` when `k` is `o`'s own key (JSON.parse makes `__proto__` one), else undefined. */
const own = (o: object, k: string): unknown => (Object.hasOwn(o, k) ? (o as Record<string, unknown>)[k] : undefined);

/** Starts the program in one process (local transport) with TTG_DASHBOARD=0; resolves once it prints the URL. */
function startAlone(args: string[]): Promise<DashboardRun> {
  return spawnDashboardRun(process.execPath, [SCRIPT, ...args], { ...process.env, TTG_DASHBOARD: '0' });
}

/** Reads the state every 100 ms until every rank's TT `NAMES[j]` has `want(j)`; the last state read otherwise after 30 s. */
async function until(run: DashboardRun, np: number, want: (j: number) => number[]): Promise<State> {
  let s: State = { ranks: [] };
  const ok = (st: State): boolean => st.ranks.length === np && st.ranks.every((r) => NAMES.every((n, j) => JSON.stringify(own(r.tts, n)) === JSON.stringify(want(j))));
  for (const end = Date.now() + 30_000; Date.now() < end;) {
    s = (await (await fetch(`${run.url}state`)).json()) as State;
    if (ok(s)) return s;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the counts never read as expected; last state: ${JSON.stringify(s.ranks.map((r) => [r.rank, r.tts]))}\n${run.output()}`);
}

/** Every rank's sum exact and Object.prototype empty. */
function clean(results: Result[], np: number, output: string): void {
  expect(results.map((r) => r.rank).sort(), output).to.deep.equal([...Array(np).keys()]);
  for (const r of results) {
    expect(r.prototype, `rank ${r.rank}'s Object.prototype`).to.deep.equal({ keys: [], third: 'undefined' });
    expect(r.total, `rank ${r.rank}'s sum`).to.equal(r.want);
  }
}

describe('TTs and edges named like members of Object.prototype, in whole runs', function () {
  this.timeout(180_000);

  for (const np of [1, 2]) {
    it(`at ${np} rank(s) with TTG_DASHBOARD: each TT's counts exact in the served state, waiting and done; Object.prototype untouched everywhere`, async () => {
      const signal = join(scratchDir('ttg-names-'), 'step');
      const run = np === 1 ? await startAlone([signal]) : await startDashboardRun('0', [signal], SCRIPT, {}, np);
      try {
        await until(run, np, WAITS);
        writeFileSync(`${signal}.counted`, '');
        await until(run, np, (j) => [RUNS(j), 0, 0, 0]);
        writeFileSync(`${signal}.done`, '');
        expect(await run.exited, run.output()).to.equal(0);
      } finally {
        writeFileSync(`${signal}.counted`, '');
        writeFileSync(`${signal}.done`, '');
      }
      clean(resultLines<Result>(run.output()), np, run.output());
    });

    it(`at ${np} rank(s) with TTG_REPORT and TTG_TRACE: a report row and trace events for each name; Object.prototype untouched`, () => {
      const dir = scratchDir('ttg-names-');
      const env = { TTG_REPORT: join(dir, 'run.html'), TTG_TRACE: join(dir, 'trace.json') };
      const run = np === 1
        ? spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 })
        : mpirun(np, SCRIPT, [], 60_000, env);
      const output = `${run.stdout}\n${run.stderr}`;
      expect(run.status, output).to.equal(0);
      clean(resultLines<Result>(run.stdout), np, output);
      const html = readFileSync(env.TTG_REPORT, 'utf8');
      const perTt = html.slice(html.indexOf('<h2>Per TT</h2>'), html.indexOf('</table>', html.indexOf('<h2>Per TT</h2>')));
      const rows = [...perTt.matchAll(/<tr>(.*?)<\/tr>/g)].slice(1).map((m) => [...m[1]!.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((c) => c[1]!));
      expect(rows.map((r) => r[0]).sort()).to.deep.equal([...NAMES].sort());
      for (const [j, n] of NAMES.entries()) expect(rows.find((r) => r[0] === n)![1], n).to.equal(String(np * RUNS(j)));
      const events = (JSON.parse(readFileSync(env.TTG_TRACE, 'utf8')) as { traceEvents: Array<{ name: string; ph: string; cat?: string }> }).traceEvents;
      for (const [j, n] of NAMES.entries()) expect(events.filter((e) => e.ph === 'X' && e.cat === 'task' && e.name === n), n).to.have.length(np * RUNS(j));
    });
  }
});
