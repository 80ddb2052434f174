/**
 * Buffers nested in values reach other ranks with the data a device wrote (test/mpi/device-values.ts
 * under real mpirun, emulated devices).
 */
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';
import { resultLines } from './rank-results.js';

describe('buffers nested in values sent to other ranks', function () {
  this.timeout(120_000);
  for (const np of [2, 3]) {
    it(`arrive with the data a device wrote, at ${np} ranks`, () => {
      const run = mpirun(np, fileURLToPath(new URL('../mpi/device-values.js', import.meta.url)));
      expect(run.status, run.output).to.equal(0);
      const seen = resultLines<{ seen: string[] }>(run.stdout).flatMap((r) => r.seen);
      const want = [...Array(3 * np).keys()].map((k) => {
        const f = (x: number) => `${x * (k + 2)}/${x * (k + 2)}`;
        return `${k}:${f(1)},${f(2)},${f(3)}:${k * 10}:true`;
      });
      expect(seen.sort(), run.output).to.deep.equal(want.sort());
    });
  }

  it('a value that cannot travel, sent once its buffers are home, fails every rank\'s fence naming the sender', () => {
    const run = mpirun(2, fileURLToPath(new URL('../mpi/device-values.js', import.meta.url)), ['unsendable']);
    const rejected = run.stdout.split('\n').filter((l) => l.startsWith('REJECTED ')).map((l) => JSON.parse(l.slice(9)) as { rank: number; code: string; message: string });
    expect(rejected.map((r) => r.rank).sort(), run.output).to.deep.equal([0, 1]);
    for (const r of rejected) {
      expect(r.code, r.message).to.equal('E_SERIALIZE');
      expect(r.message).to.include("sent by TT 'D'").and.include('function');
    }
  });
});
