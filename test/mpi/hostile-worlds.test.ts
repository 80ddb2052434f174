/**
 * Regression tests for interleavings that once hung a job, mixed up two worlds or aborted MPI
 * (test/mpi/hostile-worlds.ts, one mode per case): a rank that leaves without `finalize()`, a
 * split while another world's fence is in flight, two concurrent splits from different parents,
 * next-phase tasks running before a rank's `fence()` resolved, collectives queued behind a fence
 * that ends in E_HANG, and a send that fails on the comm thread. Every run is bounded, so a hang fails its test instead of the suite;
 * the hang and ordering cases also run over TCP, whose timing differs from shared memory.
 */
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';
import { resultLines } from './rank-results.js';

const SCRIPT = fileURLToPath(new URL('../mpi/hostile-worlds.js', import.meta.url));
/** No run of a passing case comes near this; a hang is killed here and fails its test. */
const RUN_LIMIT_MS = 40_000;

type Btl = 'shm' | 'tcp';
const BTL_ENV: Record<Btl, Record<string, string>> = { shm: {}, tcp: { OMPI_MCA_btl: 'self,tcp' } };

type Run = ReturnType<typeof mpirun>;

function launch(np: number, args: string[], btl: Btl, env: Record<string, string>): Run {
  return mpirun(np, SCRIPT, args, RUN_LIMIT_MS, { ...BTL_ENV[btl], ...env });
}

/**
 * Fails when mpirun was killed at the limit: the job hung. mpirun turns the SIGTERM into an exit
 * status of its own, so the status alone does not tell; the elapsed time does.
 */
function expectEnded(run: Run): void {
  const hung = run.status === null || run.seconds >= RUN_LIMIT_MS / 1000 - 1;
  expect(hung, `killed after ${run.seconds.toFixed(1)} s: the job hung\n${run.output}`).to.equal(false);
}

/** The `RESULT` of every rank, sorted by rank (fails when a rank printed none). */
function everyRank<R extends { rank: number }>(run: Run, np: number): R[] {
  const out = resultLines<R>(run.stdout).sort((a, b) => a.rank - b.rank);
  expect(out.map((r) => r.rank), `a RESULT from every rank\n${run.output}`).to.deep.equal([...Array(np).keys()]);
  return out;
}

/** A job that ended cleanly, with every rank's result. */
function cleanRun<R extends { rank: number }>(run: Run, np: number): R[] {
  expectEnded(run);
  expect(run.status, run.output).to.equal(0);
  return everyRank<R>(run, np);
}

