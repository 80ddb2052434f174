/**
 * Fences that fail without a body throwing (E_HANG, E_INCOMPLETE from a strict fence,
 * E_COLLECTIVE) show in the HTML report's Errors and in the live dashboard's error list, at 1 and
 * 2 ranks, each on the rank that raised it (test/mpi/run-failures.ts makes them).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';
import { startDashboardRun } from './dashboard-run.js';
import { resultLines } from './rank-results.js';
import { scratchDir } from '../scratch-dir.js';

const SCRIPT = fileURLToPath(new URL('../mpi/run-failures.js', import.meta.url));
const HANG = { TTG_HANG_TIMEOUT: '0.5' };

/** The report's Errors rows: [rank, code, TT, key, message, at ms]. */
function errorRows(html: string): string[][] {
  const at = html.indexOf('<h2>Errors</h2>');
  const body = html.slice(at, html.indexOf('<h2>', at + 1));
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].slice(1).map((m) => [...m[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => c[1]!));
}

/** Runs the failure `mode` at `np` ranks with TTG_REPORT: exit status, output, each rank's code, the report's errors. */
function reportOf(np: number, mode: string, env: Record<string, string> = {}) {
  const dir = scratchDir('ttg-failures-');
  const file = join(dir, 'run.html');
  const all = { ...env, TTG_REPORT: file };
  const run = np === 1
    ? spawnSync(process.execPath, [SCRIPT, mode], { encoding: 'utf8', env: { ...process.env, ...all }, timeout: 60_000 })
    : mpirun(np, SCRIPT, [mode], 60_000, all);
  const output = `${run.stdout}\n${run.stderr}`;
  const codes = resultLines<{ rank: number; code: string }>(run.stdout).sort((a, b) => a.rank - b.rank).map((r) => r.code);
  return { status: run.status, output, codes, errors: errorRows(readFileSync(file, 'utf8')) };
}

describe('failures not raised by a body, in the report and on the dashboard', function () {
  this.timeout(120_000);

  describe('the report (TTG_REPORT)', () => {
    it('1 rank: E_HANG, with what the rank holds', () => {
      const r = reportOf(1, 'hang', HANG);
      expect(r.status, r.output).to.equal(0);
      expect(r.codes).to.deep.equal(['E_HANG']);
      expect(r.errors.map((e) => e.slice(0, 2))).to.deep.equal([['0', 'E_HANG']]);
      expect(r.errors[0]![4]).to.include('no progress').and.to.include('STUCK[0]');
    });

    for (const np of [1, 2]) {
      it(`${np} rank(s): E_INCOMPLETE of a strict fence, once per rank`, () => {
        const r = reportOf(np, 'incomplete');
        expect(r.status, r.output).to.equal(0);
        expect(r.codes).to.deep.equal(Array(np).fill('E_INCOMPLETE'));
        expect(r.errors.map((e) => `${e[0]} ${e[1]}`).sort()).to.deep.equal([...Array(np).keys()].map((k) => `${k} E_INCOMPLETE`));
        expect(r.errors.find((e) => e[0] === '0')![4]).to.include('JOIN[1]');
      });
    }

    it('2 ranks: E_COLLECTIVE (a fence meeting a barrier), on both ranks', () => {
      const r = reportOf(2, 'collective');
      expect(r.status, r.output).to.equal(0);
      expect(r.codes).to.deep.equal(['E_COLLECTIVE', 'E_COLLECTIVE']);
      expect(r.errors.map((e) => `${e[0]} ${e[1]}`).sort()).to.deep.equal(['0 E_COLLECTIVE', '1 E_COLLECTIVE']);
      expect(r.errors[0]![4]).to.include('rank 0 called fence(), rank 1 called barrier()');
    });

    it('2 ranks: E_HANG on rank 0 (the job then ends non-zero, as after any hang under mpirun)', () => {
      const dir = scratchDir('ttg-failures-');
      const r = reportOf(2, 'hang', { ...HANG, RANK0_FIRST: join(dir, 'rank0-done') });
      expect(r.status, r.output).to.not.equal(0);
      expect(r.codes, r.output).to.deep.equal(['E_HANG', 'E_HANG']);
      // a world that hung gathers no other rank's data: rank 0's own hang
      expect(r.errors.map((e) => e.slice(0, 2))).to.deep.equal([['0', 'E_HANG']]);
    });
  });

  describe('the live dashboard (TTG_DASHBOARD)', () => {
    interface State { errors: Array<{ code: string; rank: number; message: string }> }

    /** Runs `mode` with the dashboard at `np` ranks; the errors it shows once `codes` are all there (or after 20 s). */
    async function dashboardErrors(np: number, mode: string, codes: string[], env: Record<string, string> = {}) {
      const release = join(scratchDir('ttg-failures-'), 'seen');
      const run = await startDashboardRun('0', [mode], SCRIPT, { ...env, WAIT_FOR: release }, np);
      let state: State = { errors: [] };
      try {
        for (let i = 0; i < 100; i++) {
          state = (await (await fetch(`${run.url}state`)).json()) as State;
          if (codes.every((c) => state.errors.some((e) => e.code === c))) break;
          await new Promise((r) => setTimeout(r, 200));
        }
      } finally {
        writeFileSync(release, 'seen');
      }
      return { state, status: await run.exited, output: run.output() };
    }

    it('1 rank: E_HANG', async () => {
      const r = await dashboardErrors(1, 'hang', ['E_HANG'], HANG);
      expect(r.status, r.output).to.equal(0);
      expect(r.state.errors.map((e) => `${e.rank} ${e.code}`)).to.deep.equal(['0 E_HANG']);
    });

    it('2 ranks: E_COLLECTIVE from both ranks', async () => {
      const r = await dashboardErrors(2, 'collective', ['E_COLLECTIVE']);
      expect(r.status, r.output).to.equal(0);
      expect(r.state.errors.map((e) => `${e.rank} ${e.code}`).sort()).to.deep.equal(['0 E_COLLECTIVE', '1 E_COLLECTIVE']);
    });

    it('2 ranks: E_INCOMPLETE from both ranks', async () => {
      const r = await dashboardErrors(2, 'incomplete', ['E_INCOMPLETE']);
      expect(r.status, r.output).to.equal(0);
      expect(r.state.errors.map((e) => `${e.rank} ${e.code}`).sort()).to.deep.equal(['0 E_INCOMPLETE', '1 E_INCOMPLETE']);
    });

    it('2 ranks: E_HANG, from rank 0 at least (a rank that hung sends no more summaries)', async () => {
      const r = await dashboardErrors(2, 'hang', ['E_HANG'], HANG);
      expect(r.state.errors.map((e) => `${e.rank} ${e.code}`)).to.include('0 E_HANG');
      expect(r.status, r.output).to.not.equal(0);
    });
  });
});
