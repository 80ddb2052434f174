/**
 * Completions of many tiny device tasks on four streams, taken while the JS thread polls for them
 * and between its polls (TTG_DEVICE_POLL_US): none may be left without a wake-up of the event
 * loop. A lost one leaves a fence waiting forever, so the program runs in a child process with a
 * time limit.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const ROUNDS = 301;
const PER_ROUND = 400;
/** Every 8th task's buffer has this many doubles (its kernel outlasts a poll), the others 8. */
const LONG = 1 << 16;

describe('device completions and the event loop', function () {
  this.timeout(120_000);

  // TTG_FAULT_WAKE_DELAY_US: a worker's wake-up comes after JS's poll took its completions
  for (const delay of [0, 300]) {
    it(`${ROUNDS} rounds of ${PER_ROUND} tiny device tasks on 4 streams all complete${delay > 0 ? `, wake-ups ${delay} µs late` : ''}`, async () => {
      const out = await new Promise<string>((resolve, reject) => {
        execFile(process.execPath, [join(here, '..', 'fixtures', 'device_wake_child.js'), String(ROUNDS), String(PER_ROUND), String(LONG)],
          { env: { ...process.env, TTG_DEVICE: 'host:::4', TTG_FAULT_WAKE_DELAY_US: String(delay) }, timeout: 90_000, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
            if (err !== null) reject(new Error(`child failed or hung (${String(err.code ?? err.signal)}): ${stderr}`));
            else resolve(stdout);
          });
      });
      const r = JSON.parse(out.trim().split('\n').pop()!) as { ran: number; sum: number };
      expect(r.ran).to.equal(ROUNDS * PER_ROUND);
      let elements = 0;
      for (let k = 0; k < PER_ROUND; k++) elements += k % 8 === 7 ? LONG : 8;
      // each kernel flips its buffer's sign, and each buffer had one kernel per round
      expect(r.sum).to.equal(elements * (ROUNDS % 2 === 0 ? 1 : -1));
    });
  }
});
