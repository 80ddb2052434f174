/**
 * ttg as a dependency: publint finds nothing; the published declarations carry no @internal
 * members; the packed tarball installs into a fresh ESM project (building its addon), and a
 * TypeScript program type-checks against it with NodeNext resolution and runs under `mpirun -np 2`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));

describe('ttg as a dependency', function () {
  this.timeout(300_000);

  it('publint finds nothing to report in the package', () => {
    const out = execFileSync(join(root, 'node_modules', '.bin', 'publint'), [], { cwd: root, encoding: 'utf8' });
    expect(out).to.include('All good!');
  });

  it('the published declarations carry no @internal members', () => {
    // grep lists the declaration files that still mention it, and exits 1 when there are none
    const grep = spawnSync('grep', ['-rl', '--include=*.d.ts', '@internal', join(root, 'dist', 'src')], { encoding: 'utf8' });
    expect(grep.stdout).to.equal('');
    expect(grep.status).to.equal(1);
  });

  it('packs, installs into a fresh TypeScript ESM project, type-checks and runs on 2 ranks', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ttg-consumer-'));
    try {
      const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
      execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: root, encoding: 'utf8' });
      const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'))!;
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }));
      run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', `./${tarball}`]);
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, outDir: 'out', types: [] },
      }));
      copyFileSync(join(root, 'test', 'fixtures', 'consumer-app.ts'), join(dir, 'app.ts'));
      run(join(root, 'node_modules', '.bin', 'tsc'), ['-p', 'tsconfig.json']);
      const job = mpirun(2, join(dir, 'out', 'app.js'));
      expect(job.status, job.output).to.equal(0);
      expect(job.stdout).to.include('TOTAL 5');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
