/**
 * Runs the device suites (./suites), each in its own process on one device configuration, as C++
 * TTG builds one test per backend: the device layer belongs to the process and `initialize`
 * configures it once, from `TTG_DEVICE` here. A run passes when its mocha reports no failure, no
 * pending test and at least one pass.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { loadNative } from '../../src/native/addon.js';

interface Run {
  suite: string;
  /** TTG_DEVICE of the run: backend:devices:memory:streams. */
  device: string;
  /** Only the tests whose titles match (mocha --grep). */
  grep?: string;
  /** More environment of the run. */
  env?: Record<string, string>;
}

const RUNS: Run[] = [
  { suite: 'device', device: 'host:::2' },
  { suite: 'device', device: 'host:::1', grep: 'one after the other on one' },
  { suite: 'device', device: 'emulated:2:4MiB' },
  { suite: 'coherence', device: 'host:::2' },
  { suite: 'coherence', device: 'emulated:2::2' },
  { suite: 'forms', device: 'host:::2' },
  { suite: 'forms', device: 'emulated:2:256KiB:2' },
  { suite: 'memory', device: 'emulated:2:256KiB' },
  { suite: 'pool', device: 'emulated:2:256KiB:2' },
  { suite: 'pool', device: 'emulated:1:256KiB:2' },
  { suite: 'values', device: 'emulated:2::2' },
  { suite: 'values', device: 'emulated:1::2' },
  { suite: 'user-kernels', device: 'host:::2' },
  { suite: 'user-kernels', device: 'emulated:2:1MiB:2' },
  { suite: 'hostile', device: 'emulated:2:512KiB:2' },
  { suite: 'hostile', device: 'host:::2' },
  { suite: 'hostile-more', device: 'emulated:2:512KiB:2' },
  { suite: 'hostile-more', device: 'host:::2' },
  { suite: 'op-packing', device: 'host:::2' },
  { suite: 'op-packing', device: 'emulated:2:512KiB:2' },
  { suite: 'stress', device: 'emulated:2:32KiB:2' },
  { suite: 'stress', device: 'emulated:2:32KiB:2', env: { TTG_STRESS_HOST: '2' } },
  { suite: 'stress', device: 'host:::2' },
  { suite: 'fault-stress', device: 'emulated:2:48KiB:2' },
  { suite: 'fault-stress', device: 'host:::2' },
  { suite: 'large-buffers', device: 'emulated:1:64MiB:2' },
];

/**
 * The same suites on one CUDA device, where there is one (scripts/gpu-check.sh runs them with
 * `--grep cuda`): tests of copies on two devices are left out with one.
 */
const CUDA_RUNS: Run[] = [
  { suite: 'device', device: 'cuda:1' },
  { suite: 'coherence', device: 'cuda:1::2' },
  { suite: 'forms', device: 'cuda:1:256KiB:2' },
  { suite: 'memory', device: 'cuda:1:256KiB' },
  { suite: 'pool', device: 'cuda:1:256KiB:2' },
  { suite: 'values', device: 'cuda:1::2' },
  { suite: 'user-kernels', device: 'cuda:1:1MiB:2' },
  { suite: 'hostile', device: 'cuda:1:512KiB:2' },
  { suite: 'hostile-more', device: 'cuda:1:512KiB:2' },
  { suite: 'op-packing', device: 'cuda:1:512KiB:2' },
  { suite: 'stress', device: 'cuda:1:32KiB:2' },
  { suite: 'fault-stress', device: 'cuda:1:48KiB:2' },
  { suite: 'large-buffers', device: 'cuda:1:64MiB:2' },
];
if ((loadNative()?.devInfo().cuda_devices ?? 0) > 0) RUNS.push(...CUDA_RUNS);

const MOCHA = createRequire(import.meta.url).resolve('mocha/bin/mocha.js');

interface Report {
  stats: { passes: number; failures: number; pending: number };
  failures: Array<{ fullTitle: string; err: { message?: string; stack?: string } }>;
}

/** Runs one suite under mocha in a child process; resolves its JSON report and its output. */
function runSuite(run: Run): Promise<{ code: number | null; report?: Report; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'ttg-suite-'));
  const out = join(dir, 'report.json');
  const file = fileURLToPath(new URL(`./suites/${run.suite}.js`, import.meta.url));
  const args = [MOCHA, '--no-config', '--timeout', '60000', '--reporter', 'json', '--reporter-option', `output=${out}`, file];
  if (run.grep !== undefined) args.push('--grep', run.grep);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...run.env, TTG_DEVICE: run.device } });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('close', (code) => {
      let report: Report | undefined;
      try {
        report = JSON.parse(readFileSync(out, 'utf8')) as Report;
      } catch {
        report = undefined;
      }
      rmSync(dir, { recursive: true, force: true });
      resolve({ code, report, output });
    });
  });
}

describe('device suites, one device configuration per process', function () {
  this.timeout(240_000);

  for (const run of RUNS) {
    const env = Object.entries(run.env ?? {}).map(([k, v]) => ` ${k}=${v}`).join('');
    it(`${run.suite} with TTG_DEVICE=${run.device}${env}${run.grep === undefined ? '' : ` (${run.grep})`}`, async () => {
      const { code, report, output } = await runSuite(run);
      expect(report, `no report from the suite:\n${output}`).to.not.equal(undefined);
      const failed = report!.failures.map((f) => `${f.fullTitle}\n${f.err.stack ?? f.err.message ?? ''}`).join('\n\n');
      expect(report!.stats.failures, `failed:\n${failed}\n${output}`).to.equal(0);
      expect(report!.stats.pending, 'pending tests').to.equal(0);
      expect(report!.stats.passes, 'tests that ran').to.be.greaterThan(0);
      expect(code, output).to.equal(0);
    });
  }
});
