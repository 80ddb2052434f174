/**
 * A collector shows the values of the phases this rank has fenced: in one process (the phase
 * semantics, the hint of a read during a running phase, a failed phase, a split world), and under
 * mpirun at 2 and 3 ranks (test/mpi/collector-phases.ts): a rank that reads after another await
 * while other ranks already run the next phase.
 */
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';
import * as ttg from 'ttg';

import { mpirun } from '../../bench/lib/mpirun.js';
import { expectTtgError, fence, rejection } from '../helpers.js';
import { resultLines } from './rank-results.js';

const SCRIPT = fileURLToPath(new URL('../mpi/collector-phases.js', import.meta.url));
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Runs `f` with console.warn captured; returns what it printed. */
async function warnings(f: () => Promise<void>): Promise<string[]> {
  const printed: string[] = [];
  const warn = console.warn;
  console.warn = (...a: unknown[]) => { printed.push(a.map(String).join(' ')); };
  try {
    await f();
  } finally {
    console.warn = warn;
  }
  return printed;
}

describe('collector phases in one process', () => {
  before(async () => {
    await ttg.initialize();
  });

  it('a read shows the phases fenced so far: values of the running phase stay aside (also through clear()) until the next fence; one hint per collector', async () => {
    const go = new ttg.Edge<string, number>('cph-go');
    const res = new ttg.Edge<string, number>('cph-res');
    const src = ttg.make_tt((k: string, v: number, out) => out.send(0, k, v), [go], [res], { name: 'CPH-SRC' });
    const col = ttg.make_collector(res, { name: 'CPH-COL' });
    ttg.make_graph_executable(src, col);
    const printed = await warnings(async () => {
      src.invoke('x', 1);
      src.invoke('y', 1);
      // the forgotten fence: nothing of the running phase shows, before or after its tasks ran
      expect(col.get('x')).to.equal(undefined);
      await turn();
      expect([col.size, col.has('x'), col.entries()]).to.deep.equal([0, false, []]);
      await fence();
      expect(col.entries()).to.deep.equal([['x', 1], ['y', 1]]);
      // the next phase runs before the read: the read and clear() see phase 1 only
      src.invoke('x', 2);
      src.invoke('z', 2);
      await turn();
      expect([col.get('x'), col.get('z'), col.size]).to.deep.equal([1, undefined, 2]);
      col.clear();
      expect([col.size, [...col]]).to.deep.equal([0, []]);
      await fence();
      expect(col.entries()).to.deep.equal([['x', 2], ['z', 2]]);
      // phases fenced without a read in between merge: a later value for a key replaces the earlier
      col.clear();
      src.invoke('x', 3);
      await fence();
      src.invoke('x', 4);
      src.invoke('w', 4);
      await fence();
      expect([col.keys(), col.values()]).to.deep.equal([['x', 'w'], [4, 4]]);
    });
    expect(printed, printed.join('\n')).to.have.length(1);
    expect(printed[0]).to.include("collector 'CPH-COL'").and.to.include('`await ttg.fence()`').and.to.include('phase is running');
  });

  it('a phase whose fence rejects (a task threw) still ends: what arrived of it shows', async () => {
    const go = new ttg.Edge<string, number>('cph-f-go');
    const res = new ttg.Edge<string, number>('cph-f-res');
    const src = ttg.make_tt((k: string, v: number, out) => {
      if (k === 'bad') throw new Error('cph-boom');
      out.send(0, k, v);
    }, [go], [res], { name: 'CPH-F-SRC' });
    const col = ttg.make_collector(res, { name: 'CPH-F-COL' });
    ttg.make_graph_executable(src, col);
    src.invoke('a', 1);
    await turn();
    src.invoke('bad', 1);
    expectTtgError(await rejection(fence()), 'E_TASK_FAILED', ['cph-boom']);
    expect(col.entries()).to.deep.equal([['a', 1]]);
    src.invoke('a', 2);
    await fence();
    expect(col.entries()).to.deep.equal([['a', 2]]);
  });

  it("a collector of a split world shows its values after that world's fence, not the default world's", async () => {
    const world = await ttg.initialize();
    const sub = (await world.split(0))!;
    const go = new ttg.Edge<number, number>('cph-s-go');
    const res = new ttg.Edge<number, number>('cph-s-res');
    const src = ttg.make_tt((k: number, v: number, out) => out.send(0, k, v), [go], [res], { name: 'CPH-S-SRC', world: sub });
    const col = ttg.make_collector(res, { on: 'all', name: 'CPH-S-COL', world: sub });
    ttg.make_graph_executable(src, col);
    src.invoke(1, 10);
    const printed = await warnings(async () => {
      await fence();
      expect(col.size).to.equal(0);
      await sub.fence();
      expect(col.entries()).to.deep.equal([[1, 10]]);
    });
    expect(printed).to.have.length(1);
    expect(printed[0]).to.include("collector 'CPH-S-COL'").and.to.include('`await world.fence()`');
  });
});

interface Result {
  rank: number;
  phase1?: number | null;
  afterClear?: number;
  phase2?: number | null;
  wrong?: string[];
  wrongs?: number;
}

/** Runs the program; expects success and one result per rank, sorted by rank; returns them and the output. */
function run(np: number, args: string[]): { results: Result[]; output: string } {
  const r = mpirun(np, SCRIPT, args);
  expect(r.status, r.output).to.equal(0);
  const results = resultLines<Result>(r.stdout).sort((a, b) => a.rank - b.rank);
  expect(results.map((x) => x.rank), r.output).to.deep.equal([...Array(np).keys()]);
  return { results, output: r.output };
}

describe('collector phases under mpirun', function () {
  this.timeout(120_000);
  for (const np of [2, 3]) {
    describe(`${np} ranks`, () => {
      it("issue 51 item 7: rank 0 reads and clears after fence and allreduce while rank 1 runs phase 2: it reads phase 1's value, phase 2's after the next fence", () => {
        const { results, output } = run(np, ['item7']);
        expect(results[0], output).to.deep.equal({ rank: 0, phase1: 1, afterClear: 0, phase2: 2 });
      });

      for (const on of ['0', 'all', 'owner']) {
        it(`on: ${on === '0' ? 0 : `'${on}'`}, 12 phases with clear() while rank 1 races ahead: each read shows exactly its phase; the last, unfenced, after finalize`, () => {
          const { results, output } = run(np, ['loop', on]);
          for (const r of results) expect(r.wrong, `rank ${r.rank}: ${r.wrongs} wrong\n${output}`).to.deep.equal([]);
          // the hint of a read during a running phase: at most once per collector and rank
          const hints = output.split('\n').filter((l) => l.includes("collector 'COLLECT' read on rank"));
          expect(hints.length, output).to.be.at.most(np);
        });
      }
    });
  }
});
