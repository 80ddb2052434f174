/**
 * The device layer under hostile use (issue 35), scenarios that need a process of their own
 * (test/fixtures/device_hostile_child.ts): placement with a host place beside emulated devices and
 * TTs restricted to one kind of place; a device enqueue that fails by TTG_FAULT_DEVOP.
 */
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

const CHILD = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'device_hostile_child.js');

function child<T>(mode: string, env: Record<string, string> = {}): Promise<T> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CHILD, mode], { timeout: 60_000, env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      if (err !== null) { reject(new Error(`child failed: ${err.message}\n${stderr}`)); return; }
      resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '') as T);
    });
  });
}

interface Ended { end: string; message?: string; tt?: string; key?: unknown; ms: number }

describe('the device layer under hostile use: places and injected faults (one process each)', function () {
  this.timeout(120_000);

  it('a task that ends wakes a waiter that can use the freed place: host-restricted tasks do not wait behind device-restricted ones', async () => {
    const r = await child<{
      ok: boolean; fence: Ended; devLast: number; hostLast: number; DEV_TASKS: number; HOST_TASKS: number; DEV_MS: number; HOST_MS: number;
      places: Array<{ place: string; tasks: number }>;
    }>('wakeups');
    expect(r.ok, JSON.stringify(r.fence)).to.equal(true);
    expect(r.places.map((p) => p.place)).to.deep.equal(['device', 'device', 'host']);
    expect(r.places[2]!.tasks, 'host tasks').to.equal(r.HOST_TASKS);
    expect(r.places[0]!.tasks + r.places[1]!.tasks, 'device tasks').to.equal(r.DEV_TASKS);
    // Model: 2 tasks per stream at a time. The host place alone runs the host tasks, 2 at a time:
    // HOST_TASKS / 2 x HOST_MS = 60 ms; the two devices run the device tasks 4 at a time:
    // DEV_TASKS / 4 x DEV_MS = 900 ms. With every wake-up kept the host tasks end long before the
    // device tasks; a lost wake-up leaves the host place idle until the device queue has drained.
    const hostModel = (r.HOST_TASKS / 2) * r.HOST_MS, devModel = (r.DEV_TASKS / 4) * r.DEV_MS;
    expect(r.hostLast, `host tasks ended at ${r.hostLast.toFixed(0)} ms (model ${hostModel} ms), device tasks at ${r.devLast.toFixed(0)} ms (model ${devModel} ms)`)
      .to.be.below(r.devLast / 3);
  });

  it('TTG_FAULT_DEVOP=1: the failed enqueue fails its task naming TT and key, a body that never settles is then E_HANG within TTG_HANG_TIMEOUT, and a clean graph runs', async () => {
    const r = await child<{ failed: Ended; hang: Ended; clean?: Ended; y: number[] }>('fault-env', { TTG_FAULT_DEVOP: '1', TTG_HANG_TIMEOUT: '2' });
    expect(r.failed.end, JSON.stringify(r.failed)).to.not.equal('ok');
    expect(r.failed.end, JSON.stringify(r.failed)).to.not.equal('timeout');
    expect(r.failed.tt, JSON.stringify(r.failed)).to.equal('FAULT');
    expect(r.failed.key, JSON.stringify(r.failed)).to.equal(3);
    expect(r.failed.message, JSON.stringify(r.failed)).to.include('TTG_FAULT_DEVOP');
    expect(r.hang.end, `a body that never settles: ${JSON.stringify(r.hang)}`).to.equal('E_HANG');
    expect(r.clean?.end, JSON.stringify(r.clean)).to.equal('ok');
    expect(r.y).to.deep.equal([5, 5]);
  });
});
