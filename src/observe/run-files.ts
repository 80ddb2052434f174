/**
 * The files a run leaves on rank 0 at `finalize()`: the trace (TTG_TRACE) and the HTML report
 * (TTG_REPORT). They are written after MPI has ended, and a file that cannot be written (a
 * directory, a missing folder, no permission, a full disk) or rendered is a warning on stderr
 * naming the variable, the path and the error: the run's results are the program's, and a
 * failure here must not turn a finished job into an aborted one (docs/design/dashboard.md).
 */
import { statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

import { reportFile, traceFile } from '../base/settings.js';
import { renderReport } from './report.js';
import type { RankDigest } from './report-digest.js';
import { splitChunk, traceText } from './trace.js';

/** Says on stderr that `variable`'s file `path` was not written, and why. */
function warn(variable: string, path: string, why: unknown): void {
  const text = why instanceof Error ? why.message : String(why);
  console.warn(`ttg: ${variable}=${path} was not written (${text}); finalize() went on without it`);
}

/**
 * Why `path` cannot be a file to write, as far as a look at the disk can tell (it is a folder, or
 * its folder is missing or no folder); undefined when it looks fine. Permissions are left to the
 * write: root may write where the mode bits say no.
 */
function unwritable(path: string): string | undefined {
  try {
    if (statSync(path, { throwIfNoEntry: false })?.isDirectory() === true) return 'it is a directory';
    const dir = dirname(path);
    const st = statSync(dir, { throwIfNoEntry: false });
    if (st === undefined) return `its directory ${dir} does not exist`;
    if (!st.isDirectory()) return `${dir} is not a directory`;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
  return undefined;
}

/** At `initialize()` on rank 0: warns at once about a trace or report path that cannot be written, not after the run. */
export function checkRunFiles(): void {
  for (const [variable, path] of [['TTG_TRACE', traceFile()], ['TTG_REPORT', reportFile()]] as const) {
    if (path === undefined) continue;
    const why = unwritable(path);
    if (why !== undefined) console.warn(`ttg: ${variable}=${path} cannot be written (${why}); the run goes on, and finalize() will try again`);
  }
}

/** On rank 0, from every rank's chunk (Tracer.serialize): writes the trace and the report asked for; never throws. */
export function writeRunFiles(chunks: readonly string[]): void {
  const parts = chunks.map(splitChunk);
  const trace = traceFile();
  if (trace !== undefined) {
    try {
      writeFileSync(trace, traceText(parts.map((p) => p.events)));
    } catch (e) {
      warn('TTG_TRACE', trace, e);
    }
  }
  const report = reportFile();
  if (report !== undefined) {
    try {
      const digests = parts.filter((p) => p.digest !== '').map((p) => JSON.parse(p.digest) as RankDigest);
      writeFileSync(report, renderReport(digests));
    } catch (e) {
      warn('TTG_REPORT', report, e);
    }
  }
}
