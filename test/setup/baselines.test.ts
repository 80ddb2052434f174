import { createRequire } from 'node:module';

import { expect } from 'chai';

import { baselines, rawPingpong } from '../../bench/lib/baselines.js';
import { builtAddonPath, requireNative } from '../../src/native/addon.js';

/** Fletcher-style sums (mod 2^32) over 32-bit little-endian words, as bench:pingpong documents them. */
function reference(bytes: Uint8Array): number {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let s1 = 0;
  let s2 = 0;
  for (let i = 0; i + 4 <= bytes.length; i += 4) {
    s1 = (s1 + dv.getInt32(i, true)) | 0;
    s2 = (s2 + s1) | 0;
  }
  return (s2 >>> 0) * 2 ** 32 + (s1 >>> 0);
}

describe('benchmark baselines (ttg_bench.node, apart from the library addon)', () => {
  it('the library addon carries no baseline', () => {
    const addon = requireNative() as unknown as Record<string, unknown>;
    for (const name of ['pingpong', 'busy', 'devPeak', 'lapackDpotrf', 'checksum', 'irregularJob']) expect(addon[name], name).to.equal(undefined);
  });

  it('checksum() is the Fletcher-style word sum bench:pingpong documents', () => {
    const { checksum } = baselines();
    const a = new Float64Array(40_001).map((_, i) => Math.sin(i) * 1e6);
    expect(checksum(a)).to.equal(reference(new Uint8Array(a.buffer)));
    // a view's own bytes only; a tail shorter than a word is not summed
    const view = new Uint8Array(a.buffer, 12, 4099);
    expect(checksum(view)).to.equal(reference(view));
    expect(checksum(new DataView(a.buffer, 8, 800))).to.equal(reference(new Uint8Array(a.buffer, 8, 800)));
    const before = checksum(a);
    a[20_000] = a[20_000]! + 1;
    expect(checksum(a)).to.not.equal(before);
    expect(() => checksum([1, 2] as unknown as ArrayBufferView)).to.throw(TypeError, /ArrayBufferView/);
  });

  it('lapackDpotrf factors in place (A = L Lᵀ) and reports a matrix that is not positive definite', () => {
    const n = 5;
    const a = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) a[i + j * n] = i === j ? n + 1 : 1 / (1 + i + j);
    const orig = a.slice();
    expect(baselines().lapackDpotrf(a, n, 1)).to.be.at.least(0);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j <= i; j++) {
        let s = 0;
        for (let k = 0; k <= j; k++) s += a[i + k * n]! * a[j + k * n]!;
        expect(s).to.be.closeTo(orig[i + j * n]!, 1e-12);
      }
    }
    expect(() => baselines().lapackDpotrf(Float64Array.of(1, 2, 2, 1), 2, 1)).to.throw(/LAPACKE_dpotrf info 2/);
    expect(() => baselines().lapackDpotrf(new Float64Array(3), 2, 1)).to.throw(RangeError, /n\*n elements/);
  });

  it('devPeak measures the tile kernel; busy spins at least as long as asked', () => {
    expect(baselines().devPeak(32, 4, 2)).to.be.greaterThan(0);
    expect(() => baselines().devPeak(0, 1, 1)).to.throw(RangeError);
    const t0 = performance.now();
    baselines().busy(3e6);
    expect(performance.now() - t0).to.be.at.least(3);
  });

  it('attach takes ttg_native seams only; commJob takes a job only, and needs MPI', async () => {
    const raw = createRequire(import.meta.url)(builtAddonPath('ttg_bench')) as { attach(x: unknown): void };
    expect(() => raw.attach({})).to.throw(TypeError, /External/);
    expect(() => raw.attach(baselines().pingpongJob(1, 8, 1, false))).to.throw(TypeError, /not ttg_native's seams/);
    raw.attach(requireNative().seams());
    const native = requireNative();
    native.start(() => {});
    try {
      expect(() => native.commJob({})).to.throw(TypeError, /TtgCommJob/);
      const err = await rawPingpong(1, 8, 1, false).then(() => null, (e: Error) => e.message);
      expect(err).to.match(/commJob needs MPI/);
    } finally {
      native.finalize();
    }
  });
});
