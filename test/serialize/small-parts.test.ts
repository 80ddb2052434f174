import { expect } from 'chai';

import { copyPartsFrom, stageParts } from '../../src/serialize/small-parts.js';

describe('small payload parts: staged copies', () => {
  it('stageParts copies mixed parts to aligned views, and copyPartsFrom restores them', () => {
    const parts = [Uint8Array.of(1, 2, 3), Float64Array.of(1.5, -2), Int32Array.of(7), new DataView(Uint16Array.of(9, 10).buffer)];
    const staged = stageParts(parts);
    expect(staged.map((v) => v.byteLength)).to.deep.equal([3, 16, 4, 4]);
    staged.forEach((v, i) => {
      expect(v.byteOffset % 8).to.equal(0);
      expect(v).to.not.equal(parts[i]);
      expect([...new Uint8Array(v.buffer, v.byteOffset, v.byteLength)]).to.deep.equal([...new Uint8Array(parts[i]!.buffer, parts[i]!.byteOffset, parts[i]!.byteLength)]);
    });
    // as the addon lays them out: one after the other, from an 8-byte boundary
    const wire = new Uint8Array(new ArrayBuffer(64), 8, 27);
    let o = 0;
    for (const v of staged) {
      wire.set(new Uint8Array(v.buffer, v.byteOffset, v.byteLength), o);
      o += v.byteLength;
    }
    const into = [new Uint8Array(3), new Float64Array(2), new Int32Array(1), new DataView(new ArrayBuffer(4))];
    copyPartsFrom(wire, into);
    expect([...into[0] as Uint8Array]).to.deep.equal([1, 2, 3]);
    expect([...into[1] as Float64Array]).to.deep.equal([1.5, -2]); // misaligned after 3 bytes: byte copy
    expect([...into[2] as Int32Array]).to.deep.equal([7]);
    expect((into[3] as DataView).getUint16(2, true)).to.equal(10);
  });

  it('the next stageParts call reuses the scratch memory (the addon copies before it returns)', () => {
    const a = stageParts([Float64Array.of(1)])[0] as Float64Array;
    stageParts([Float64Array.of(2)]);
    expect(a[0]).to.equal(2);
  });
});
