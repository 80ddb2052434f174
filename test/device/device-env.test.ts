/**
 * Backend selection in child processes (initialize configures a process once): TTG_DEVICE, the
 * default backend, options over the environment, clear errors for a bad variable or for `cuda`
 * without a GPU, and the CUDA build: compiled whenever nvcc exists, loading with zero devices
 * without a GPU. Children never call finalize, so each also checks that the device threads do not
 * keep an idle process alive.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

interface ChildOut {
  ok: boolean; code?: string; message?: string; backend?: string; devices?: number; streams?: number;
  capacity?: Array<number | null>; result?: number[];
  info?: { blas: boolean; blas_threads: number; kernels: string; cuda_compiled: boolean; cuda_devices: number; cuda_error: string };
}

function child(env: Record<string, string | undefined>, opts?: object): Promise<ChildOut> {
  const args = [join(here, '..', 'fixtures', 'device_child.js')];
  if (opts !== undefined) args.push(JSON.stringify(opts));
  const childEnv = { ...process.env, ...env };
  if (env['TTG_DEVICE'] === undefined) delete childEnv['TTG_DEVICE'];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { env: childEnv, timeout: 20000 }, (err, stdout, stderr) => {
      if (err !== null) { reject(new Error(`child failed (${String(err.code)}): ${stderr}`)); return; }
      resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '') as ChildOut);
    });
  });
}

const onPath = (exe: string) => (process.env['PATH'] ?? '').split(delimiter).some((d) => d !== '' && existsSync(join(d, exe)));

describe('device backend selection (child processes)', function () {
  this.timeout(30000);

  it('TTG_DEVICE=emulated:2:8MiB gives two emulated devices of 8 MiB', async () => {
    const r = await child({ TTG_DEVICE: 'emulated:2:8MiB' });
    expect(r, r.message).to.include({ ok: true, backend: 'emulated', devices: 2 });
    expect(r.capacity).to.deep.equal([8 * 2 ** 20, 8 * 2 ** 20]);
    expect(r.result).to.deep.equal([3, 6]);
  });

  it('TTG_DEVICE=host:::3 gives the host backend three streams; empty fields are left out', async () => {
    const r = await child({ TTG_DEVICE: 'host:::3' });
    expect(r, r.message).to.include({ ok: true, backend: 'host', devices: 1, streams: 3 });
    expect(r.result).to.deep.equal([3, 6]);
    const e = await child({ TTG_DEVICE: 'emulated:2::1' });
    expect(e, e.message).to.include({ ok: true, backend: 'emulated', devices: 2 });
    expect(e.capacity).to.have.length(2);
  });

  it('by default: cuda when a GPU is present, else host with one stream per core', async () => {
    const r = await child({ TTG_DEVICE: undefined });
    expect(r.ok, r.message).to.equal(true);
    if (r.info!.cuda_devices > 0) {
      expect(r.backend).to.equal('cuda');
    } else {
      expect(r).to.include({ backend: 'host', devices: 1, streams: availableParallelism() });
    }
    expect(r.result).to.deep.equal([3, 6]);
    expect(r.info!.blas_threads).to.equal(1);  // BLAS runs single-threaded per call
  });

  it('initialize options win over TTG_DEVICE', async () => {
    const r = await child({ TTG_DEVICE: 'emulated:3:1MiB' }, { backend: 'emulated', devices: 1 });
    expect(r).to.include({ ok: true, backend: 'emulated', devices: 1 });
    expect(r.capacity).to.deep.equal([2 ** 20]);
  });

  it('a malformed TTG_DEVICE fails initialize with E_INVALID_ARGUMENT naming the problem', async () => {
    expect(await child({ TTG_DEVICE: 'quantum:1' })).to.include({ ok: false, code: 'E_INVALID_ARGUMENT' });
    const r = await child({ TTG_DEVICE: 'emulated:1:8 parsecs' });
    expect(r).to.include({ ok: false, code: 'E_INVALID_ARGUMENT' });
    expect(r.message).to.include('8 parsecs');
    const five = await child({ TTG_DEVICE: 'host:1:1MiB:2:9' });
    expect(five).to.include({ ok: false, code: 'E_INVALID_ARGUMENT' });
    expect(five.message).to.include('at most four fields');
    expect(await child({ TTG_DEVICE: 'host:::0' })).to.include({ ok: false, code: 'E_INVALID_ARGUMENT' });
    // a unit named like a member of Object.prototype is no unit (it used to read that member)
    const proto = await child({ TTG_DEVICE: 'emulated:1:1constructor' });
    expect(proto).to.include({ ok: false, code: 'E_INVALID_ARGUMENT' });
    expect(proto.message).to.include("is not a byte size like 8MiB or 1048576: '1constructor'");
  });

  it('every host kernel and flag combination of the addon matches the reference (the check used on the no-BLAS build)', async () => {
    const out = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, [join(here, '..', 'fixtures', 'device_kernels_check.js'), join(here, '..', '..', '..', 'build', 'Release', 'ttg_native.node')],
        { timeout: 20000 }, (err, stdout, stderr) => (err === null ? resolve(stdout) : reject(new Error(`${stdout}${stderr}`))));
    });
    expect(out).to.include('mismatches 0');
  });

  it('the CUDA backend is compiled whenever nvcc exists and loads with zero devices without a GPU', async () => {
    const r = await child({ TTG_DEVICE: 'host' });
    const info = r.info!;
    if (onPath('nvcc')) expect(info.cuda_compiled, 'nvcc is on PATH, so the addon must contain CUDA code').to.equal(true);
    if (info.cuda_devices === 0) {
      expect(info.cuda_error).to.not.equal('');
      const c = await child({ TTG_DEVICE: 'cuda' });
      expect(c).to.include({ ok: false, code: 'E_INVALID_ARGUMENT' });
      expect(c.message).to.include("backend 'cuda'");
    }
  });
});
