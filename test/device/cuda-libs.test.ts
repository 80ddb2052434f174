/**
 * cuBLAS/cuSOLVER at run time: where the cuda backend looks for them (src/base/cuda-libs.ts) and
 * what its loader makes of what it finds (native/src/cuda_vendor.cu), shown with stand-in
 * libraries (test/fixtures/kernels/fake_vendor.c) on a machine without a GPU: the backend names the
 * library, version and path it will use, or says that our kernels run and why. Each load runs in a
 * child process: the loader runs once per process.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { cudaLibDirs } from '../../src/base/cuda-libs.js';
import { requireNative } from '../../src/native/addon.js';
import { scratchDir } from '../scratch-dir.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const fixture = join(root, 'test', 'fixtures', 'kernels', 'fake_vendor.c');

function fake(dir: string, name: string, ...defs: string[]): void {
  execFileSync('cc', ['-shared', '-fPIC', ...defs.map((d) => `-D${d}`), fixture, '-o', join(dir, name)]);
}

/** What devInfo().cuda_kernels says after a cuda start in a fresh process with `TTG_CUDA_LIBS`. */
function kernelsWith(libs: string): Promise<string> {
  const addon = join(root, 'dist', 'src', 'native', 'addon.js');
  const code = `const { requireNative } = await import(${JSON.stringify(addon)}); const n = requireNative();
    try { n.devStart('cuda', 1, 1, () => {}); } catch {} console.log(n.devInfo().cuda_kernels);`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', code], { env: { ...process.env, TTG_CUDA_LIBS: libs }, timeout: 20000 }, (err, stdout, stderr) => {
      if (err !== null) reject(new Error(`${err.message}\n${stderr}`));
      else resolve(stdout.trim());
    });
  });
}

describe('cuBLAS and cuSOLVER at run time', function () {
  this.timeout(30000);

  it('searches TTG_CUDA_LIBS first, then the toolkit and the nvidia wheels of Python environments; off turns it off', () => {
    const venv = scratchDir('ttg-venv-');
    const wheel = join(venv, 'lib', 'python3.12', 'site-packages', 'nvidia', 'cu13', 'lib');
    mkdirSync(wheel, { recursive: true });
    const mine = scratchDir('ttg-libs-');
    const dirs = cudaLibDirs({ libs: `${mine}:/nonexistent/dir`, VIRTUAL_ENV: venv }).split(':');
    expect(dirs[0]).to.equal(mine);
    expect(dirs).to.include(wheel);
    expect(dirs).to.not.include('/nonexistent/dir');
    expect(cudaLibDirs({ libs: 'off', VIRTUAL_ENV: venv })).to.equal('off');
  });

  describe('the loader (stand-in libraries; needs a CUDA build and no GPU)', () => {
    before(function () {
      const info = requireNative().devInfo();
      if (!info.cuda_compiled || info.cuda_devices > 0) this.skip();  // a GPU would run the stand-ins
    });

    it('names cuBLAS and cuSOLVER with their versions and paths when both load', async () => {
      const dir = scratchDir('ttg-vendor-');
      fake(dir, 'libcublas.so.13', 'FAKE_MAJOR=13');
      fake(dir, 'libcusolver.so.12', 'FAKE_MAJOR=12', 'FAKE_SOLVER');
      expect(await kernelsWith(dir)).to.equal(`cuBLAS 13.7.1 (${dir}/libcublas.so.13) + cuSOLVER 12.7.1 (${dir}/libcusolver.so.12)`);
    });

    it('without cuSOLVER, dpotrf stays ours; a cuBLAS missing an entry point, or none, leaves our kernels, saying why', async () => {
      const only = scratchDir('ttg-vendor-');
      fake(only, 'libcublas.so.12', 'FAKE_MAJOR=12');
      const k = await kernelsWith(only);
      expect(k).to.match(new RegExp(`^cuBLAS 12\\.7\\.1 \\(${only}/libcublas\\.so\\.12\\); dpotrf: our tile kernel \\(no cuSOLVER: `));
      const bad = scratchDir('ttg-vendor-');
      fake(bad, 'libcublas.so.13', 'FAKE_MAJOR=13', 'FAKE_INCOMPLETE');
      expect(await kernelsWith(bad)).to.equal(`our CUDA tile kernels (no cuBLAS: ${bad}/libcublas.so.13 has no cublasDgemm_v2; TTG_CUDA_LIBS names its directory)`);
      const none = await kernelsWith(scratchDir('ttg-vendor-'));
      expect(none).to.match(/^our CUDA tile kernels \(no cuBLAS: libcublas\.so\.13, libcublas\.so\.12 not found in \d+ director/);
      expect(await kernelsWith('off')).to.equal('our CUDA tile kernels (cuBLAS/cuSOLVER off: TTG_CUDA_LIBS=off)');
    });
  });
});
