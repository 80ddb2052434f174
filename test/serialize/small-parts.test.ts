import { expect } from 'chai';

import { copyPartsFrom, packedBytes, packParts, stageParts, unpackParts } from '../../src/serialize/small-parts.js';

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

  it('packParts places each part at a multiple of 8 bytes, and unpackParts restores every kind', () => {
    const big = new Float64Array(40).map((_, i) => i / 3); // off the heap
    const parts: ArrayBufferView[] = [Uint8Array.of(255), Float64Array.of(-0, NaN), Int16Array.of(-3, 4, 5), BigInt64Array.of(-(2n ** 62n)),
      Uint8Array.of(7, 8, 9), big.subarray(3, 7), new Float32Array(new ArrayBuffer(20), 4, 3).fill(1.25), Uint8ClampedArray.of(200)];
    const packed = packParts(parts);
    expect(packed.byteLength).to.equal(packedBytes(parts));
    // 1 byte, then padding to 8 for the doubles, ...
    expect(packed.byteLength).to.equal(1 + 7 + 16 + 6 + 2 + 8 + 3 + 5 + 32 + 12 + 4 + 1);
    const into = parts.map((p) => new (p.constructor as new (n: number) => ArrayBufferView)((p as Uint8Array).length));
    unpackParts(packed, into);
    into.forEach((v, i) => {
      expect(v.constructor).to.equal(parts[i]!.constructor);
      expect(Buffer.compare(Buffer.from(v.buffer, v.byteOffset, v.byteLength), Buffer.from(parts[i]!.buffer, parts[i]!.byteOffset, parts[i]!.byteLength))).to.equal(0);
    });
    expect(Object.is((into[1] as Float64Array)[0], -0)).to.equal(true);
    expect((into[3] as BigInt64Array)[0]).to.equal(-(2n ** 62n));
    // a payload that starts at an 8-byte offset of its buffer, as a receive into the pool gives it
    const shifted = new Uint8Array(new ArrayBuffer(packed.byteLength + 8), 8);
    shifted.set(packed);
    const again = parts.map((p) => new (p.constructor as new (n: number) => ArrayBufferView)((p as Uint8Array).length));
    unpackParts(shifted, again);
    expect([...(again[5] as Float64Array)]).to.deep.equal([...big.subarray(3, 7)]);
  });

  // issue 55, item 9: a split-metadata class may receive into arrays of other element types
  for (const n of [17, 18, 30]) {
    it(`${n} parts received into arrays of other element types but the same byte lengths arrive intact`, () => {
      const sent: ArrayBufferView[] = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? Uint8Array.of(i, i + 1, i + 2) : i % 3 === 1
        ? Float64Array.of(i + 0.5) : Int16Array.of(i, -i)));
      const into = sent.map((p) => new Uint8Array(p.byteLength));
      const packed = packParts(sent);
      expect(packed.byteLength, 'both sides compute the same length').to.equal(packedBytes(into));
      unpackParts(packed, into);
      into.forEach((v, i) => expect([...v], `part ${i}`).to.deep.equal([...new Uint8Array(sent[i]!.buffer, sent[i]!.byteOffset, sent[i]!.byteLength)]));
    });
  }
});
