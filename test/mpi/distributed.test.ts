/**
 * The runtime under real `mpirun -np 2` and `-np 3`: procmap, invoke from a non-owner, cross-rank
 * join and cycle, broadcast (one message per destination rank), reducers across ranks,
 * split-metadata objects and large typed arrays (received into their own arrays: no JS copy),
 * fences in a row, and error propagation that ends the job non-zero within seconds.
 */
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';

/** What one rank saw of a ring of moved arrays (test/mpi/graphs.ts `transferRing`). */
interface Transfer {
  bad: number;
  detached: number;
  kept: number;
  moved: string;
  shared_kept: number;
  allocated: number;
  reused: number;
  prepared: number;
}

interface RankResult {
  rank: number;
  size: number;
  procmap: { ran: number[]; wrong: number };
  join: string[];
  cycle: { visits: number; last: number };
  slow_cycle: { visits: number[]; ms: number };
  broadcast: { got: string[]; sent: number };
  reduce: { sum: number; sized: number };
  split: string;
  zero_copy: boolean;
  transfer: Transfer;
  transfer_huge: Transfer;
  fences: number;
}

/** Open MPI's byte transfer layers for the path between nodes: TCP (and self for a rank's own messages). */
const TCP = { OMPI_MCA_btl: 'tcp,self' };

function script(name: string): string {
  return fileURLToPath(new URL(`../mpi/${name}.js`, import.meta.url));
}

function lines(stdout: string, tag: string): string[] {
  return stdout.split('\n').filter((l) => l.startsWith(`${tag} `)).map((l) => l.slice(tag.length + 1));
}

