/**
 * The check's reference run: every rank's program in one process, in lockstep, the halos copied
 * directly between the blocks and each dot product summed in rank order (as the keyed all-reduce
 * folds one partial per rank). The task graph must give the same bits.
 */
import { neighbours, pack, unpack } from './halo.js';
import type { Program } from './solver.js';
import type { Vec } from './vectors.js';

/** Runs one program per rank to the end; returns each rank's result. */
export function simulate<T>(programs: Array<Program<T>>): T[] {
  const size = programs.length;
  let input: number | undefined;
  const results: T[] = new Array<T>(size);
  for (;;) {
    const steps = programs.map((p) => p.next(input));
    if (steps.every((s) => s.done === true)) {
      steps.forEach((s, r) => (results[r] = s.value as T));
      return results;
    }
    if (steps.some((s) => s.done === true)) throw new Error('the ranks\' programs ended at different steps');
    const reqs = steps.map((s) => s.value as Exclude<typeof s.value, T>);
    if ('dot' in reqs[0]!) {
      input = (reqs as Array<{ dot: number }>).map((q) => q.dot).reduce((a, b) => a + b);
    } else {
      input = undefined;
      const vecs = (reqs as Array<{ halo: Vec }>).map((q) => q.halo);
      const pieces = vecs.map((v) => neighbours(v.g).map(([code, to]) => [code, to, pack(v, code)] as const));
      pieces.forEach((list) => {
        for (const [code, to, piece] of list) unpack(vecs[to]!, 26 - code, piece);
      });
    }
  }
}
