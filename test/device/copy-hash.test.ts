/**
 * Hashes taken off the JS thread (issue 57): a copy op asked for one writes hash64 of the bytes it
 * moved, and hash64Async gives hash64's value from a worker. In a child process, since it starts
 * the addon's device runtime by hand.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { scratchDir } from '../scratch-dir.js';

const nativeModule = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), '../../src/native/addon.js')).href;

const CHILD = `
import { requireNative } from ${JSON.stringify(nativeModule)};
const native = requireNative();
const MiB = 1 << 20;
const waiting = new Map();
let next = 1;
native.devStart('pool', 2, 1, (ids, errors) => {
  for (let i = 0; i < ids.length; i++) {
    const f = waiting.get(ids[i]);
    waiting.delete(ids[i]);
    f(errors?.[i]);
  }
});
const copy = (stream, dir, dst, src, bytes, hash) => new Promise((resolve, reject) => {
  const id = next++;
  waiting.set(id, (e) => (e === undefined ? resolve() : reject(new Error(e))));
  native.devOp(stream, 1, dir, 0, 0, 0, 0, 0, dst, 0, src, 0, hash, 0, null, bytes, id);
});
const out = [];
const pool = new Uint8Array(3 * MiB + 64);
for (let i = 0; i < pool.length; i++) pool[i] = (i * 2654435761) >>> 24;
for (const n of [1, 7, 4096, MiB - 1, MiB, MiB + 1, 3 * MiB + 5]) {
  for (const at of [0, 3]) {
    const host = pool.subarray(at, at + n);
    const want = native.hash64(host);
    const h = native.devAlloc(0, n);
    const into = new BigUint64Array(1), back = new BigUint64Array(1);
    await copy(n % 2, at === 0 ? 'H' : 'Hw', h, host, n, into);   // 'w': staged by a worker on CUDA, the same on the pool
    const home = new Uint8Array(n + 8).subarray(5, 5 + n);
    await copy(1 - (n % 2), 'D', home, h, n, back);
    native.devFree(h);
    let same = true;
    for (let i = 0; i < n; i += 997) if (home[i] !== host[i]) same = false;
    if (home[n - 1] !== host[n - 1]) same = false;
    // several hashes at once on workers, of views that start anywhere in their buffer
    const later = await Promise.all([native.hash64Async(host), native.hash64Async(home), native.hash64Async(pool.subarray(at + 1, at + 1 + n))]);
    out.push({ n, at, same, into: into[0] === want, back: back[0] === want, async: later[0] === want && later[1] === want,
      other: later[2] === native.hash64(pool.subarray(at + 1, at + 1 + n)) && later[2] !== want });
  }
}
// a copy without a slot writes none, and a zero-byte copy with one gives the hash of nothing
const none = new BigUint64Array([7n]);
const h0 = native.devAlloc(0, 8);
await copy(0, 'H', h0, new Uint8Array(8), 8, null);
await copy(0, 'H', h0, new Uint8Array(0), 0, none);
native.devFree(h0);
out.push({ empty: none[0] === native.hash64(new Uint8Array(0)) });
let threw = '';
try { native.hash64Async([1, 2]); } catch (e) { threw = String(e.message); }
out.push({ threw });
// a program's kernel call is built by devCall only: devOp and devOps refuse its kind, whatever the operands
const refused = [];
for (const f of [() => native.devOp(0, 9, '', 0, 0, 0, 0, 0, pool, 0, null, 0, null, 0, null, 0, 0),
                 () => native.devOps(new Float64Array([0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), [], 0, 1)]) {
  try { f(); refused.push('ran'); } catch (e) { refused.push(String(e.message)); }
}
out.push({ refused });
native.devStop();
console.log(JSON.stringify(out));
`;

describe('hashes off the JS thread (native)', function () {
  this.timeout(60000);

  it('a copy asked for a hash writes hash64 of the bytes it moved, both ways, any size; hash64Async agrees with hash64; devOp(s) refuse a program kernel\'s kind', () => {
    const dir = scratchDir('ttg-copy-hash-');
    const file = join(dir, 'child.mjs');
    writeFileSync(file, CHILD);
    const r = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 50000 });
    expect(r.status, r.stderr).to.equal(0);
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as Array<Record<string, unknown>>;
    const refused = out.pop()!;
    const threw = out.pop()!;
    const empty = out.pop()!;
    expect(out).to.have.length(14);
    for (const row of out) expect(row, JSON.stringify(row)).to.include({ same: true, into: true, back: true, async: true, other: true });
    expect(empty).to.deep.equal({ empty: true });
    expect(threw['threw']).to.match(/hash64Async must be a TypedArray/);
    expect(refused['refused']).to.have.length(2);
    for (const m of refused['refused'] as string[]) expect(m).to.match(/bad op kind/);
  });
});
