/**
 * The fixture kernels of the device suites (test/fixtures/kernels): built with cc, or on the cuda
 * backend with nvcc together with their CUDA functions, and declared for `ttg.device.kernels.load`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import type * as ttg from 'ttg';

import { backend } from './suite.js';
import { scratchDir } from '../../scratch-dir.js';

/** The package root. */
export const root = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * Builds the fixture library: with cc, or on the cuda backend with nvcc, together with the CUDA
 * functions of the same kernels (test_kernels_cuda.cu), which launch on the task's stream.
 */
export function build(): string {
  const lib = join(scratchDir('ttg-kernels-'), 'libtestkernels.so');
  const src = (f: string) => join(root, 'test', 'fixtures', 'kernels', f);
  const inc = `-I${join(root, 'native', 'include')}`;
  if (backend === 'cuda') execFileSync('nvcc', ['-shared', '-Xcompiler', '-fPIC', '-O2', inc, src('test_kernels.c'), src('test_kernels_cuda.cu'), '-o', lib]);
  else execFileSync('cc', ['-shared', '-fPIC', '-O2', inc, src('test_kernels.c'), '-o', lib]);
  return lib;
}

/** The kernels of the fixture, with their CUDA functions on the cuda backend. */
export const SPECS = {
  axpby: { host: 'axpby', buffers: ['in', 'inout'], scalars: 2 },
  describe: { host: 'describe', buffers: ['in', 'in', 'out'], scalars: 3 },
  increment: { host: 'increment', buffers: ['inout'] },
  on_main_thread: { host: 'on_main_thread', buffers: ['out'] },
  fail_with: { host: 'fail_with', buffers: [], scalars: 1 },
} as const satisfies Record<string, ttg.device.KernelSpec>;
const CUDA_NAMES: Partial<Record<keyof typeof SPECS, string>> = { axpby: 'axpby_cuda', describe: 'describe_cuda', increment: 'increment_cuda', fail_with: 'fail_with_cuda' };
export function specs(): typeof SPECS {
  if (backend !== 'cuda') return SPECS;
  return Object.fromEntries(Object.entries(SPECS).map(([k, v]) => [k, { ...v, cuda: CUDA_NAMES[k as keyof typeof SPECS] }])) as unknown as typeof SPECS;
}

/** nvcc is on the PATH. */
export const nvcc = (process.env['PATH'] ?? '').split(delimiter).some((d) => d !== '' && existsSync(join(d, 'nvcc')));
