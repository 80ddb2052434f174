/**
 * The cuda backend's failure contract, on a GPU, straight through the addon (scripts/gpu-check.sh
 * runs it; it needs nvcc): a launch CUDA refuses fails the completion of its op, and a kernel
 * that faults (a sticky error) fails the completions its stream owes, found by the poller, instead
 * of leaving them unreported; devStop then returns. Prints one JSON line: { ok, refused, faulted }.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { requireNative } from '../../src/native/addon.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const lib = join(mkdtempSync(join(tmpdir(), 'ttg-errors-')), 'liberrors.so');
execFileSync('nvcc', ['-shared', '-Xcompiler', '-fPIC', `-I${join(root, 'native', 'include')}`, join(root, 'test', 'fixtures', 'kernels', 'test_kernels_cuda.cu'), '-o', lib]);

const native = requireNative();
const reports = new Map<number, string | undefined>();
let wake: () => void = () => {};
native.devStart('cuda', 1, 1, (ids, errors) => {
  ids.forEach((id, i) => reports.set(id, errors?.[i]));
  wake();
});

/** The report of notify id `id`, or 'timeout' after `ms`. */
async function reportOf(id: number, ms: number): Promise<string | undefined> {
  const until = Date.now() + ms;
  while (!reports.has(id) && Date.now() < until) await new Promise<void>((r) => { wake = r; setTimeout(r, 50); });
  return reports.has(id) ? reports.get(id) : 'timeout';
}

const none = new Float64Array(0);
const bad = native.devLoadKernel(lib, 'bad_launch_cuda');
const trap = native.devLoadKernel(lib, 'trap_cuda');
// A refused launch: its own completion fails; a later marker on the stream still completes.
native.devCall(0, bad, [], none, none, 1);
native.devOp(0, 0, '', 0, 0, 0, 0, 0, null, 0, null, 0, null, 0, null, 0, 2);
const refused = await reportOf(1, 5000);
const after = await reportOf(2, 5000);
// A faulting kernel without a notify id: the marker after it must fail (by the poller), not hang.
native.devCall(0, trap, [], none, none, 0);
native.devOp(0, 0, '', 0, 0, 0, 0, 0, null, 0, null, 0, null, 0, null, 0, 3);
const faulted = await reportOf(3, 10000);
native.devStop();
const ok = typeof refused === 'string' && refused !== 'timeout' && after === undefined && typeof faulted === 'string' && faulted !== 'timeout';
console.log(JSON.stringify({ ok, refused: refused ?? null, after_refused: after ?? null, faulted: faulted ?? null }));
process.exitCode = ok ? 0 : 1;
