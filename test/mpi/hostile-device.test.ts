/**
 * Device buffers sent to another rank while this rank's device tasks still work on them (issue 35,
 * item 8): test/mpi/hostile-device.ts under `mpirun -np 2`, emulated devices, one run per mode.
 * The other rank must receive the value as sent: not a local consumer's write made while the
 * send waited for the buffer to come home, and not an old host copy marked current by a copy home
 * that a later kernel overtook.
 */
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';
import { resultLines } from './rank-results.js';

const SCRIPT = fileURLToPath(new URL('./hostile-device.js', import.meta.url));
/** A hang becomes E_HANG after 5 s, a stuck mpirun is killed after 60 s. */
const RUN_ENV = { TTG_HANG_TIMEOUT: '5' };
const RUN_TIMEOUT_MS = 60_000;

type Count = { count: number; first?: number };
interface Result {
  rank: number;
  mode: string;
  fence: string;
  received?: Count;
  local?: Count;
  home?: Count;
}

function run(mode: string): { results: Result[]; output: string; status: number | null } {
  const r = mpirun(2, SCRIPT, [mode], RUN_TIMEOUT_MS, RUN_ENV);
  return { results: resultLines<Result>(r.stdout).sort((a, b) => a.rank - b.rank), output: r.output, status: r.status };
}

describe('device buffers sent to another rank under mpirun (2 ranks, emulated devices)', function () {
  this.timeout(RUN_TIMEOUT_MS + 30_000);

  it('a buffer sent to rank 1 and to a local consumer that writes it on the device: rank 1 receives the value sent (2), the consumer sees its own write (20)', () => {
    const { results, output, status } = run('consumer');
    expect(status, `exit status (null: killed after ${RUN_TIMEOUT_MS} ms)\n${output}`).to.equal(0);
    expect(results.map((r) => r.rank), output).to.deep.equal([0, 1]);
    expect(results.map((r) => r.fence), output).to.deep.equal(['ok', 'ok']);
    expect(results[1]!.received, `elements rank 1 received that are not 2\n${output}`).to.deep.equal({ count: 0 });
    expect(results[0]!.local, `elements the local consumer saw that are not 20\n${output}`).to.deep.equal({ count: 0 });
  });

  it('a copy home queued before a kernel writes the buffer leaves no old host copy marked current: rank 1 receives 20, rank 0 reads 20', () => {
    const { results, output, status } = run('home');
    expect(status, `exit status (null: killed after ${RUN_TIMEOUT_MS} ms)\n${output}`).to.equal(0);
    expect(results.map((r) => r.rank), output).to.deep.equal([0, 1]);
    expect(results.map((r) => r.fence), output).to.deep.equal(['ok', 'ok']);
    expect(results[1]!.received, `elements rank 1 received that are not 20\n${output}`).to.deep.equal({ count: 0 });
    expect(results[0]!.home, `elements of x on rank 0's host that are not 20\n${output}`).to.deep.equal({ count: 0 });
  });
});