describe('distributed execution under mpirun', function () {
  this.timeout(240_000);

  // shared memory between ranks on one node, and TCP, the path between nodes
  for (const [np, path, env] of [[2, '', {}], [3, '', {}], [2, ' over TCP', TCP], [3, ' over TCP', TCP]] as const) {
    describe(`${np} ranks${path}`, () => {
      let results: RankResult[] = [];
      before(() => {
        const run = mpirun(np, script('graphs'), [], 120_000, env);
        expect(run.status, run.output).to.equal(0);
        results = lines(run.stdout, 'RESULT').map((l) => JSON.parse(l) as RankResult).sort((a, b) => a.rank - b.rank);
        expect(results.map((r) => r.rank), run.output).to.deep.equal([...Array(np).keys()]);
      });

      it('runs each task on the rank its procmap names, also when invoked from a non-owner', () => {
        for (const r of results) {
          expect(r.procmap.wrong).to.equal(0);
          expect(r.procmap.ran).to.deep.equal([...Array(12).keys()].filter((k) => k % np === r.rank));
        }
      });

      it('joins inputs sent from two other ranks', () => {
        const all = results.flatMap((r) => r.join);
        expect(all).to.have.length(6);
        for (let k = 0; k < 6; k++) {
          const onRank = (k + 2) % np;
          expect(results[onRank]!.join).to.include(`${k}:${k + (k % np) * 1000}:b${k}@${(k + 1) % np}@${onRank}`);
        }
      });

      it('runs a cycle around the ranks', () => {
        expect(results.reduce((s, r) => s + r.cycle.visits, 0)).to.equal(301);
        expect(results[300 % np]!.cycle.last).to.equal(300);
      });

      it('a fence waits for a cycle whose hops each work or sleep for milliseconds while the other ranks are quiet', () => {
        for (const r of results) {
          expect(r.slow_cycle.visits).to.deep.equal([...Array(13).keys()].filter((i) => i % np === r.rank));
          // 7 hops of 3 ms of work and 6 of a 4 ms timer, one after the other, all before the fence
          // ended (less 5 ms: a rank may enter its fence a little after rank 0 started the cycle)
          expect(r.slow_cycle.ms).to.be.at.least(7 * 3 + 6 * 4 - 5);
        }
      });

      it('broadcasts to two terminals with one message per destination rank', () => {
        expect(results[0]!.broadcast.sent).to.equal(np - 1);
        for (const r of results) {
          const keys = [...Array(4 * np).keys()].filter((k) => k % np === r.rank);
          expect(r.broadcast.got).to.deep.equal([...keys.map((k) => `x${k}:1,2,3`), ...keys.map((k) => `y${k}:1,2,3`)].sort());
        }
      });

      it('reduces values from every rank, with the stream size set remotely', () => {
        expect(results[0]!.reduce.sum).to.equal((np * (np + 1)) / 2);
        expect(results[np - 1]!.reduce.sized).to.equal(np * (np + 1));
      });

      it('moves split-metadata objects and a 16 MiB Float64Array intact, sent from and received into their own arrays', () => {
        expect(results[np % np]!.split).to.equal('256x512:T:2097152:bad=0:tile=true:own=true');
        for (const r of results) expect(r.zero_copy, `rank ${r.rank}`).to.equal(true);
      });

      const rings = [['transfer', '256 KiB'], ['transfer_huge', '1 MiB']] as const;
      for (const [field, label] of rings) it(`transfers a consumed ${label} array moved to another rank (detached, memory reused), and only then`, () => {
        const t = results.map((r) => r[field]);
        expect(t.reduce((s, x) => s + x.bad, 0)).to.equal(0);
        // Hop(0) sends the application's own array: kept; every later hop sends a received one
        expect(t.reduce((s, x) => s + x.kept, 0)).to.equal(1);
        expect(t[0]!.kept).to.equal(1);
        expect(t.reduce((s, x) => s + x.detached, 0)).to.equal(3 * np - 1);
        expect(t[1]!.moved).to.match(/^E_MOVED /).and.to.include("TT 'Hop'").and.to.include('key 1').and.to.include('rank 1');
        expect(t.reduce((s, x) => s + x.shared_kept, 0)).to.equal(2);
        // 3·np + 3 arrivals; a rank allocates at most two buffers (the first, and one while the
        // shared arrays are held), every other arrival reuses the one its last send gave back
        for (const x of t) expect(x.allocated, JSON.stringify(x)).to.be.at.most(2);
        expect(t.reduce((s, x) => s + x.reused + x.allocated, 0)).to.equal(3 * np + 3);
        expect(t.reduce((s, x) => s + x.reused, 0)).to.be.at.least(3 * np + 3 - 2 * np);
        // ... and lent through the ArrayBuffer made when that send left; only a buffer that GC gave
        // back (one of the two Share kept) could be reused without one
        const reused = t.reduce((s, x) => s + x.reused, 0);
        expect(t.reduce((s, x) => s + x.prepared, 0), JSON.stringify(t)).to.be.within(reused - 2, reused);
      });

      it('survives three fences in a row', () => {
        expect(results.reduce((s, r) => s + r.fences, 0)).to.equal(5 * np);
      });

      for (const mode of ['throw', 'serialize'] as const) {
        it(`${mode === 'throw' ? 'a body that throws' : 'an unserializable value'}: every rank's fence rejects and the job ends non-zero within seconds`, () => {
          const run = mpirun(np, script('failure'), [mode], 60_000, env);
          expect(run.status, run.output).to.not.equal(0);
          expect(run.seconds).to.be.below(20);
          const rejected = lines(run.stdout, 'REJECTED').map((l) => JSON.parse(l) as { rank: number; code: string; message: string; origin: number });
          expect(rejected.map((r) => r.rank).sort(), run.output).to.deep.equal([...Array(np).keys()]);
          for (const r of rejected) {
            if (mode === 'throw') {
              expect(r.code).to.equal('E_TASK_FAILED');
              expect(r.origin).to.equal(np - 1);
              expect(r.message).to.match(/boom at \d+/).and.to.include("TT 'W'").and.to.include(`rank ${np - 1}`);
            } else {
              expect(r.code).to.equal('E_SERIALIZE');
              expect(r.message).to.include('function').and.to.include("TT 'V'");
            }
          }
        });
      }

      it('err.cause on every rank is what the body threw: its class, message, stack, code and own properties', () => {
        type Cause = { ctor: string; name: string; message: string; stack: string; own: Record<string, unknown>; inner: string | null };
        const causes = (mode: string): Cause[] => {
          const run = mpirun(np, script('failure'), [mode], 60_000, env);
          expect(run.status, run.output).to.not.equal(0);
          const rejected = lines(run.stdout, 'REJECTED').map((l) => JSON.parse(l) as { rank: number; code: string; cause: Cause });
          expect(rejected.map((r) => r.rank).sort(), run.output).to.deep.equal([...Array(np).keys()]);
          for (const r of rejected) expect(r.code).to.equal('E_TASK_FAILED');
          return rejected.sort((a, b) => a.rank - b.rank).map((r) => r.cause);
        };
        for (const c of causes('syntax')) {
          expect([c.ctor, c.name]).to.deep.equal(['SyntaxError', 'SyntaxError']);
          expect(c.message).to.match(/JSON/);
          expect(c.stack).to.include('failure.js');
        }
        for (const c of causes('enoent')) {
          expect([c.ctor, c.own['code'], c.own['syscall']]).to.deep.equal(['Error', 'ENOENT', 'open']);
          expect(c.own['path']).to.match(/^\/nonexistent\/ttg-\d+\.json$/);
          expect(c.message).to.include('no such file');
        }
        causes('custom').forEach((c, rank) => {
          // a class the other ranks do not know arrives as an Error with the original name
          expect([c.ctor, c.name]).to.deep.equal([rank === np - 1 ? 'Custom' : 'Error', 'Custom']);
          expect(c.message).to.match(/^custom at \d+$/);
          expect(c.own['detail']).to.deep.include({ tags: ['a'] });
          expect(c.own).to.not.have.property('callback');
          expect(c.inner).to.match(/^inner \d+$/);
        });
      });
    });
  }
});
