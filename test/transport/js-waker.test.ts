/**
 * How the addon's wake-ups (native/src/js_waker.cc) hold Node's event loop: the comm thread holds
 * it open until keepAlive(false), and device ops with a pending completion hold it until that
 * completion reached JS. Each case runs in a child process, since it is about when a process exits.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { scratchDir } from '../scratch-dir.js';

const nativeModule = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), '../../src/native/addon.js')).href;
const dir = scratchDir('ttg-waker-');

interface Exit { code: number | null; stdout: string; aliveAfterMs: boolean }

/** Runs `body` (ESM, with `native` loaded) in a child; kills it if still running after `ms`. */
function runChild(name: string, body: string, ms: number): Promise<Exit> {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, `import { requireNative } from ${JSON.stringify(nativeModule)};\nconst native = requireNative();\n${body}\n`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    let killed = false;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, ms);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, aliveAfterMs: killed });
    });
  });
}

describe('addon wake-ups and the event loop', function () {
  this.timeout(20000);

  it('a started comm thread keeps the process alive (a rank waiting for messages does not exit)', async () => {
    const r = await runChild('comm-held', `native.start(() => {}); console.log('started');`, 1500);
    expect(r.stdout).to.contain('started');
    expect(r.aliveAfterMs).to.equal(true);
  });

  it('after keepAlive(false) the process exits by itself', async () => {
    const r = await runChild('comm-released', `native.start(() => {}); native.keepAlive(false); console.log('released');`, 8000);
    expect(r.aliveAfterMs).to.equal(false);
    expect(r.code).to.equal(0);
    expect(r.stdout).to.contain('released');
  });

  it('a device op awaiting its completion holds the loop until the completion reaches JS, then lets go', async () => {
    // a 600x600 dgemm takes milliseconds: without the hold, Node would exit before it completes
    const r = await runChild('device-held', `
      const n = 600, a = new Float64Array(n * n).fill(1), c = new Float64Array(n * n);
      // the raw addon call borrows the arrays' memory: the caller keeps them alive until the
      // completion, as the device layer does through its Buffers (else GC may free \`a\` mid-dgemm)
      native.devStart('pool', 1, 1, (ids) => console.log('done ' + [...ids].join(',') + ' c=' + c[0] + (a.length > 0 ? '' : '?')));
      native.devOp(0, 2, 'NN', n, n, n, 1, 0, a, n, a, n, c, n, null, 0, 7);
    `, 8000);
    expect(r.aliveAfterMs).to.equal(false);
    expect(r.code).to.equal(0);
    expect(r.stdout).to.contain('done 7 c=600');
  });

  it('an idle device runtime does not hold the loop', async () => {
    const r = await runChild('device-idle', `native.devStart('pool', 2, 1, () => {}); console.log('idle');`, 8000);
    expect(r.aliveAfterMs).to.equal(false);
    expect(r.code).to.equal(0);
  });
});
