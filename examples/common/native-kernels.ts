/**
 * The examples' own native kernels: a C file beside the example, built on first use with the C
 * compiler the addon was built with, the way a program builds its kernels (native/include/ttg_kernel.h):
 *
 *   cc -shared -fPIC -O3 -ffp-contract=off -I <ttg>/native/include kernel.c -o libkernel.so
 *
 * Without floating-point contraction the C code computes with the same operations as the
 * examples' JavaScript references, so results compare bit for bit.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** Builds `examples/<example>/<file>` once per version of its source and flags; returns the library's path. */
export function buildKernelLibrary(example: string, file: string): string {
  const source = join(root, 'examples', example, file);
  const flags = ['-shared', '-fPIC', '-O3', '-ffp-contract=off', `-I${join(root, 'native', 'include')}`];
  const version = createHash('sha256').update(flags.join(' ')).update(readFileSync(source)).digest('hex').slice(0, 12);
  const dir = join(tmpdir(), `ttg-${example}-${version}`);
  const lib = join(dir, `lib${basename(file, '.c')}.so`);
  if (!existsSync(lib)) {
    mkdirSync(dir, { recursive: true });
    const tmp = `${lib}.${process.pid}`; // ranks may build at once: each renames its own
    execFileSync('cc', [...flags, source, '-o', tmp]);
    renameSync(tmp, lib);
  }
  return lib;
}
