/**
 * The BSpMM example end to end: irregular tiles and several densities on 1, 2 and 3 ranks (with
 * the k range split across ranks too), checked against the dense product; the k window bounds
 * the bytes of A/B tiles held on a rank; the emulated backend with little device memory.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { makeStructure, actualDensity } from '../../examples/bspmm/sparse.js';
import { mpirun } from '../../bench/lib/mpirun.js';

const MAIN = fileURLToPath(new URL('../../examples/bspmm/main.js', import.meta.url));

interface BspmmJson {
  example: string; m: number; n: number; k: number; density: number; ranks: number; seconds: number;
  gflops: number; max_inflight_bytes: number; ok: boolean | null; error: number | null; backend: string;
  times: number[];
}

function parse(stdout: string): BspmmJson {
  return JSON.parse(stdout.trim().split('\n').pop()!) as BspmmJson;
}

function single(args: string[]): BspmmJson {
  const run = spawnSync(process.execPath, [MAIN, ...args, '--json'], { encoding: 'utf8', timeout: 60_000 });
  expect(run.status, run.stderr).to.equal(0);
  return parse(run.stdout);
}

function multi(np: number, args: string[]): BspmmJson {
  const run = mpirun(np, MAIN, [...args, '--json']);
  expect(run.status, run.output).to.equal(0);
  return parse(run.stdout);
}

const SHAPE = ['--m', '230', '--n', '190', '--k', '260', '--tmin', '17', '--tmax', '45'];

describe('BSpMM example', function () {
  this.timeout(120_000);

  it('builds irregular tiles within [tmin, tmax] and reaches the density, the same for any seed use', () => {
    const o = { m: 1000, n: 900, k: 1100, tmin: 30, tmax: 70, density: 0.25, seed: 5 };
    const s = makeStructure(o);
    for (const t of [s.rows, s.inner, s.cols]) {
      expect([...t.sizes].every((x) => x >= 30 && x <= 70)).to.equal(true);
      expect(new Set(t.sizes).size).to.be.greaterThan(3);
    }
    expect(s.rows.offsets[s.rows.count]).to.equal(1000);
    expect(actualDensity(s, 0)).to.be.within(0.25, 0.25 + (70 * 70) / (1000 * 1100));
    expect(makeStructure(o).a).to.deep.equal(s.a);
  });

  for (const density of [1, 0.5, 0.2]) {
    it(`multiplies at density ${density} on one rank and matches the dense product`, () => {
      const r = single([...SHAPE, '--density', String(density), '--check']);
      expect(r).to.include({ example: 'bspmm', m: 230, n: 190, k: 260, density, ranks: 1, ok: true });
      expect(r.error).to.be.at.most(1e-12 * 260);
    });
  }

  it('handles extents smaller than a tile and a single tile', () => {
    expect(single(['--m', '5', '--n', '3', '--k', '7', '--tmin', '16', '--tmax', '32', '--density', '1', '--check'])).to.include({ ok: true });
  });

  it('--window 1 keeps far fewer A/B bytes on a rank than the unthrottled run', () => {
    const args = ['--m', '480', '--n', '480', '--k', '600', '--tmin', '24', '--tmax', '48', '--density', '1', '--check'];
    const free = single(args);
    const held = single([...args, '--window', '1']);
    expect(free.ok).to.equal(true);
    expect(held.ok).to.equal(true);
    expect(free.max_inflight_bytes).to.equal((480 * 600 + 600 * 480) * 8); // everything broadcast at once
    expect(held.max_inflight_bytes).to.be.below(free.max_inflight_bytes / 4);
  });

  it('computes several products with one graph (--iters 3), the window bounding each of them', () => {
    const args = ['--m', '480', '--n', '480', '--k', '600', '--tmin', '24', '--tmax', '48', '--density', '1', '--check', '--iters', '3'];
    const free = single(args);
    const held = single([...args, '--window', '1']);
    expect(free.ok).to.equal(true);
    expect(held.ok).to.equal(true); // checks the last product, made from the A and B every product shared
    expect(free.times).to.have.length(3);
    expect(free.seconds).to.equal([...free.times].sort((x, y) => x - y)[1]);
    expect(held.max_inflight_bytes).to.be.below(free.max_inflight_bytes / 4); // the peak over all three
  });

  it('runs on the emulated backend with device memory below the working set', () => {
    const r = single([...SHAPE, '--density', '0.6', '--check', '--backend', 'emulated', '--devices', '2', '--memory', String(96 * 1024)]);
    expect(r).to.include({ backend: 'emulated', ok: true });
  });

  for (const [np, extra] of [[2, []], [3, []], [2, ['--ksplit', '2']], [3, ['--ksplit', '3', '--window', '2']]] as const) {
    it(`multiplies on ${np} ranks ${extra.join(' ')} and matches the dense product`, () => {
      for (const density of [0.7, 0.25]) {
        const r = multi(np, [...SHAPE, '--density', String(density), '--check', ...extra]);
        expect(r).to.include({ ranks: np, density, ok: true });
      }
    });
  }

  it('gives bit-identical C on 1 and 2 ranks (same k order per tile), and the window bounds memory on 2 ranks', () => {
    const args = [...SHAPE, '--density', '0.5', '--check'];
    const one = single(args);
    const two = multi(2, args);
    expect(two.error).to.equal(one.error);
    const free = multi(2, ['--m', '480', '--n', '480', '--k', '600', '--tmin', '24', '--tmax', '48', '--density', '1']);
    const held = multi(2, ['--m', '480', '--n', '480', '--k', '600', '--tmin', '24', '--tmax', '48', '--density', '1', '--window', '1']);
    expect(held.max_inflight_bytes).to.be.below(free.max_inflight_bytes / 3);
  });

  it('rejects bad options with the usage', () => {
    const run = spawnSync(process.execPath, [MAIN, '--density', '1.5'], { encoding: 'utf8' });
    expect(run.status).to.equal(2);
    expect(run.stderr).to.match(/--density must be in \(0, 1\]/);
  });
});
