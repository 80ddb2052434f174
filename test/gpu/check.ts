/**
 * The GPU check's steps (scripts/gpu-check.sh; the bundle's run.sh starts this with its own Node,
 * from the unpacked bundle as the working directory): build the addon, then, if CUDA sees a
 * device, run the device suites on cuda, POTRF, bench:device against the dgemm ceilings, a
 * program's CUDA kernel, the failure contract, BSpMM, and the large POTRFs last. Each step is a
 * child process with its own time limit inside one overall budget; a failed or timed-out step is
 * recorded and the next one runs. Progress goes to stdout with timestamps; the last line is one
 * JSON summary. With `$OUT` set, summary.json, build.log and steps.log are written there.
 *
 * Usage: node dist/test/gpu/check.js   (TTG_GPU_CHECK_BUDGET_S: the budget, default 450 s,
 * counted from TTG_GPU_CHECK_T0, the epoch seconds run.sh started at)
 */
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

import { loadNative } from '../../src/native/addon.js';

interface Step {
  name: string;
  argv: string[];
  /** Seconds this step may take at most. */
  limit: number;
  /** Figures to keep from the step's output (its last JSON line by default). */
  figures?: (out: string) => Record<string, unknown>;
}

interface Result extends Record<string, unknown> {
  name: string;
  ok: boolean;
  seconds: number;
}

const t0 = Number(process.env['TTG_GPU_CHECK_T0'] ?? Date.now() / 1000) * 1000;
const deadline = t0 + Number(process.env['TTG_GPU_CHECK_BUDGET_S'] ?? 450) * 1000;
const out = process.env['OUT'];
const node = process.execPath;
const stamp = (): string => `[+${((Date.now() - t0) / 1000).toFixed(1).padStart(5)} s]`;
const say = (line: string): void => console.log(`${stamp()} ${line}`);
const log = (file: string, text: string): void => { if (out !== undefined && out !== '') appendFileSync(join(out, file), text); };

/** The last line of `text` that parses as a JSON object, or {}. */
function lastJson(text: string): Record<string, unknown> {
  for (const line of text.trim().split('\n').reverse()) {
    if (!line.startsWith('{')) continue;
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch { /* not JSON */ }
  }
  return {};
}

/** Runs one command with a time limit; its process group is killed when the limit passes. */
function run(argv: string[], limitS: number, file: string, env: NodeJS.ProcessEnv = process.env): Promise<{ code: number | null; timedOut: boolean; output: string }> {
  log(file, `\n===== ${argv.join(' ')} (limit ${limitS.toFixed(0)} s)\n`);
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const take = (d: Buffer): void => { output += d.toString(); log(file, d.toString()); };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* already gone */ }
    }, limitS * 1000);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, timedOut, output }); });
    child.on('error', (e) => { clearTimeout(timer); resolve({ code: -1, timedOut, output: output + String(e) }); });
  });
}

const tail = (text: string, lines: number): string => text.trim().split('\n').slice(-lines).map((l) => `    | ${l}`).join('\n');

function gpuInfo(): { gpu: string | null; cc: string | undefined } {
  try {
    const q = execFileSync('nvidia-smi', ['--query-gpu=name,driver_version,memory.total,compute_cap', '--format=csv,noheader'], { encoding: 'utf8', timeout: 20000 });
    const first = q.trim().split('\n')[0]!;
    return { gpu: q.trim().split('\n').join('; '), cc: first.split(',').pop()?.trim().replace('.', '') };
  } catch (e) {
    return { gpu: null, cc: undefined };
  }
}

const { gpu, cc } = gpuInfo();
say(`GPU: ${gpu ?? 'nvidia-smi gave nothing'}; node ${process.version}; ${availableParallelism()} cores`);
const results: Result[] = [];
let kernels: string | undefined;

// ---- build -----------------------------------------------------------------------------------
const cmakeJs = join('node_modules', 'cmake-js', 'bin', 'cmake-js');
const arch = cc !== undefined && /^\d+$/.test(cc) ? [`--CDCMAKE_CUDA_ARCHITECTURES=${cc}`] : [];
const b0 = Date.now();
say(`build: cmake-js configure + cmake --build (${arch.length > 0 ? `sm_${cc}` : 'default architectures'})`);
const configured = await run([node, cmakeJs, 'configure', '-d', 'native', '-O', 'build', '--CDCMAKE_BUILD_TYPE=Release', ...arch], 240, 'build.log');
const built = configured.code !== 0 ? configured
  : await run(['cmake', '--build', 'build', '--parallel', String(availableParallelism())], Math.max(30, (deadline - Date.now()) / 1000 - 60), 'build.log');
const components = configured.output.split('\n').filter((l) => /^-- +(MPI|BLAS|CUDA) +:/.test(l)).map((l) => l.replace(/^-- +/, '').trim());
for (const c of components) say(`  ${c}`);
results.push({ name: 'build', ok: built.code === 0, seconds: (Date.now() - b0) / 1000, components });
if (built.code !== 0) {
  say(`build: FAILED\n${tail(built.output, 30)}`);
  finish();
}
say(`build: ok in ${((Date.now() - b0) / 1000).toFixed(1)} s`);

