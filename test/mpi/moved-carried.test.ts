/**
 * A consumed array moved to another rank while an earlier send of the same task still carries it
 * to a local receiver (issue 36, item 9): the move copies instead of detaching it under that
 * receiver; and an object sent after the move that carries the (detached) array is E_MOVED.
 * Program: test/mpi/moved-carried.ts.
 */
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';

const SCRIPT = fileURLToPath(new URL('./moved-carried.js', import.meta.url));

function run(mode: string): { seen?: { length: number; right: boolean }; error?: { code?: string; message: string } } {
  const r = mpirun(2, SCRIPT, [mode], 60_000, { TTG_HANG_TIMEOUT: '10' });
  const line = r.stdout.trim().split('\n').find((l) => l.startsWith('{'));
  expect(line, `${r.stdout}\n${r.stderr}`).to.not.equal(undefined);
  return JSON.parse(line!) as ReturnType<typeof run>;
}

describe('a moved array that an earlier send of its task still carries, at 2 ranks', function () {
  this.timeout(120_000);

  it('sent inside { ref: a } to a local task, then moved to another rank: the local task reads all of a', () => {
    const r = run('first');
    expect(r.error, JSON.stringify(r.error)).to.equal(undefined);
    expect(r.seen).to.deep.equal({ length: 16384, right: true });
  });

  it('moved to another rank, then sent inside { ref: a }: E_MOVED naming the task', () => {
    const r = run('after');
    expect(r.error?.code, JSON.stringify(r)).to.equal('E_MOVED');
    expect(r.error!.message).to.include("TT 'T'");
  });
});
