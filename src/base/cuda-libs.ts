/**
 * Where cuBLAS and cuSOLVER may be on this machine, for the cuda backend to load at run time
 * (native/src/cuda_vendor.cu tries these directories in order, then the dynamic loader's own
 * search): the directories of `TTG_CUDA_LIBS`, the CUDA toolkit's `lib64`, and the `nvidia/<pkg>/lib`
 * directories that pip wheels (`nvidia-cublas`, `nvidia-cusolver`, which PyTorch and CuPy install)
 * put into Python environments. Only directories that exist are listed; nothing is loaded here.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** What this search reads of the environment (settings.ts reads it and passes it in). */
export interface CudaLibsEnv {
  /** `TTG_CUDA_LIBS`. */
  libs?: string | undefined;
  CUDA_HOME?: string | undefined;
  CUDA_PATH?: string | undefined;
  VIRTUAL_ENV?: string | undefined;
  CONDA_PREFIX?: string | undefined;
  HOME?: string | undefined;
}

function subdirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory() || d.isSymbolicLink()).map((d) => join(dir, d.name));
  } catch {
    return [];
  }
}

/** `prefix/lib/python3.X/{site,dist}-packages/nvidia/* /lib` of a Python installation prefix. */
function wheelDirs(prefix: string): string[] {
  const out: string[] = [];
  for (const py of subdirs(join(prefix, 'lib')).filter((d) => /\/python3[^/]*$/.test(d))) {
    for (const pk of ['site-packages', 'dist-packages']) {
      for (const d of subdirs(join(py, pk, 'nvidia'))) if (existsSync(join(d, 'lib'))) out.push(join(d, 'lib'));
    }
  }
  return out;
}

/**
 * The directories to search, ':'-joined; `off` when `TTG_CUDA_LIBS=off` (our kernels only).
 * Python environments are looked for where they usually live: the active virtualenv or conda
 * prefix, the user's and the system's site-packages, and `/opt/<name>` (with its `.venv`/`venv`).
 */
export function cudaLibDirs(env: CudaLibsEnv): string {
  if (env.libs?.trim() === 'off') return 'off';
  const dirs = (env.libs ?? '').split(':').filter((d) => d !== '');
  for (const root of [env.CUDA_HOME, env.CUDA_PATH, '/usr/local/cuda']) {
    if (root !== undefined && root !== '') dirs.push(join(root, 'lib64'));
  }
  const prefixes = [env.VIRTUAL_ENV, env.CONDA_PREFIX, env.HOME === undefined ? undefined : join(env.HOME, '.local'), '/usr/local', '/usr', '/opt/conda'];
  for (const opt of subdirs('/opt')) prefixes.push(opt, join(opt, '.venv'), join(opt, 'venv'));
  for (const p of prefixes) if (p !== undefined && p !== '') dirs.push(...wheelDirs(p));
  return [...new Set(dirs)].filter((d) => existsSync(d)).join(':');
}
