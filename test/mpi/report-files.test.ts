/**
 * A trace or report that cannot be written (TTG_TRACE, TTG_REPORT: a directory, a path under a
 * regular file, a missing directory) does not take the job down: `finalize()` ends on every rank
 * (MPI finalized, exit 0, every rank's output there), and rank 0 warns on stderr naming the
 * variable, the path and the OS error, at `initialize()` and again at `finalize()`. One file
 * failing leaves the other written. At 1 rank and under mpirun -np 2.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';
import { resultLines } from './rank-results.js';
import { scratchDir } from '../scratch-dir.js';

const SCRIPT = fileURLToPath(new URL('../mpi/report.js', import.meta.url));

/** Runs test/mpi/report.ts at `np` ranks with `env`: exit status, output, each rank's result. */
function run(np: number, env: Record<string, string>) {
  const r = np === 1
    ? spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 })
    : mpirun(np, SCRIPT, [], 60_000, env);
  const results = resultLines<{ rank: number; failed: string }>(r.stdout);
  return { status: r.status, stderr: String(r.stderr), output: `${r.stdout}\n${r.stderr}`, ranks: results.map((x) => x.rank).sort() };
}

describe('a trace or report that cannot be written (TTG_TRACE, TTG_REPORT)', function () {
  this.timeout(120_000);
  let dir = '';
  let file = '';

  before(() => {
    dir = scratchDir('ttg-files-');
    file = join(dir, 'a-file');
    writeFileSync(file, 'not a directory');
    mkdirSync(join(dir, 'a-dir'));
  });

  for (const np of [1, 2]) {
    it(`at ${np} rank(s): TTG_REPORT a directory, TTG_TRACE under a regular file: finalize ends everywhere, exit 0, a warning names each`, () => {
      const report = join(dir, 'a-dir');
      const trace = join(file, 'trace.json');
      const r = run(np, { TTG_REPORT: report, TTG_TRACE: trace });
      expect(r.status, r.output).to.equal(0);
      expect(r.ranks, r.output).to.deep.equal([...Array(np).keys()]);
      expect(r.output).to.not.include('MPI_ABORT').and.to.not.include('without ttg.finalize()');
      expect(r.stderr).to.include(`ttg: TTG_REPORT=${report} was not written (EISDIR`);
      expect(r.stderr).to.include(`ttg: TTG_TRACE=${trace} was not written (ENOTDIR`);
      // said at the start too, so that a long run is not wasted
      expect(r.stderr).to.include(`ttg: TTG_REPORT=${report} cannot be written (it is a directory)`);
      expect(r.stderr).to.include(`ttg: TTG_TRACE=${trace} cannot be written (ENOTDIR`);
    });

    it(`at ${np} rank(s): TTG_REPORT in a missing directory: a warning (ENOENT), and the trace asked beside it is written`, () => {
      const report = join(dir, 'missing', `run-${np}.html`);
      const trace = join(dir, `trace-${np}.json`);
      const r = run(np, { TTG_REPORT: report, TTG_TRACE: trace });
      expect(r.status, r.output).to.equal(0);
      expect(r.ranks, r.output).to.deep.equal([...Array(np).keys()]);
      expect(r.stderr).to.include(`ttg: TTG_REPORT=${report} was not written (ENOENT`);
      const events = (JSON.parse(readFileSync(trace, 'utf8')) as { traceEvents: Array<{ pid: number; ph: string }> }).traceEvents;
      expect(new Set(events.filter((e) => e.ph === 'X').map((e) => e.pid))).to.deep.equal(new Set([...Array(np).keys()]));
    });
  }

  it('a report that can be written beside a trace that cannot is written', () => {
    const report = join(dir, 'ok.html');
    const r = run(2, { TTG_REPORT: report, TTG_TRACE: join(dir, 'a-dir') });
    expect(r.status, r.output).to.equal(0);
    expect(r.stderr).to.include('TTG_TRACE=').and.to.include('EISDIR');
    expect(existsSync(report)).to.equal(true);
    expect(readFileSync(report, 'utf8')).to.include('2 rank(s), 45 tasks of 3 TT(s)');
  });
});
