/**
 * ttg's native threads carry names (issue 37, item 5): the comm thread is `ttg-comm`, each worker
 * of a kernel pool `ttg-pool-N` (numbered across the process's pools), so that `top -H`, perf and
 * users can tell them from Node's and MPI's threads (at 2 ranks: one rank runs no comm thread).
 */
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';

const CHILD = fileURLToPath(new URL('../fixtures/thread_names_child.js', import.meta.url));

describe('native thread names', function () {
  this.timeout(60_000);

  it('the comm thread is ttg-comm and the emulated devices\' stream workers are ttg-pool-0, 1, ...', () => {
    // the comm thread runs with two ranks or more (one rank needs no messages)
    const run = mpirun(2, CHILD, [], 60_000, { TTG_DEVICE: 'emulated:2' });
    const lines = run.stdout.split('\n').filter((l) => l.startsWith('{'));
    expect(lines, run.stderr).to.have.length(2);
    for (const line of lines) {
      const { names } = JSON.parse(line) as { names: string[] };
      expect(names.filter((n) => n === 'ttg-comm'), names.join(', ')).to.have.length(1);
      const pool = names.filter((n) => n.startsWith('ttg-pool-')).sort();
      expect(pool.length, names.join(', ')).to.be.greaterThan(1);
      expect(pool).to.deep.equal(pool.map((_, i) => `ttg-pool-${i}`).sort());
    }
    expect(run.status, run.stderr).to.equal(0);
  });
});
