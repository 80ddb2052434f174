/**
 * V8 throws away optimized typed-array code the first time any ArrayBuffer is detached; the MPI
 * transport settles that at start (retireDetachAssumption), so the first moved payload of a run
 * deoptimizes nothing. Checked in child processes under --allow-natives-syntax.
 */
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

const child = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'detach_child.js');

function run(args: string[]): Promise<{ optimizedBefore: boolean; optimizedAfter: boolean; detached: boolean }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--allow-natives-syntax', child, ...args], { timeout: 20000 }, (err, stdout, stderr) => {
      if (err !== null) reject(new Error(`child failed: ${stderr}`));
      else resolve(JSON.parse(stdout.trim().split('\n').pop() ?? ''));
    });
  });
}

describe('V8 code that touches typed arrays', function () {
  this.timeout(30000);

  it('is thrown away the first time any ArrayBuffer is detached (what the transport prevents)', async () => {
    expect(await run([])).to.deep.equal({ optimizedBefore: true, optimizedAfter: false, detached: true });
  });

  it('survives a detach (a moved payload leaving) once retireDetachAssumption() ran', async () => {
    expect(await run(['retired'])).to.deep.equal({ optimizedBefore: true, optimizedAfter: true, detached: true });
  });
});
