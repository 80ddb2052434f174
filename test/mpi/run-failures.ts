/**
 * Fences that fail without a body throwing, for the tests that look for them in the HTML report
 * and on the live dashboard (test/mpi/run-failures.test.ts). `argv[2]` picks the failure:
 *
 *   hang        the last rank's async body never settles: with a small TTG_HANG_TIMEOUT the fence
 *               rejects with E_HANG on every rank
 *   incomplete  a task misses an input at a strict fence: E_INCOMPLETE on every rank
 *   collective  rank 0 fences while the others call a barrier: E_COLLECTIVE (2 ranks or more)
 *
 * Each rank prints `RESULT {"rank","code"}` (the code its fence rejected with). With `WAIT_FOR`
 * set, every rank then waits until that file exists (the test has seen the dashboard) before
 * `finalize()`. After a hang under mpirun the job ends with an abort once a rank exits (as
 * documented): with `RANK0_FIRST` set, rank 0 finalizes (writing the report) and then creates that
 * file, which the other ranks wait for before they finalize and exit.
 */
import { existsSync, writeFileSync } from 'node:fs';

import * as ttg from 'ttg';

const mode = process.argv[2] ?? 'hang';
const world = await ttg.initialize();
const { rank, size } = world;

async function failure(): Promise<unknown> {
  if (mode === 'hang') {
    const stuck = ttg.make_tt(async (_k: number, _go: void) => {
      if (rank === size - 1) await new Promise(() => {});
    }, [new ttg.Edge<number, void>('stuck')], [], { name: 'STUCK' });
    stuck.set_procmap(() => rank);
    ttg.make_graph_executable(stuck);
    stuck.invoke(rank);
    return ttg.fence({ quiet: true });
  }
  if (mode === 'incomplete') {
    const a = new ttg.Edge<number, number>('a');
    const b = new ttg.Edge<number, number>('b');
    const join = ttg.make_tt((_k: number, _x: number, _y: number) => {}, [a, b], [], { name: 'JOIN' });
    join.set_procmap(() => 0);
    ttg.make_graph_executable(join);
    if (rank === 0) join.in(0).send(1, 1);
    return ttg.fence({ strict: true, quiet: true });
  }
  if (mode === 'collective') return rank === 0 ? ttg.fence({ quiet: true }) : world.barrier();
  throw new Error(`unknown mode ${mode}`);
}

let code = '';
try {
  await failure();
} catch (e) {
  code = (e as ttg.TtgError).code ?? String(e);
}
console.log(`RESULT ${JSON.stringify({ rank, code })}`);
/** Waits until `file` exists (30 s at most). */
async function waitFor(file: string): Promise<void> {
  const until = performance.now() + 30_000;
  while (!existsSync(file) && performance.now() < until) await new Promise((r) => setTimeout(r, 50));
}

const wait = process.env['WAIT_FOR'];
if (wait !== undefined) await waitFor(wait);
const first = process.env['RANK0_FIRST'];
if (first !== undefined && rank !== 0) await waitFor(first);
await ttg.finalize();
if (first !== undefined && rank === 0) writeFileSync(first, 'done');
