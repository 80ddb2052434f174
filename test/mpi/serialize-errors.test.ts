/**
 * E_SERIALIZE under real `mpirun -np 2`: the message says whether the key or the value cannot
 * travel, and names the TT whose body made the send (also after an await) as well as the
 * receiving TT and terminal, on every rank.
 */
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';

const SCRIPT = fileURLToPath(new URL('../mpi/unsendable.js', import.meta.url));

interface Seen {
  rank: number;
  code: string;
  message: string;
}

/** The JSON lines tagged `tag` in a run's stdout, by rank. */
function tagged(stdout: string, tag: string): Seen[] {
  return stdout.split('\n').filter((l) => l.startsWith(`${tag} `))
    .map((l) => JSON.parse(l.slice(tag.length + 1)) as Seen).sort((a, b) => a.rank - b.rank);
}

/** Runs a mode of the script on two ranks; both must report an E_SERIALIZE rejection. */
function rejections(mode: string): Seen[] {
  const run = mpirun(2, SCRIPT, [mode], 60_000);
  const seen = tagged(run.stdout, 'REJECTED');
  expect(seen.map((s) => s.rank), run.output).to.deep.equal([0, 1]);
  for (const s of seen) expect(s.code, s.message).to.equal('E_SERIALIZE');
  return seen;
}

describe('E_SERIALIZE messages under mpirun', function () {
  this.timeout(240_000);

  it('a class instance key: says "key", names the sending TT and task, the receiving TT and terminal, and the key', () => {
    for (const s of rejections('key')) {
      expect(s.message).to.include('cannot serialize the key')
        .and.to.include("sent by TT 'W' (task 5)")
        .and.to.include("to input terminal 0 of TT 'V'")
        .and.to.include('a Pt instance would arrive as a plain object')
        .and.to.include("(TT 'V', terminal 0, key ");
      expect(s.message).to.not.include('the value');
      // other ranks are told the key as text, since it cannot travel
      if (s.rank === 0) expect(s.message).to.include('key {"x":5}');
    }
  });

  it('an unserializable value: says "value" and names the sending TT as well as the receiving TT and terminal', () => {
    for (const s of rejections('value')) {
      expect(s.message).to.include('cannot serialize the value')
        .and.to.include("sent by TT 'W' (task 5)")
        .and.to.include("to input terminal 0 of TT 'V'")
        .and.to.include('function');
    }
  });

  it('a send made after an await in an async body still names its sender', () => {
    for (const s of rejections('async-value')) {
      expect(s.message).to.include('cannot serialize the value').and.to.include("sent by TT 'W' (task 5)");
    }
  });

  it('a broadcast with one class key among number keys names that key', () => {
    for (const s of rejections('broadcast-key')) {
      expect(s.message).to.include('cannot serialize the key')
        .and.to.include("sent by TT 'W' (task 5)");
      if (s.rank === 0) expect(s.message).to.include('key {"x":7}');
    }
  });

  it('tt.invoke with a class key from the main program throws at once, without a sending task', () => {
    const run = mpirun(2, SCRIPT, ['invoke-key'], 60_000);
    const thrown = tagged(run.stdout, 'THROWN');
    expect(thrown.map((s) => s.rank), run.output).to.deep.equal([0]);
    expect(thrown[0]!.code).to.equal('E_SERIALIZE');
    expect(thrown[0]!.message).to.include('cannot serialize the key')
      .and.to.include("to input terminal 0 of TT 'V'")
      .and.to.not.include('sent by');
    expect(run.stdout, run.output).to.include('NOT-REJECTED 0').and.to.include('NOT-REJECTED 1');
  });
});
