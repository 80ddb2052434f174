/**
 * V8 compiles typed-array code on the assumption that no ArrayBuffer in the process has ever been
 * detached, and throws all of that code away the first time one is. ttg detaches a moved payload's
 * buffer when its send leaves for another rank, so without this the first large send of a run
 * deoptimizes every hot function that touches a typed array at once (the message codec, the
 * transport, task bodies): measured in bench:pingpong, ~17 functions at the first 1 MiB send, and
 * their re-optimization lands thousands of tasks later, as compile jobs that take the rank's core.
 */

/**
 * Detaches one throw-away buffer, so that V8 never assumes otherwise; the MPI transport calls it
 * when it starts, before hot code runs. (A process that never detaches keeps V8's assumption:
 * bench:overhead's async chain ran ~10 ns per task slower without it.)
 */
export function retireDetachAssumption(): void {
  const scratch = new ArrayBuffer(8);
  structuredClone(scratch, { transfer: [scratch] });
}
