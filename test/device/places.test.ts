/**
 * Device tasks on several places in one run: emulated devices with a host place beside them
 * (`host: N`), devices made slower (`slowdown`), a TT restricted to host or devices, a devicehint
 * naming a place (test/fixtures/places_child.ts, one process each).
 */
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

const CHILD = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'places_child.js');

interface Place { place: 'device' | 'host'; tasks: number; busy_ms: number }
interface Out { ok: boolean; code?: string; message?: string; places?: Place[] }

function child(opts: object, ...args: string[]): Promise<Out> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CHILD, JSON.stringify(opts), ...args], { timeout: 60_000 }, (err, stdout, stderr) => {
      if (err !== null) { reject(new Error(`child failed: ${stderr}`)); return; }
      resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '') as Out);
    });
  });
}

const HYBRID = { backend: 'emulated', devices: 2, streams: 1, host: 1, memory: 4 * 2 ** 20 };

describe('device places: a host place beside emulated devices, devices of uneven speed', function () {
  this.timeout(120_000);

  it('tasks run on the devices and on the host place, every result right; stats count each place', async () => {
    const r = await child(HYBRID);
    expect(r.ok, r.message).to.equal(true);
    expect(r.places!.map((p) => p.place)).to.deep.equal(['device', 'device', 'host']);
    for (const p of r.places!) expect(p.tasks, JSON.stringify(r.places)).to.be.greaterThan(0);
    expect(r.places!.reduce((a, p) => a + p.tasks, 0)).to.equal(48);
  });

  it('a TT restricted to the host place, or to the devices, stays there; a devicehint names a place', async () => {
    const host = await child(HYBRID, 'host');
    expect(host.ok, host.message).to.equal(true);
    expect(host.places!.map((p) => p.tasks)).to.deep.equal([0, 0, 48]);
    const devices = await child(HYBRID, 'devices');
    expect(devices.ok, devices.message).to.equal(true);
    expect(devices.places![2]!.tasks).to.equal(0);
    const hinted = await child(HYBRID, 'any', '1');
    expect(hinted.places!.map((p) => p.tasks)).to.deep.equal([0, 48, 0]);
  });

  it('one buffer written on every place in turn, over two phases with a host task between, keeps every update', async () => {
    const r = await child(HYBRID, 'chain') as Out & { seen: number[]; final: number };
    expect(r.ok, r.message).to.equal(true);
    expect(r.seen).to.deep.equal([10, 10, 20, 20]);
    expect(r.final).to.equal(20);
  });

  it('work moves away from a device six times slower, measured per TT', async () => {
    const r = await child({ backend: 'emulated', devices: 2, streams: 1, slowdown: [6, 1], memory: 4 * 2 ** 20 });
    expect(r.ok, r.message).to.equal(true);
    const [slow, fast] = r.places!;
    expect(slow!.tasks + fast!.tasks).to.equal(48);
    expect(slow!.tasks, JSON.stringify(r.places)).to.be.at.most(fast!.tasks / 2);
  });

  it('bad options and a host restriction without a host place are E_INVALID_ARGUMENT', async () => {
    expect(await child({ backend: 'host', host: 2 })).to.include({ ok: false, code: 'E_INVALID_ARGUMENT' });
    expect(await child({ backend: 'emulated', devices: 2, slowdown: [2] })).to.include({ ok: false, code: 'E_INVALID_ARGUMENT' });
    expect(await child({ backend: 'emulated', slowdown: [0.5] })).to.include({ ok: false, code: 'E_INVALID_ARGUMENT' });
    // a host place beside CUDA devices is accepted; without a GPU it is the missing device that fails
    const cuda = await child({ backend: 'cuda', host: 1 });
    if (cuda.ok === false) expect(cuda.message).to.include("backend 'cuda'").and.not.include('options.device.host');
    const r = await child({ backend: 'emulated', devices: 2 }, 'host');
    expect(r).to.include({ ok: false, code: 'E_INVALID_ARGUMENT' });
    expect(r.message).to.include("placement 'host'");
  });
});
