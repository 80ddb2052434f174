/**
 * A payload that takes longer to arrive than TTG_HANG_TIMEOUT is progress, not a hang (issue 36,
 * item 4): MPI reports nothing while a large receive is under way, so a rank with payload
 * receives in flight does not vote "stalled". TTG_FAULT_RECV_DELAY_MS stands in for a slow network
 * (each payload counts as received 2 s after its receives were posted); the watchdog would speak
 * after 0.3 s. Both receive paths: plain parts received by the comm thread, and split-metadata
 * parts whose receives JS posts (TTG_PRERECV=0).
 */
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';

const SCRIPT = fileURLToPath(new URL('./many-parts.js', import.meta.url));

describe('a payload slower than the hang timeout between 2 ranks', function () {
  this.timeout(120_000);

  for (const prerecv of ['1', '0']) {
    it(`arrives whole and the fence ends without E_HANG (TTG_PRERECV=${prerecv})`, () => {
      const run = mpirun(2, SCRIPT, ['100'], 60_000, { TTG_HANG_TIMEOUT: '0.3', TTG_FAULT_RECV_DELAY_MS: '2000', TTG_PRERECV: prerecv });
      const line = run.stdout.trim().split('\n').find((l) => l.startsWith('{'));
      expect(line, `${run.stdout}\n${run.stderr}`).to.not.equal(undefined);
      const r = JSON.parse(line!) as { ok: boolean; parts: number; seconds: number };
      expect(r.ok, run.stderr).to.equal(true);
      expect(r.seconds, 'the delay was in force').to.be.greaterThan(1.9);
      expect(run.status, run.stderr).to.equal(0);
    });
  }
});
