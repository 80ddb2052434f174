/**
 * TTG_* variables: read in one place (src/base/settings.ts), and the addon's tuning parsed there.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { devicePollUs, hangTimeout, jsPollUs, nativeSettings } from '../../src/base/settings.js';

const repo = fileURLToPath(new URL('../../..', import.meta.url));

function sources(dir: string, ext: RegExp): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? sources(p, ext) : ext.test(f) ? [p] : [];
  });
}

/** Runs `f` with the given variables set (undefined: unset), then restores them. */
function withEnv<R>(vars: Record<string, string | undefined>, f: () => R): R {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const put = (v: Record<string, string | undefined>) => {
    for (const [k, x] of Object.entries(v)) {
      if (x === undefined) delete process.env[k];
      else process.env[k] = x;
    }
  };
  put(vars);
  try {
    return f();
  } finally {
    put(saved);
  }
}

const NATIVE_VARS = ['TTG_EAGER_BYTES', 'TTG_PRERECV', 'TTG_RECV_POOL_MB', 'TTG_COMM_IDLE_US', 'TTG_COMM_DEEP_IDLE_US',
  'TTG_COMM_COMPUTE_IDLE_US', 'TTG_COMM_SPIN_US', 'TTG_COMM_SPIN_BUSY_US', 'TTG_YIELD_ON_SEND', 'TTG_DEVICE_WAKE_DEPTH', 'TTG_POOL_SPIN_US',
  'TTG_FAULT_SEND', 'TTG_FAULT_RECV_DELAY_MS', 'TTG_FAULT_WAKE_DELAY_US', 'TTG_FAULT_CHUNK_THREAD', 'TTG_FAULT_DEVOP', 'TTG_FAULT_DEVDONE', 'TTG_DIRECT', 'TTG_MPI_CHUNK_BYTES', 'TTG_CUDA_LIBS'];
const unset = Object.fromEntries(NATIVE_VARS.map((k) => [k, undefined]));

