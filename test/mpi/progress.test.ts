/**
 * The progress line of a long fence (src/observe/progress.ts): shown on a terminal (a pseudo-terminal
 * made by `script`), with the world's count under mpirun, erased at the end; never when stderr is
 * piped, nor with TTG_PROGRESS=0.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';

const SCRIPT = fileURLToPath(new URL('../mpi/progress.js', import.meta.url));
const LINE = /ttg: fence (\d+) s: ([\d,]+) tasks done( on (\d+) ranks)?(, ([\d,]+)\/s)?, (\d+) running here/g;

/** Runs `command` with a terminal for its output (util-linux `script`); returns what it printed. */
function onTerminal(command: string, env: Record<string, string>): string {
  const run = spawnSync('script', ['-qfec', command, '/dev/null'], {
    encoding: 'utf8', timeout: 120_000, env: { ...process.env, OMPI_ALLOW_RUN_AS_ROOT: '1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1', ...env },
  });
  expect(run.status, run.stdout + run.stderr).to.equal(0);
  return run.stdout;
}

/** Each rank's RESULT object, found anywhere in a terminal's output (ranks' lines interleave with the progress line). */
const results = (out: string): Array<{ rank: number; ran: number }> => [...out.matchAll(/RESULT (\{[^}]*\})/g)].map((m) => JSON.parse(m[1]!) as { rank: number; ran: number });

const shown = (out: string): number[] => [...out.matchAll(LINE)].map((m) => Number(m[2]!.replace(/,/g, '')));

describe('the progress line of a long fence', function () {
  this.timeout(180_000);

  it('on a terminal: appears after TTG_PROGRESS seconds, counts up, and is erased when the fence ends', () => {
    const out = onTerminal(`node ${SCRIPT}`, { TTG_PROGRESS: '0.5' });
    const counts = shown(out);
    expect(counts.length, out).to.be.at.least(3);
    expect(counts).to.deep.equal([...counts].sort((a, b) => a - b));
    expect(counts.at(-1)).to.be.within(1, 600);
    expect(out).to.include('\r\x1b[K');
    // erased before the program's next output
    expect(out.lastIndexOf('\r\x1b[K')).to.be.below(out.indexOf('RESULT'));
    expect(results(out)[0]!.ran).to.equal(600);
  });

  it('under mpirun on a terminal: the world\'s count, on 2 ranks, more than rank 0 ran itself', () => {
    const out = onTerminal(`mpirun -np 2 node ${SCRIPT}`, { TTG_PROGRESS: '0.5' });
    const lines = [...out.matchAll(LINE)];
    expect(lines.length, out).to.be.at.least(2);
    for (const m of lines) expect(m[4]).to.equal('2');
    const mine = results(out).find((r) => r.rank === 0)?.ran;
    expect(mine, out).to.be.a('number');
    expect(Math.max(...shown(out))).to.be.above(mine!);
  });

  it('never when stderr is piped (alone or under mpirun, which gives ranks a terminal of their own), nor on a terminal with TTG_PROGRESS=0', () => {
    const piped = spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8', env: { ...process.env, TTG_PROGRESS: '0.5' } });
    expect(piped.status).to.equal(0);
    expect(piped.stderr + piped.stdout).to.not.match(/tasks done/);
    const mpiPiped = mpirun(2, SCRIPT, [], 60_000, { TTG_PROGRESS: '0.5' });
    expect(mpiPiped.status, String(mpiPiped.stderr)).to.equal(0);
    expect(results(String(mpiPiped.stdout))).to.have.length(2);
    expect(String(mpiPiped.stderr) + String(mpiPiped.stdout)).to.not.match(/tasks done/);
    expect(onTerminal(`node ${SCRIPT}`, { TTG_PROGRESS: '0' })).to.not.match(/tasks done/);
  });
});
