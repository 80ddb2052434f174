/**
 * A value of 10^5 small typed arrays at 2 ranks (issue 36, item 10): it arrives whole, every
 * element right, and the fence ends without E_HANG (its parts travel packed into one payload).
 * The time is printed, not asserted (speed lives in benchmarks).
 */
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';

const SCRIPT = fileURLToPath(new URL('./many-parts.js', import.meta.url));

describe('a value of 10^5 small typed arrays between 2 ranks', function () {
  this.timeout(120_000);

  it('arrives with every element right, before the hang watchdog would speak', () => {
    const run = mpirun(2, SCRIPT, ['100000'], 90_000, { TTG_HANG_TIMEOUT: '20' });
    const line = run.stdout.trim().split('\n').find((l) => l.startsWith('{'));
    expect(line, `${run.stdout}\n${run.stderr}`).to.not.equal(undefined);
    const r = JSON.parse(line!) as { ok: boolean; parts: number; seconds: number; total: number };
    console.log(`      10^5 parts: ${r.seconds.toFixed(2)} s from the send to the receiving body, ${r.total.toFixed(2)} s to the end of the fence`);
    expect(r.ok, run.stderr).to.equal(true);
    expect(r.parts).to.equal(100_001);
    expect(run.status, run.stderr).to.equal(0);
  });
});