const info = loadNative()?.devInfo();
if (info === undefined || info.cuda_devices === 0) {
  // One line, and success: a machine without a GPU has nothing to check.
  console.log(JSON.stringify({ ok: true, gpu: null, skipped: `no CUDA device here (${info?.cuda_error ?? 'the addon did not load'}): nothing checked`, build: results[0] }));
  process.exit(0);
}

// ---- steps, most valuable evidence first -----------------------------------------------------
const mocha = join('node_modules', 'mocha', 'bin', 'mocha.js');
const suites = (grep: string): string[] => [node, mocha, '--no-config', '--timeout', '200000', '--reporter', 'dot', 'dist/test/device/backends.test.js', '--grep', grep];
const potrf = (n: number, nb: number): Step => ({
  name: `potrf-${n}-${nb}`, argv: [node, 'dist/examples/potrf/main.js', '--backend', 'cuda', '--n', String(n), '--nb', String(nb), '--check', '--json'],
  limit: n > 8192 ? 150 : 90,
});
const large = potrf(32768, 1024);
const STEPS: Step[] = [
  { name: 'device-suites', argv: suites('^(?!.*user-kernels).*TTG_DEVICE=cuda'), limit: 300, figures: mochaCounts },
  potrf(8192, 512),
  potrf(8192, 1024),
  { name: 'bench-device', argv: [node, 'dist/bench/device.js', '--backend', 'cuda'], limit: 120 },
  { name: 'user-kernel', argv: suites('user-kernels with TTG_DEVICE=cuda'), limit: 90, figures: mochaCounts },
  { name: 'error-paths', argv: [node, 'dist/test/gpu/error-paths.js'], limit: 60 },
  { name: 'bspmm', argv: [node, 'dist/examples/bspmm/main.js', '--backend', 'cuda', '--check', '--json'], limit: 90 },
  large,
  potrf(32768, 512),
  // where the time of a large POTRF goes on the JS thread (the profile lands in $OUT/prof)
  ...(out !== undefined && out !== '' ? [{ ...large, name: `${large.name}-profile`, argv: [node, '--cpu-prof', '--cpu-prof-dir', join(out, 'prof'), ...large.argv.slice(1)] }] : []),
];

function mochaCounts(text: string): Record<string, unknown> {
  const passing = Number(/(\d+) passing/.exec(text)?.[1] ?? 0), failing = Number(/(\d+) failing/.exec(text)?.[1] ?? 0);
  return { ok: passing > 0 && failing === 0, passing, failing };  // a grep that matched nothing passes nothing
}

for (const step of STEPS) {
  const left = (deadline - Date.now()) / 1000;
  if (left < Math.min(step.limit, 30)) {
    say(`${step.name}: not started (${left.toFixed(0)} s of the budget left)`);
    results.push({ name: step.name, ok: false, seconds: 0, error: 'not started: out of time' });
    continue;
  }
  const s0 = Date.now();
  say(`${step.name}: ${step.argv.slice(1).join(' ')}`);
  const r = await run(step.argv, Math.min(step.limit, left), 'steps.log');
  const seconds = (Date.now() - s0) / 1000;
  if (kernels === undefined) {
    kernels = /ttg: cuda kernels: (.*)/.exec(r.output)?.[1];
    if (kernels !== undefined) say(`kernels: ${kernels}`);
  }
  const figures = (step.figures ?? lastJson)(r.output);
  const ok = r.code === 0 && !r.timedOut && figures['ok'] !== false;
  results.push({ name: step.name, ok, seconds: +seconds.toFixed(1), ...figures, ...(ok ? {} : { error: r.timedOut ? `timed out after ${seconds.toFixed(0)} s` : `exit ${String(r.code)}` }) });
  say(`${step.name}: ${ok ? 'ok' : 'FAILED'} in ${seconds.toFixed(1)} s ${JSON.stringify(figures)}`);
  if (!ok) console.log(tail(r.output, 15));
}
finish();

/** Prints (and writes) the summary and exits: 0 when every step passed. */
function finish(): never {
  const bench = results.find((r) => r.name === 'bench-device');
  const big = typeof bench?.['big_gflops'] === 'number' ? bench['big_gflops'] : undefined;
  const ratios: Record<string, number> = {};
  if (typeof bench?.['ratio'] === 'number') ratios['bench_device_vs_tile_ceiling'] = bench['ratio'];
  for (const r of results) {
    if (r.name.startsWith('potrf-') && typeof r['gflops'] === 'number' && big !== undefined) ratios[`${r.name}_vs_big_dgemm`] = +(r['gflops'] / big).toFixed(3);
    // against the vendor's own Cholesky of the same order, on one stream (bench:device measured it)
    if (r.name.startsWith('potrf-') && typeof r['gflops'] === 'number' && typeof bench?.['potrf_gflops'] === 'number' && r['n'] === bench['potrf_n']) {
      ratios[`${r.name}_vs_cusolver_potrf`] = +(r['gflops'] / bench['potrf_gflops']).toFixed(3);
    }
  }
  const summary = { ok: results.every((r) => r.ok), gpu, kernels: kernels ?? null, elapsed_s: +((Date.now() - t0) / 1000).toFixed(1), ratios, steps: results };
  if (out !== undefined && out !== '') writeFileSync(join(out, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  console.log(JSON.stringify(summary));
  process.exit(summary.ok ? 0 : 1);
}
