/**
 * Errors that the program does not catch, under mpirun (run by test/exit-on-error.test.ts); the
 * last rank fails. Modes: `throw`: it throws after initialize; `fence`: a body throws there and no
 * rank catches fence()'s rejection; `reject`: it leaves a promise rejection unhandled; `handled`:
 * its own 'uncaughtException' listener takes a throw and the job ends cleanly; `exit`: it calls
 * process.exit(3). Prints `READY <rank>` once initialized and `DONE <rank>` if it finalizes.
 */
import * as ttg from 'ttg';

const mode = process.argv[2] ?? 'throw';
const { rank, size } = await ttg.initialize();
const last = rank === size - 1;
console.log(`READY ${rank}`);
if (last && mode === 'throw') throw new Error('boom-xyz');
if (last && mode === 'reject') void Promise.reject(new Error('rejected-xyz'));
if (last && mode === 'exit') process.exit(3);
if (last && mode === 'handled') {
  process.on('uncaughtException', (e) => console.log(`HANDLED ${rank} ${e.message}`));
  setTimeout(() => {
    throw new Error('handled-xyz');
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
}
if (mode === 'fence') {
  const go = new ttg.Edge<number, number>('go');
  const t = ttg.make_tt((k: number) => {
    if (last) throw new Error(`body-xyz at ${k}`);
  }, [go], [], { name: 'Thrower' });
  t.set_procmap(() => size - 1);
  ttg.make_graph_executable(t);
  if (rank === 0) t.invoke(7, 0);
}
await ttg.fence();
await ttg.finalize();
console.log(`DONE ${rank}`);
