/** The `RESULT {...}` lines that the programs of test/mpi print, one per rank. */
import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';

/** Each `RESULT` line of `stdout`, parsed. */
export function resultLines<R>(stdout: string): R[] {
  return stdout.split('\n').filter((l) => l.startsWith('RESULT ')).map((l) => JSON.parse(l.slice(7)) as R);
}

/** Runs `script` under `mpirun -np np` with `args` (and `env`); expects success and one result per rank, sorted by rank. */
export function rankResults<R extends { rank: number }>(np: number, script: string, args: string[], timeoutMs = 120_000, env: Record<string, string> = {}): R[] {
  const run = mpirun(np, script, args, timeoutMs, env);
  expect(run.status, run.output).to.equal(0);
  const out = resultLines<R>(run.stdout);
  expect(out.map((r) => r.rank).sort(), run.output).to.deep.equal([...Array(np).keys()]);
  return out.sort((a, b) => a.rank - b.rank);
}
