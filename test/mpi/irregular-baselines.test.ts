/**
 * bench:irregular's plain-MPI baselines, naive and buffered, at 2 and 3 ranks
 * (test/mpi/irregular-baselines.ts): every histogram counter ends on its owner and every gathered
 * value is right, whatever the buffer; bad parameters are refused on every rank, which goes on working.
 */
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { rankResults } from './rank-results.js';

const SCRIPT = fileURLToPath(new URL('../mpi/irregular-baselines.js', import.meta.url));

interface Result {
  rank: number;
  size: number;
  runs: Array<[string, string, number, number, number, number, number]>;
  /** Each refusal's index into `messages`. */
  refused: number[];
  messages: string[];
  after: [number, number];
}

describe('plain-MPI baselines of bench:irregular', function () {
  this.timeout(60_000);

  for (const np of [2, 3]) {
    it(`histogram and index-gather, naive and buffered, exact at ${np} ranks; bad parameters refused`, () => {
      const rs = rankResults<Result>(np, SCRIPT, [], 30_000);
      for (const res of rs) {
        const r = { ...res, refused: res.refused.map((i) => res.messages[i]!) };
        expect(r.size).to.equal(np);
        for (const [kind, variant, n, perRank, buffer, check, expected] of r.runs) {
          expect(check, `rank ${r.rank}: ${kind} ${variant} n=${n} perRank=${perRank} buffer=${buffer}`).to.equal(expected);
        }
        expect(r.refused.slice(0, 7)).to.deep.equal(Array(7).fill(r.refused[0]));
        expect(r.refused[0]).to.match(/^Error: ttg_native: irregular: needs 0 <= n <= 2147483519, 1 <= perRank <= \d+ at \d ranks and, when buffered, 1 <= buffer <= 1048576$/);
        expect(r.refused.slice(7, 10)).to.deep.equal(['irregularJob: argument 2', 'irregularJob: argument 2', 'irregularJob: argument 3'].map((a) => `RangeError: ttg_bench.${a} must be a 32-bit integer`));
        for (const m of r.refused.slice(10)) expect(m).to.match(/^TypeError: ttg_bench.irregularJob: kind is 'histogram' or 'gather'/);
        expect(r.after).to.deep.equal([0, 0]);
      }
      // every update of every rank counted once, on one rank
      for (let i = 0; i < rs[0]!.runs.length; i++) {
        const [kind, , n] = rs[0]!.runs[i]!;
        if (kind === 'histogram') expect(rs.reduce((a, r) => a + r.runs[i]![5], 0)).to.equal(n * np);
      }
    });
  }
});