describe('TTG_* settings', () => {
  it('only src/base/settings.ts reads a TTG_* variable; the addon reads none', () => {
    const ts = sources(join(repo, 'src'), /\.ts$/).filter((f) => !f.endsWith(join('base', 'settings.ts')));
    for (const f of ts) expect(readFileSync(f, 'utf8'), f).not.to.match(/process\.env(\[['"]|\.)TTG_/);
    for (const f of sources(join(repo, 'native', 'src'), /\.(cc|h|cu)$/)) expect(readFileSync(f, 'utf8'), f).not.to.match(/getenv\("TTG_/);
  });

  it('every variable settings.ts reads is in the table of docs/tuning.md', () => {
    const text = readFileSync(join(repo, 'src', 'base', 'settings.ts'), 'utf8');
    const names = new Set([...text.matchAll(/'(TTG_[A-Z_]+)'/g)].map((m) => m[1]!));
    const table = readFileSync(join(repo, 'docs', 'tuning.md'), 'utf8');
    expect(names.size).to.be.above(10);
    for (const n of names) expect(table, n).to.match(new RegExp(`^\\|[^\\n]*\`${n}\``, 'm'));
  });

  it('the addon tuning: defaults, values, bounds and "0" meaning off', () => {
    // cudaLibs depends on the machine (test/device/cuda-libs.test.ts); 'off' is the one fixed value
    const nativeSettingsHere = () => { const { cudaLibs, ...rest } = nativeSettings(); return rest; };
    expect(withEnv({ TTG_CUDA_LIBS: 'off' }, nativeSettings).cudaLibs).to.equal('off');
    expect(withEnv(unset, nativeSettingsHere)).to.deep.equal({
      eagerBytes: 65536, prerecv: true, recvPoolBytes: 256 * 2 ** 20, commIdleUs: 50, commDeepIdleUs: 500, commComputeIdleUs: 2000,
      commSpinUs: 1000, commSpinBusyUs: 20000, yieldOnSend: true, direct: true, deviceWakeDepth: 1, poolSpinUs: 20, faultSend: 0, faultRecvDelayMs: 0, faultWakeDelayUs: 0, faultChunkThread: 0,
      faultDevOp: 0, faultDevDone: 0, mpiChunkBytes: 2 ** 30,
    });
    const s = withEnv({ ...unset, TTG_EAGER_BYTES: '-5', TTG_PRERECV: '0', TTG_RECV_POOL_MB: '3', TTG_COMM_IDLE_US: '900',
      TTG_COMM_DEEP_IDLE_US: '100', TTG_COMM_SPIN_US: '0', TTG_COMM_SPIN_BUSY_US: '5', TTG_YIELD_ON_SEND: '0', TTG_DEVICE_WAKE_DEPTH: '4', TTG_POOL_SPIN_US: '0', TTG_FAULT_SEND: '3', TTG_FAULT_DEVOP: '7', TTG_FAULT_DEVDONE: '2',
      TTG_FAULT_RECV_DELAY_MS: '250', TTG_FAULT_WAKE_DELAY_US: '300', TTG_FAULT_CHUNK_THREAD: '2', TTG_DIRECT: '0', TTG_MPI_CHUNK_BYTES: '1000' }, nativeSettingsHere);
    expect(s).to.deep.equal({
      eagerBytes: 0, prerecv: false, recvPoolBytes: 3 * 2 ** 20, commIdleUs: 900, commDeepIdleUs: 900, commComputeIdleUs: 2000,
      commSpinUs: 0, commSpinBusyUs: 0, yieldOnSend: false, direct: false, deviceWakeDepth: 4, poolSpinUs: 0, faultSend: 3, faultRecvDelayMs: 250, faultWakeDelayUs: 300, faultChunkThread: 2,
      faultDevOp: 7, faultDevDone: 2, mpiChunkBytes: 1000,
    });
    expect(withEnv({ ...unset, TTG_EAGER_BYTES: '1e12', TTG_COMM_SPIN_US: 'abc', TTG_COMM_IDLE_US: '2000000' }, nativeSettingsHere))
      .to.include({ eagerBytes: 2 ** 28, commSpinUs: 1000, commIdleUs: 50 });
  });

  it('TTG_JS_POLL_US: microseconds, 50 by default, "0" meaning off', () => {
    expect(withEnv({ TTG_JS_POLL_US: undefined }, jsPollUs)).to.equal(50);
    expect(withEnv({ TTG_JS_POLL_US: '0' }, jsPollUs)).to.equal(0);
    expect(withEnv({ TTG_JS_POLL_US: '200' }, jsPollUs)).to.equal(200);
    expect(withEnv({ TTG_JS_POLL_US: '-3' }, jsPollUs)).to.equal(50);
  });

  it('TTG_DEVICE_POLL_US: microseconds, 20 by default, "0" meaning off', () => {
    expect(withEnv({ TTG_DEVICE_POLL_US: undefined }, devicePollUs)).to.equal(20);
    expect(withEnv({ TTG_DEVICE_POLL_US: '0' }, devicePollUs)).to.equal(0);
    expect(withEnv({ TTG_DEVICE_POLL_US: '75' }, devicePollUs)).to.equal(75);
    expect(withEnv({ TTG_DEVICE_POLL_US: 'x' }, devicePollUs)).to.equal(20);
  });

  it('TTG_HANG_TIMEOUT: a positive number of seconds, else 30', () => {
    expect(withEnv({ TTG_HANG_TIMEOUT: '2.5' }, hangTimeout)).to.equal(2.5);
    expect(withEnv({ TTG_HANG_TIMEOUT: '-1' }, hangTimeout)).to.equal(30);
    expect(withEnv({ TTG_HANG_TIMEOUT: undefined }, hangTimeout)).to.equal(30);
  });
});
