/**
 * A rank that fails on an error nobody catches prints it, prefixed with its rank, before the
 * abort ends the job: under real `mpirun -np 2` (test/mpi/uncaught.ts) for a throw, an uncaught
 * fence rejection and an unhandled rejection, each run a few times since the loss was a race
 * with the abort. A plain process still prints once, as Node does.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { TtgError } from '../../src/base/errors.js';
import { formatFatal } from '../../src/transport/exit-on-error.js';
import { mpirun } from '../../bench/lib/mpirun.js';

const script = fileURLToPath(new URL('../mpi/uncaught.js', import.meta.url));
const RUNS = 3;

function count(text: string, re: RegExp): number {
  return text.match(new RegExp(re.source, 'g'))?.length ?? 0;
}

describe('errors nobody catches', function () {
  this.timeout(120_000);

  describe('formatFatal', () => {
    it('prints an Error as Node does, after the rank', () => {
      const text = formatFatal(new Error('boom'), 3);
      expect(text).to.match(/^ttg rank 3: Error: boom\n {4}at /).and.to.match(/\n$/);
    });

    it("prints a TtgError's message, then the error that caused it", () => {
      const err = new TtgError('E_TASK_FAILED', 'task body threw: boom', { tt: 'T', key: 5, rank: 1, cause: new Error('boom') });
      const [first, second, third] = formatFatal(err, 1).split('\n');
      expect(first).to.equal("ttg rank 1: E_TASK_FAILED: task body threw: boom (TT 'T', key 5, rank 1)");
      expect(second).to.equal('  caused by: Error: boom');
      expect(third).to.match(/^ {6}at /);
    });

    it('prints a thrown value that is not an Error', () => {
      expect(formatFatal('plain text', 0)).to.equal("ttg rank 0: 'plain text'\n");
    });
  });

  describe('under mpirun -np 2', () => {
    for (let i = 1; i <= RUNS; i++) {
      it(`a throw on rank 1 after initialize: its stack reaches mpirun's stderr, the job ends non-zero within seconds (run ${i})`, () => {
        const run = mpirun(2, script, ['throw'], 60_000);
        expect(run.status, run.output).to.not.equal(0);
        expect(run.seconds, run.output).to.be.below(10);
        expect(run.stderr, run.output).to.include('ttg rank 1: Error: boom-xyz\n').and.to.match(/^ {4}at .*uncaught\.js:\d+/m);
        expect(count(run.output, /Error: boom-xyz/), run.output).to.equal(1);
      });

      it(`fence()'s E_TASK_FAILED uncaught: every rank prints the code, TT, key and rank (run ${i})`, () => {
        const run = mpirun(2, script, ['fence'], 60_000);
        expect(run.status, run.output).to.not.equal(0);
        expect(run.seconds, run.output).to.be.below(10);
        for (const rank of [0, 1]) {
          const line = run.stderr.split('\n').find((l) => l.startsWith(`ttg rank ${rank}: `));
          expect(line, run.output).to.match(/^ttg rank \d: E_TASK_FAILED: task body threw: body-xyz at 7/)
            .and.to.include("TT 'Thrower'").and.to.include('key 7').and.to.include('rank 1)');
        }
        expect(run.stderr, run.output).to.match(/^ {2}caused by: Error: body-xyz at 7\n {6}at .*uncaught\.js:\d+/m);
      });

      it(`an unhandled rejection on rank 1: its stack reaches mpirun's stderr (run ${i})`, () => {
        const run = mpirun(2, script, ['reject'], 60_000);
        expect(run.status, run.output).to.not.equal(0);
        expect(run.seconds, run.output).to.be.below(10);
        expect(run.stderr, run.output).to.include('ttg rank 1: Error: rejected-xyz\n').and.to.match(/^ {4}at .*uncaught\.js:\d+/m);
      });
    }

    it("an application's own 'uncaughtException' listener still takes the error, and the job ends cleanly", () => {
      const run = mpirun(2, script, ['handled'], 60_000);
      expect(run.status, run.output).to.equal(0);
      expect(run.stdout).to.include('HANDLED 1 handled-xyz').and.to.include('DONE 0').and.to.include('DONE 1');
      expect(run.output).to.not.include('ttg rank');
    });

    it('process.exit(3) on rank 1 ends the job non-zero within seconds, printing no error', () => {
      const run = mpirun(2, script, ['exit'], 60_000);
      expect(run.status, run.output).to.not.equal(0);
      expect(run.seconds, run.output).to.be.below(10);
      expect(run.output).to.not.include('ttg rank');
    });
  });

  describe('in a plain process', () => {
    for (const [mode, text] of [['throw', 'Error: boom-xyz'], ['reject', 'Error: rejected-xyz'], ['fence', 'TtgError: E_TASK_FAILED']] as const) {
      it(`${mode}: Node prints the error once, and the process exits non-zero`, () => {
        const run = spawnSync(process.execPath, [script, mode], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 60_000 });
        expect(run.status, run.stderr).to.not.equal(0);
        expect(count(run.stderr, new RegExp(text)), run.stderr).to.equal(1);
        expect(run.stderr).to.not.include('ttg rank');
      });
    }
  });
});
