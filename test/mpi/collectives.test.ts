/**
 * World collectives and the keyed all-reduce at 2 and 3 ranks (test/mpi/collectives.ts).
 */
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';
import { rankResults, resultLines } from './rank-results.js';

const SCRIPT = fileURLToPath(new URL('../mpi/collectives.js', import.meta.url));

type Result = Record<string, unknown> & { rank: number };

function results(np: number, mode: string): Result[] {
  return rankResults<Result>(np, SCRIPT, [mode], 120_000);
}

describe('world collectives under mpirun', function () {
  this.timeout(180_000);

  for (const np of [2, 3]) {
    it(`barrier, allreduce (each op, numbers and typed arrays), broadcast, between fences and on a split world, at ${np} ranks`, () => {
      for (const r of results(np, 'ok')) {
        const ranks = [...Array(np).keys()];
        expect(r['sum']).to.equal(ranks.reduce((a, x) => a + x + 1, 0));
        expect(r['prod']).to.equal(ranks.reduce((a, x) => a * (x + 2), 1));
        expect(r['min']).to.deep.equal([0, -(np - 1), 5]);
        expect(r['max']).to.deep.equal([(np - 1) * 0.5, 1]);
        expect(r['type']).to.equal('Uint8Array');
        const sum = (f: (q: number) => number) => ranks.reduce((a, q) => a + f(q), 0);
        expect(r['sums']).to.deep.equal([1, 2, 3, 4, 5, 6].map((n) => Array.from({ length: n }, (_, i) => sum((q) => q * 0.5 + i - (i === 2 ? 2 ** 40 : 0)))));
        expect(r['i32']).to.deep.equal(['Int32Array', sum((q) => q), -sum((q) => q), np * 2 ** 30 | 0, 7 * np]);
        expect(r['nanSum']).to.deep.equal(['NaN', '0', '-Infinity']);
        expect(r['negZero']).to.equal(true);
        expect(r['big']).to.deep.equal([1 << 20, 12345 * 0.5, ((1 << 20) - 1) * 0.5]);
        expect(r['special']).to.deep.equal(['NaN', 'Infinity', '-Infinity']);
        expect(r['bcast']).to.deep.equal(['from-last', [1.5, 2.5], ['a'], true]);
        expect(r['phases']).to.deep.equal([[['fence', 'allreduce'], 10 * np], [['fence', 'allreduce'], 30 * np], [['fence', 'allreduce'], 60 * np]]);
        const members = ranks.filter((x) => x % 2 === r.rank % 2);
        expect(r['subsum']).to.equal(members.reduce((a, x) => a + x, 0));
        expect(r['subbcast']).to.equal(`root ${members[0]}`);
        // every rank's consumer got every iteration's sum, folded in contributor order: the same bits everywhere
        expect(r['one']).to.deep.equal(r.rank === np - 1 ? [0, 1, 2, 3].map((k) => [k, [(np - 1) * k, 0]]) : []);
        // number partials with their ranks packed beside them: folded in rank order, -0 and NaN intact
        expect(r['digits']).to.deep.equal(r.rank === 0 ? [[0, ranks.map((q) => q + 1).join('')], [1, '-0'], [2, 'NaN']] : []);
        const dot = r['dot'] as Array<[number, number, number]>;
        expect(dot.map(([k, owner]) => [k, owner])).to.deep.equal([[0, r.rank], [1, r.rank], [2, r.rank]]);
        for (const [k, , v] of dot) {
          // the documented order: each rank folds its partials by number, then the ranks' sums in rank order
          const partial = (i: number): number => (k + 1) * (i + 1) / 3 + i * 1e-17;
          const perRank = ranks.map((q) => [0, 1, 2, 3, 4, 5, 6].filter((i) => i % np === q).map(partial).reduce((a, b) => a + b));
          expect(v, `iteration ${k}`).to.equal(perRank.reduce((a, b) => a + b));
        }
      }
    });

    it(`misuse is E_COLLECTIVE naming each rank's call on every rank, never a hang, at ${np} ranks`, () => {
      for (const r of results(np, 'misuse')) {
        expect(r['kinds']).to.match(/^E_COLLECTIVE: .*rank 0 called barrier\(\), rank 1 called allreduce\(a number, 'sum'\)/);
        expect(r['lengths']).to.match(/^E_COLLECTIVE: .*rank 0 called allreduce\(Float64Array of 1, 'sum'\), rank 1 called allreduce\(Float64Array of 2, 'sum'\)/);
        expect(r['fusedLengths']).to.match(/^E_COLLECTIVE: .*rank 0 called allreduce\(Float64Array of 4, 'sum'\), rank 1 called allreduce\(Float64Array of 5, 'sum'\)/);
        expect(r['fusedOps']).to.match(/^E_COLLECTIVE: .*rank 0 called allreduce\(a number, 'sum'\), rank 1 called allreduce\(a number, 'max'\)/);
        expect(r['roots']).to.match(/^E_COLLECTIVE: .*rank 0 called broadcast\(value, root 0\), rank 1 called broadcast\(value, root 1\)/);
        expect(r['oneInvalid']).to.match(/^E_COLLECTIVE: .*rank 1 called allreduce\(a value that is not a number or a typed array, 'sum'\)/);
        expect(r['allInvalid']).to.match(/^E_INVALID_ARGUMENT: .*'sum', 'min', 'max' or 'prod'/);
        expect(r['unserializable']).to.match(/^E_SERIALIZE: cannot serialize the value broadcast by rank 0/);
        expect(r['after']).to.equal(np);
      }
    });

    it(`a collective called from a task of the world is E_INVALID_ARGUMENT naming it, at once, on every rank, at ${np} ranks`, () => {
      for (const r of results(np, 'intask')) {
        // every rank's fence rejects with the world's first error, naming one of the tasks (on its owner rank)
        const a = /^E_INVALID_ARGUMENT: World.allreduce\(\) was called from a task body of its own world.*TT 'AWAITS', key (\d+), rank (\d+)/.exec(String(r['async']));
        expect(a, String(r['async'])).to.not.equal(null);
        expect(Number(a![1])).to.be.within(0, np - 1);
        expect(Number(a![2])).to.be.within(0, np - 1);
        const p = /^E_INVALID_ARGUMENT: World.barrier\(\) was called from a task body.*TT 'PLAIN', key (\d+), rank (\d+)/.exec(String(r['plain']));
        expect(p, String(r['plain'])).to.not.equal(null);
        expect(Number(p![1])).to.be.within(10, 10 + np - 1);
        expect(r['unreached']).to.equal(undefined);
        expect(r['seconds']).to.be.below(10);
        expect(r['after']).to.equal(np);
      }
    });

    it(`a keyed all-reduce missing a rank's partial: each rank's fence report names the ranks that arrived and those missing, at ${np} ranks`, () => {
      for (const r of results(np, 'missing')) {
        const arrived = [...Array(np - 1).keys()].join(', ');
        expect(r['missing']).to.deep.equal([['AR.exchange', [5, r.rank], [`${np - 1} of ${np} values: the partials of ranks ${arrived} arrived; missing ranks ${np - 1}`]]]);
      }
    });

    it(`an async body awaiting a collective through a helper: the hang report names the collective as the cause, at ${np} ranks`, () => {
      // the lane still holds the collective, so the job then ends non-zero: read each rank's result line
      const run = mpirun(np, SCRIPT, ['helper'], 60_000);
      const lines = resultLines<Result>(run.stdout);
      expect(lines.map((r) => r.rank).sort(), run.output).to.deep.equal([...Array(np).keys()]);
      for (const r of lines) {
        expect(r['helper']).to.match(new RegExp(`^E_HANG: .*HELPED\\[${r.rank}\\].*World.allreduce\\(\\) was called while this fence ran and waits for it to end: a task of this world that awaits it never ends`));
      }
    });
  }
});
