/**
 * A build without MPI or BLAS runs, but one rank only or ~50x slower kernels: a user must not
 * find that out from a figure. `initialize()` prints one line on stderr saying what is missing
 * and how to get it.
 */
import { loadNative, nativeLoadError, type NativeInfo } from '../native/addon.js';

const HOW = 'run scripts/install-system-packages.sh as root, then npm run build:native';

/** The warning for an addon that lacks MPI or BLAS (or did not load), or undefined when it has both. */
export function buildWarning(info: Pick<NativeInfo, 'mpi' | 'blas'> | null, loadError?: string | null): string | undefined {
  if (info === null) return `ttg: the native addon did not load (${loadError ?? 'unknown'}): no MPI, no device kernels; ${HOW}`;
  const missing = [info.mpi ? undefined : 'MPI (one rank only)', info.blas ? undefined : 'BLAS (plain-loop kernels, far slower)']
    .filter((m) => m !== undefined);
  return missing.length === 0 ? undefined : `ttg: the native addon was built without ${missing.join(' and without ')}; ${HOW}`;
}

let warned = false;

/** Prints {@link buildWarning} for this process's addon to stderr, once. */
export function warnAboutBuild(): void {
  if (warned) return;
  warned = true;
  const native = loadNative();
  const text = buildWarning(native === null ? null : native.info(), nativeLoadError());
  if (text !== undefined) process.stderr.write(`${text}\n`);
}