describe('hostile interleavings of worlds under mpirun', function () {
  this.timeout(RUN_LIMIT_MS + 30_000);

  describe('a rank that exits with code 0 without finalize()', () => {
    const cases: Array<[number, 'return' | 'exit', Btl]> = [[2, 'return', 'shm'], [3, 'return', 'shm'], [2, 'exit', 'shm'], [3, 'return', 'tcp']];
    for (const [np, how, btl] of cases) {
      it(`${np} ranks (${btl}), rank 1 ${how === 'exit' ? 'calls process.exit(0)' : "lets its script end"} while the others fence: the job ends within seconds, non-zero, naming rank 1`, () => {
        const run = launch(np, ['leave', how], btl, { TTG_HANG_TIMEOUT: '10' });
        expectEnded(run);
        expect(run.stdout, run.output).to.include('LEAVING 1');
        expect(run.status, run.output).to.not.equal(0);
        // not the hang watchdog (10 s) plus a margin: the departure itself must end the job
        expect(run.seconds, run.output).to.be.below(20);
        // ttg's own message (its lines start with "ttg"), not only mpirun's generic one
        const ttgLines = run.stderr.split('\n').filter((l) => l.startsWith('ttg'));
        expect(ttgLines.some((l) => /\brank 1\b/.test(l)), `a ttg line naming rank 1\n${run.output}`).to.equal(true);
        expect(run.stderr, run.output).to.match(/finaliz/i);
      });
    }
  });

  describe('a split of the default world while a sub-world fence is in its waves', () => {
    interface R { rank: number; sub: string; fenceA: string; cRank: number; cSize: number; hops: number; foreign: number; fence: string }
    for (const [np, btl] of [[4, 'shm'], [5, 'shm'], [4, 'tcp']] as Array<[number, Btl]>) {
      it(`${np} ranks (${btl}): the split and A's fence both complete, and the new world runs a ring`, () => {
        const out = cleanRun<R>(launch(np, ['split-in-fence'], btl, { TTG_HANG_TIMEOUT: '5' }), np);
        for (const r of out) {
          const peers = [...Array(np).keys()].filter((q) => q % 2 === r.rank % 2);
          expect(r.fenceA, `rank ${r.rank}`).to.equal('ok');
          expect([r.cRank, r.cSize], `rank ${r.rank}`).to.deep.equal([peers.reverse().indexOf(r.rank), peers.length]);
          expect({ hops: r.hops, foreign: r.foreign, fence: r.fence }, `rank ${r.rank}`).to.deep.equal({ hops: 5, foreign: 0, fence: 'ok' });
        }
      });
    }
  });

  describe('two splits from different parent worlds at once on one rank', () => {
    interface R {
      rank: number; half: string; cSize: number; dSize: number;
      cHops: number; cForeign: number; cFence: string; dHops: number; dForeign: number; dFence: string;
    }
    for (const np of [4, 5]) {
      it(`${np} ranks: a split of each half and of the default world are distinct worlds, each ring sees its own tokens only`, () => {
        const out = cleanRun<R>(launch(np, ['two-splits'], 'shm', { TTG_HANG_TIMEOUT: '5' }), np);
        for (const r of out) {
          expect([r.cSize, r.dSize], `rank ${r.rank}`).to.deep.equal([r.rank < 2 ? 2 : np - 2, np]);
          expect({ hops: r.cHops, foreign: r.cForeign, fence: r.cFence }, `rank ${r.rank}: the half's split`).to.deep.equal({ hops: 10, foreign: 0, fence: 'ok' });
          expect({ hops: r.dHops, foreign: r.dForeign, fence: r.dFence }, `rank ${r.rank}: the default world's split`).to.deep.equal({ hops: 10, foreign: 0, fence: 'ok' });
        }
      });
    }
  });

  describe("next-phase tasks wait for their rank's fence() to resolve", () => {
    interface R { rank: number; ran: number; stale: number; first: string[]; deferred: number; expected: number }
    // enough for some next-phase messages to reach a rank still in its fence on every run seen (3 ranks: 12 or more)
    const PHASES = 100;
    for (const [np, btl] of [[2, 'shm'], [3, 'shm'], [2, 'tcp'], [3, 'tcp']] as Array<[number, Btl]>) {
      it(`${np} ranks (${btl}), ${PHASES} phases: no task runs while its rank is still in the phase before`, () => {
        const out = cleanRun<R>(launch(np, ['early-phase', String(PHASES)], btl, {}), np);
        for (const r of out) {
          expect(r.ran, `rank ${r.rank}: tasks run`).to.equal(r.expected);
          expect(r.first, `rank ${r.rank}: ${r.stale} of ${r.ran} tasks ran before its fence() resolved`).to.deep.equal([]);
          expect(r.stale).to.equal(0);
        }
        // the race happened: messages of a next phase reached a rank still in its fence
        expect(out.reduce((n, r) => n + r.deferred, 0)).to.be.above(0);
      });
    }
  });

  describe('collectives behind a fence that ends in E_HANG', () => {
    interface Outcome { how: string; code?: string; cause?: string; text?: string }
    interface R { rank: number; fence: Outcome; allreduce: Outcome; broadcast: Outcome; split: Outcome }
    const cases: Array<[number, 'hang-queued' | 'hang-after', Btl]> = [[2, 'hang-queued', 'shm'], [3, 'hang-queued', 'shm'], [2, 'hang-after', 'shm'], [2, 'hang-queued', 'tcp']];
    for (const [np, mode, btl] of cases) {
      const when = mode === 'hang-queued' ? 'queued behind it' : 'called after it rejected';
      it(`${np} ranks (${btl}): allreduce, broadcast and split ${when} reject with E_HANG, and MPI does not abort`, () => {
        const run = launch(np, [mode], btl, { TTG_HANG_TIMEOUT: '3' });
        expectEnded(run);
        // Open MPI's own report may be lost in the abort (show_help fails): its NBC lines stay
        expect(/MPI_ERR|MPI Error|NBC_Progress/.test(run.output), `MPI aborted the job\n${run.output}`).to.equal(false);
        // a broken world may still end the job non-zero at exit (documented): no check of the status
        for (const r of everyRank<R>(run, np)) {
          expect(r.fence.code, `rank ${r.rank}: the fence`).to.equal('E_HANG');
          for (const name of ['allreduce', 'broadcast', 'split'] as const) {
            const o = r[name];
            expect(o.how, `rank ${r.rank}: ${name}: ${JSON.stringify(o)}`).to.equal('rejected');
            expect([o.code, o.cause], `rank ${r.rank}: ${name}: ${JSON.stringify(o)}`).to.include('E_HANG');
          }
        }
      });
    }
  });

  describe('a send that fails on the comm thread (TTG_FAULT_SEND on rank 0)', () => {
    interface R { rank: number; got: number[]; sent: number; received: number; fence: string; cause: string }
    for (const [np, btl] of [[2, 'shm'], [3, 'tcp']] as Array<[number, Btl]>) {
      it(`${np} ranks (${btl}): the other sends of its pass arrive, and every fence rejects with E_HANG caused by the send's E_TRANSPORT`, () => {
        const run = launch(np, ['failed-send'], btl, { TTG_HANG_TIMEOUT: '2' });
        expectEnded(run);
        const out = everyRank<R>(run, np);
        expect([out[0]!.sent, out[1]!.received], `messages sent by rank 0, handled by rank 1\n${run.output}`).to.deep.equal([6, 5]);
        for (const k of out[1]!.got) expect([0, 1, 3, 4, 5], `tasks that ran on rank 1\n${run.output}`).to.include(k);
        for (const r of out) {
          expect(r.fence, `rank ${r.rank}`).to.match(/^E_HANG: /);
          expect(r.cause, `rank ${r.rank}`).to.match(/^E_TRANSPORT: /).and.to.include('send 3 to rank 1 failed').and.to.include('TTG_FAULT_SEND');
        }
        expect(run.stderr).to.not.include('exited without ttg.finalize()');
      });
    }
  });
});
