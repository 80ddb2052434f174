/**
 * The POTRF example end to end: ragged sizes on 1, 2 and 3 ranks (P=1, Q=3 too) and the emulated
 * backend with less device memory than the matrix; the scaled residual must be below 60 each time.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';

const MAIN = fileURLToPath(new URL('../../examples/potrf/main.js', import.meta.url));

interface PotrfJson {
  example: string; n: number; nb: number; P: number; Q: number; ranks: number; backend: string;
  body: string; seconds: number; gflops: number; residual: number; ok: boolean;
}

function parse(stdout: string): PotrfJson {
  return JSON.parse(stdout.trim().split('\n').pop()!) as PotrfJson;
}

function single(args: string[]): PotrfJson {
  const run = spawnSync(process.execPath, [MAIN, ...args, '--check', '--json'], { encoding: 'utf8', timeout: 120_000 });
  expect(run.status, run.stderr).to.equal(0);
  return parse(run.stdout);
}

describe('POTRF example', function () {
  this.timeout(240_000);

  for (const [n, nb] of [[1, 1], [7, 3], [100, 32], [531, 64]] as const) {
    it(`factors N=${n} with NB=${nb} on one rank (ragged last tile) with a residual below 60`, () => {
      const r = single(['--n', String(n), '--nb', String(nb)]);
      expect(r).to.include({ example: 'potrf', n, nb: Math.min(nb, n), ranks: 1, ok: true });
      expect(r.residual).to.be.a('number').and.to.be.below(60);
    });
  }

  it('runs on the emulated backend with device memory below the matrix size (2 devices)', () => {
    // 400^2 doubles = 1.28 MB; each device gets 256 KiB, so tiles must be evicted and reloaded
    const r = single(['--n', '400', '--nb', '48', '--backend', 'emulated', '--devices', '2', '--memory', String(256 * 1024)]);
    expect(r).to.include({ backend: 'emulated', ok: true });
    expect(r.residual).to.be.below(60);
  });

  for (const [np, extra] of [[2, []], [3, []], [3, ['--P', '1', '--Q', '3']]] as const) {
    it(`factors a ragged matrix on ${np} ranks ${extra.join(' ')} and checks it with the factor distributed`, () => {
      const run = mpirun(np, MAIN, ['--n', '333', '--nb', '40', '--check', '--json', ...extra]);
      expect(run.status, run.output).to.equal(0);
      const r = parse(run.stdout);
      expect(r).to.include({ ranks: np, ok: true });
      if (extra.length > 0) expect(r).to.include({ P: 1, Q: 3 });
      expect(r.residual).to.be.below(60);
    });
  }

  it('with async bodies (--body async), gives the same factor as with generator bodies, on host, emulated and 2 ranks', () => {
    const args = ['--n', '300', '--nb', '48'];
    const gen = single(args);
    const asy = single([...args, '--body', 'async']);
    expect(asy).to.include({ body: 'async', ok: true });
    expect(asy.residual).to.equal(gen.residual);
    const emu = single([...args, '--body', 'async', '--backend', 'emulated', '--devices', '2', '--memory', String(256 * 1024)]);
    expect(emu).to.include({ body: 'async', backend: 'emulated', ok: true });
    const run = mpirun(2, MAIN, [...args, '--body', 'async', '--check', '--json']);
    expect(run.status, run.output).to.equal(0);
    expect(parse(run.stdout)).to.include({ body: 'async', ranks: 2, ok: true });
  });

  it('--help prints the usage and exits 0; an unknown option or a bad value exits 2 with the usage', () => {
    const run = (args: string[]) => spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8', timeout: 60_000 });
    const help = run(['--help']);
    expect(help.status).to.equal(0);
    expect(help.stdout).to.include('usage: potrf').and.include('--body generator|async');
    const unknown = run(['--frobnicate', '3']);
    expect(unknown.status).to.equal(2);
    expect(unknown.stderr).to.include("'--frobnicate'").and.include('usage: potrf');
    const bad = run(['--body', 'threads']);
    expect(bad.status).to.equal(2);
    expect(bad.stderr).to.include('--body must be generator or async');
  });

  it('produces the same residual on 1 and 2 ranks (the matrix depends only on (i, j))', () => {
    const a = single(['--n', '300', '--nb', '64']);
    const run = mpirun(2, MAIN, ['--n', '300', '--nb', '64', '--check', '--json']);
    expect(run.status, run.output).to.equal(0);
    expect(parse(run.stdout).residual).to.be.closeTo(a.residual, 1e-12);
  });
});
