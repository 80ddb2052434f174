/**
 * scripts/gpu-check.sh: the bundle that runs the GPU check on a bare CUDA node (no Node, no npm,
 * no network) stays under the size the device machines accept, says in one line that there is
 * nothing to check where there is no GPU, and brings a Node and the JS dependencies that load
 * without anything from this checkout. (Building the addon from it and the GPU steps themselves
 * run on the GPU node: docs/design/gpu-check.md.)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const LIMIT = 58 * 2 ** 20;

/** Runs the bundle's run.sh as a bare node would: a clean environment, system directories only. */
function runBundle(dir: string, args: string[], env: Record<string, string> = {}): string {
  return execFileSync('bash', [join(dir, 'run.sh'), ...args], {
    env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: dir, ...env }, encoding: 'utf8', timeout: 120_000,
  });
}

function hasGpu(): boolean {
  try {
    return /^GPU /m.test(execFileSync('nvidia-smi', ['-L'], { encoding: 'utf8' }));
  } catch {
    return false;
  }
}

describe('scripts/gpu-check.sh (the GPU check bundle)', function () {
  this.timeout(300_000);
  let dir = '';
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'ttg-gpu-bundle-'));
    // Node's binary is compressed once per binary (cached in node_modules/.cache): the first run takes ~30 s more.
    execFileSync('bash', [join(repo, 'scripts', 'gpu-check.sh'), '--bundle', dir, '--no-tsc'], { cwd: repo, stdio: 'pipe' });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it(`is run.sh, node.xz and ttg-gpu.tar.xz, ${LIMIT / 2 ** 20} MiB at most`, () => {
    const files = readdirSync(dir).sort();
    expect(files).to.deep.equal(['node.xz', 'run.sh', 'ttg-gpu.tar.xz']);
    const bytes = files.reduce((n, f) => n + statSync(join(dir, f)).size, 0);
    expect(bytes).to.be.at.most(LIMIT);
    expect(statSync(join(dir, 'node.xz')).size, 'a whole Node binary').to.be.above(10 * 2 ** 20);
  });

  it('without a GPU prints one JSON line saying so and exits 0', function () {
    if (hasGpu()) this.skip();
    const out = runBundle(dir, []).trim().split('\n');
    expect(out).to.have.length(1);
    expect(JSON.parse(out[0]!)).to.deep.include({ ok: true, gpu: null });
    expect(JSON.parse(out[0]!).skipped).to.match(/^no GPU on this machine/);
  });

  it('unpacks a Node of our major version that loads ttg, mocha, chai and cmake-js from the bundle alone', () => {
    const work = mkdtempSync(join(tmpdir(), 'ttg-gpu-work-'));
    try {
      const lines = runBundle(dir, ['--selftest'], { TTG_GPU_CHECK_DIR: work }).trim().split('\n');
      expect(lines.join('\n')).to.include(`(${join(work, 'ttg-gpu', '.node', 'bin', 'node')})`);
      const r = JSON.parse(lines.pop()!) as { ok: boolean; node: string };
      expect(r.ok).to.equal(true);
      expect(r.node.split('.')[0]).to.equal(process.version.split('.')[0]);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
