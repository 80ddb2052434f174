/**
 * Buffers nested in values reach other ranks with the data a device wrote (test/mpi/device-values.ts
 * under real mpirun, emulated devices).
 */
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from './mpi-run.js';

describe('buffers nested in values sent to other ranks', function () {
  this.timeout(120_000);
  for (const np of [2, 3]) {
    it(`arrive with the data a device wrote, at ${np} ranks`, () => {
      const run = mpirun(np, fileURLToPath(new URL('./mpi/device-values.js', import.meta.url)));
      expect(run.status, run.output).to.equal(0);
      const seen = run.stdout.split('\n').filter((l) => l.startsWith('RESULT ')).flatMap((l) => (JSON.parse(l.slice(7)) as { seen: string[] }).seen);
      const want = [...Array(3 * np).keys()].map((k) => {
        const f = (x: number) => `${x * (k + 2)}/${x * (k + 2)}`;
        return `${k}:${f(1)},${f(2)},${f(3)}:${k * 10}:true`;
      });
      expect(seen.sort(), run.output).to.deep.equal(want.sort());
    });
  }
});
