/**
 * `initialize()` with a TTG_DASHBOARD it cannot use (test/mpi/dashboard.test.ts): prints
 * `RESULT {...}` with the error's code and message.
 */
import * as ttg from 'ttg';

try {
  await ttg.initialize();
  console.log(`RESULT ${JSON.stringify({ rank: 0, error: null })}`);
  await ttg.finalize();
} catch (e) {
  const err = e as ttg.TtgError;
  console.log(`RESULT ${JSON.stringify({ rank: 0, error: `${err.code}: ${err.message}` })}`);
}
