/**
 * A part of 2 GiB or more travels intact between 2 ranks (issue 37, item 4): MPI counts are ints,
 * so the addon sends, receives and broadcasts it in chunks (1 GiB), each straight into the
 * destination. A 2.25 GiB Float64Array is checked element by element at both ends; the other
 * receive paths (into the array a ttg.Buffer's metadata allocates, a broadcast) run the same
 * chunking on 10 MiB with chunks of an odd size (TTG_MPI_CHUNK_BYTES), which first-touching
 * 2.25 GiB three times more on this kind of VM would not add to.
 */
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';

const SCRIPT = fileURLToPath(new URL('./huge-part.js', import.meta.url));

function runChecked(mode: string, gib: number, env: Record<string, string> = {}): number {
  const run = mpirun(2, SCRIPT, [mode, String(gib)], 200_000, env);
  const lines = run.stdout.trim().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { rank: number; ok: boolean; bytes: number; seconds: number });
  expect(lines.length, `${run.stdout}\n${run.stderr}`).to.equal(2);
  for (const r of lines) {
    expect(r.bytes).to.equal(Math.round(gib * 2 ** 30 / 8) * 8);
    expect(r.ok, `rank ${r.rank}: ${run.stderr}`).to.equal(true);
  }
  expect(run.status, run.stderr).to.equal(0);
  return lines.find((r) => r.rank === 1)!.seconds;
}

describe('parts larger than one MPI message between 2 ranks', function () {
  this.timeout(240_000);

  it('a 2.25 GiB Float64Array arrives with every element right and leaves the sender\'s unchanged', () => {
    const s = runChecked('array', 2.25);
    console.log(`      2.25 GiB: ${s.toFixed(2)} s from the send to the end of the fence`);
  });

  for (const mode of ['array', 'buffer', 'bcast']) {
    it(`10 MiB in chunks of 1000003 bytes arrives intact (${mode})`, () => {
      runChecked(mode, 10 / 1024, { TTG_MPI_CHUNK_BYTES: '1000003' });
    });
  }
});
