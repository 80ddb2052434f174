/**
 * The heat example end to end: ragged blocks, one block, one-cell blocks, on 1, 2 and 3 ranks;
 * --check compares every cell bit for bit with a sweep of the whole field on one rank.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';

const MAIN = fileURLToPath(new URL('../../examples/heat/main.js', import.meta.url));

interface HeatJson { example: string; n: number; blocks: number; iters: number; ranks: number; kernel: string; seconds: number; gcells_per_s: number; ok: boolean }

const parse = (stdout: string): HeatJson => JSON.parse(stdout.trim().split('\n').pop()!) as HeatJson;

describe('heat example', function () {
  this.timeout(240_000);

  for (const [n, blocks, iters] of [[1, 1, 3], [37, 5, 9], [9, 9, 4], [40, 1, 5]] as const) {
    it(`${n} x ${n} in ${blocks} x ${blocks} blocks, ${iters} sweeps, on one rank: bitwise equal to the sequential sweep`, () => {
      const run = spawnSync(process.execPath, [MAIN, '--n', String(n), '--blocks', String(blocks), '--iters', String(iters), '--check', '--json'], { encoding: 'utf8', timeout: 120_000 });
      expect(run.status, run.stderr).to.equal(0);
      const r = parse(run.stdout);
      expect(r).to.include({ example: 'heat', n, blocks, iters, ranks: 1, ok: true });
      expect(r.gcells_per_s).to.be.greaterThan(0);
    });
  }

  for (const np of [2, 3]) {
    it(`ragged blocks over ${np} ranks: bitwise equal to the sequential sweep`, () => {
      const run = mpirun(np, MAIN, ['--n', '45', '--blocks', '7', '--iters', '11', '--check', '--json']);
      expect(run.status, run.output).to.equal(0);
      expect(parse(run.stdout)).to.include({ ranks: np, ok: true });
    });
  }

  for (const [np, extra] of [[1, []], [1, ['--backend', 'emulated', '--devices', '2', '--memory', String(64 * 1024)]], [2, []]] as const) {
    it(`the interiors by the example's own C kernel (--kernel native) on ${np} rank(s) ${extra.join(' ')}: still bitwise equal`, () => {
      const args = ['--n', '61', '--blocks', '4', '--iters', '6', '--kernel', 'native', '--check', '--json', ...extra];
      const run = np === 1 ? spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8', timeout: 120_000 }) : mpirun(np, MAIN, args);
      expect(run.status, run.stderr).to.equal(0);
      expect(parse(run.stdout)).to.include({ ranks: np, kernel: 'native', ok: true });
    });
  }

  it('rejects options it cannot run: more blocks than cells, an unstable alpha, an unknown kernel', () => {
    for (const args of [['--n', '4', '--blocks', '5'], ['--alpha', '0.3'], ['--kernel', 'gpu']]) {
      const run = spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8' });
      expect(run.status).to.equal(2);
      expect(run.stderr).to.match(/--(blocks|alpha|kernel) must be/);
    }
  });
});
