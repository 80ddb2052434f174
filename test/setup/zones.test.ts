/**
 * The zones example end to end: every schedule bitwise equal to a sequential run on 1 and 2 ranks,
 * and the dynamic schedule moving work away from a slowed device: lower imbalance than static.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';

const MAIN = fileURLToPath(new URL('../../examples/zones/main.js', import.meta.url));

interface ZonesJson { example: string; zones: number; steps: number; ranks: number; places: number; schedule: string; seconds: number; imbalance: number; ok: boolean | null }

function run(np: number, args: string[]): ZonesJson {
  const r = np === 1 ? spawnSync(process.execPath, [MAIN, ...args, '--json'], { encoding: 'utf8', timeout: 120_000 }) : mpirun(np, MAIN, [...args, '--json']);
  expect(r.status, r.stderr).to.equal(0);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as ZonesJson;
}

describe('zones example (host place beside emulated devices)', function () {
  this.timeout(240_000);

  for (const np of [1, 2]) {
    for (const schedule of ['static', 'proportional', 'dynamic']) {
      it(`${schedule} on ${np} rank(s): every zone bitwise equal to the sequential run`, () => {
        const r = run(np, ['--zones', '3', '--size', '8', '--steps', '5', '--reps', '2', '--schedule', schedule, '--slowdown', '1,2', '--check']);
        expect(r).to.include({ example: 'zones', zones: 9, steps: 5, ranks: np, places: 3, schedule, ok: true });
      });
    }
  }

  it('with one device four times slower, the dynamic schedule is better balanced than the static one', () => {
    const args = ['--zones', '4', '--size', '32', '--steps', '20', '--reps', '10', '--slowdown', '1,4'];
    // the median of three runs of each, alternated: the VM's speed drifts
    const imb: Record<string, number[]> = { static: [], dynamic: [] };
    for (let i = 0; i < 3; i++) for (const s of ['static', 'dynamic']) imb[s]!.push(run(1, [...args, '--schedule', s]).imbalance);
    const med = (v: number[]) => [...v].sort((a, b) => a - b)[1]!;
    expect(med(imb['dynamic']!), JSON.stringify(imb)).to.be.below(med(imb['static']!));
  });

  it('rejects an unknown schedule and a slowdown per device that does not match', () => {
    for (const args of [['--schedule', 'guided'], ['--slowdown', '1']]) {
      const r = spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8' });
      expect(r.status).to.equal(2);
      expect(r.stderr).to.match(/--(schedule|slowdown) must/);
    }
  });
});
