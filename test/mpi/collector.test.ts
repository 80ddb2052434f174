/**
 * make_collector at 2 and 3 ranks (test/mpi/collector.ts).
 */
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { rankResults } from './rank-results.js';

const SCRIPT = fileURLToPath(new URL('../mpi/collector.js', import.meta.url));

interface Result {
  rank: number;
  owner: number[];
  owned: number[];
  all: Array<[number, number]>;
  zero: Array<[number, number]> | string;
  ownerElsewhere: string | null;
  totals: Array<[string, number]>;
}

describe('make_collector under mpirun', function () {
  this.timeout(120_000);
  for (const np of [2, 3]) {
    it(`values on their owners, on every rank, on rank 0; an all-reduce's result on every rank; a key read elsewhere is E_INVALID_ARGUMENT, at ${np} ranks`, () => {
      const squares = Array.from({ length: 12 }, (_, k): [number, number] => [k, k * k]);
      const ranks = [...Array(np).keys()];
      const results = rankResults<Result>(np, SCRIPT, []);
      expect(results.flatMap((r) => r.owner).sort((a, b) => a - b)).to.deep.equal(squares.map(([k]) => k));
      for (const r of results) {
        expect(r.owner).to.deep.equal(r.owned);
        expect(r.all).to.deep.equal(squares);
        if (r.rank === 0) expect(r.zero).to.deep.equal(squares);
        else expect(r.zero).to.match(/^E_INVALID_ARGUMENT: collector 'ZERO'\.get\(key\) key 3 is collected on rank 0, not here/);
        if (r.ownerElsewhere !== null) expect(r.ownerElsewhere).to.match(/^E_INVALID_ARGUMENT: collector 'OWNER'\.get\(key\) key \d+ is collected on rank \d+, not here/);
        const sum = ranks.reduce((a, x) => a + x, 0);
        expect(r.totals).to.deep.equal([['x', sum], ['y', sum + 10 * np]]);
      }
    });
  }
});
