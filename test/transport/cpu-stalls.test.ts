import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';

import { measureCpuStalls } from '../../bench/cpu-stalls.js';

const probeModule = new URL('../../bench/cpu-stalls.js', import.meta.url).href;

describe('bench: CPU-stall probe', () => {
  it('returns a share, a rate and a median gap that fit together', () => {
    const s = measureCpuStalls(50);
    expect(s.pct).to.be.at.least(0).and.below(100);
    expect(s.perMs).to.be.at.least(0);
    expect(s.medianUs).to.be.at.least(s.perMs === 0 ? 0 : 1);
  });

  it('counts the time another process takes from its core', async () => {
    // Two busy processes on one core: the probe gets about half of it.
    const rival = spawn('taskset', ['-c', '0', process.execPath, '-e', 'const end = Date.now() + 3000; while (Date.now() < end);']);
    try {
      await new Promise((r) => setTimeout(r, 200));
      const code = `import { measureCpuStalls } from '${probeModule}'; console.log(JSON.stringify(measureCpuStalls(600)));`;
      const run = spawnSync('taskset', ['-c', '0', process.execPath, '--input-type=module', '-e', code], { encoding: 'utf8' });
      expect(run.status, run.stderr).to.equal(0);
      const s = JSON.parse(run.stdout) as { pct: number };
      expect(s.pct).to.be.within(25, 80);
    } finally {
      rival.kill();
    }
  });
});
