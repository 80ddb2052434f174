/**
 * The fixed headers of the commonest remote messages (one typed array or one number to one integer
 * key, a small array inside the header; a number or nothing to an integer or a tuple of up to
 * four): what takes them, what falls back to msgpack, and that both kinds of header decode to the
 * same message.
 */
import { expect } from 'chai';

import { decode, encode } from '../../src/serialize/codec.js';
import { decodeInput, encodeInput, INLINE_MAX_BYTES, readSmallInput, type SmallInput } from '../../src/transport/input-header.js';
import { TYPED } from '../../src/serialize/typed-arrays.js';
import { Wire, type WireMessage } from '../../src/ttg/common/wire.js';

const input = (key: unknown, value: unknown, ttId = 7, terminal = 1): WireMessage => [Wire.Input, [[ttId, terminal, [key]]], value];

describe('fixed input header', () => {
  it('carries one typed array above the inline limit to one integer key in 24 bytes, the array as its one raw part', () => {
    const a = new Float64Array(INLINE_MAX_BYTES / 8 + 1).fill(2.5);
    const enc = encodeInput(input(123456789, a, 4_000_000_000, 65535))!;
    expect(enc.bytes.length).to.equal(24);
    expect(enc.bytes[0]).to.equal(0xc1);
    expect(enc.parts).to.deep.equal([a]);
    expect(enc.plain).to.equal(true);
    const dec = decodeInput(enc.bytes, undefined)!;
    expect(dec.msg[0]).to.equal(Wire.Input);
    expect(dec.msg[1]).to.deep.equal([[4_000_000_000, 65535, [123456789]]]);
    const got = dec.msg[2] as Float64Array;
    expect(got).to.be.instanceOf(Float64Array).with.property('length', a.length);
    expect(dec.parts).to.deep.equal([got]);
  });

  it('carries a typed array of up to INLINE_MAX_BYTES inside a small header: every class, odd lengths, every key shape, every bit intact, zero padding', () => {
    const into: SmallInput = { ttId: 0, terminal: 0, key: 0, value: 0, phase: 0 };
    const keys: unknown[] = [-99, [0], [1, -2], [3, 4, 5], [-(2 ** 53) + 1, 0, 9, 2 ** 40]];
    const bits = new Uint8Array(INLINE_MAX_BYTES);
    for (let i = 0; i < bits.length; i++) bits[i] = (i * 151 + 7) & 0xff;
    for (const ctor of TYPED) {
      const per = ctor.BYTES_PER_ELEMENT;
      for (const n of [1, 3, 5, INLINE_MAX_BYTES / per - 1, INLINE_MAX_BYTES / per]) {
        // raw bytes, so NaN payloads, -0 and every BigInt pattern travel as they are
        const a = new ctor(bits.slice(0, n * per).buffer, 0, n);
        const key = keys[(n + ctor.BYTES_PER_ELEMENT) % keys.length]!;
        const enc = encodeInput(input(key, a, 4_000_000_000, 65535))!;
        const name = `${ctor.name}(${n}) to ${JSON.stringify(key)}`;
        const fixed = 16 + 8 * (Array.isArray(key) ? key.length : 1);
        expect(enc.parts, name).to.deep.equal([]);
        expect(enc.bytes.length, name).to.equal(fixed + Math.ceil((n * per) / 8) * 8);
        expect(enc.bytes.length, name).to.be.at.most(1024);
        expect(Array.from(enc.bytes.subarray(fixed + n * per)).every((b) => b === 0), `${name}: padding`).to.equal(true);
        const dec = decodeInput(enc.bytes, undefined)!;
        expect(dec.msg[1]).to.deep.equal([[4_000_000_000, 65535, [key]]]);
        expect(dec.parts).to.deep.equal([]);
        const got = dec.msg[2] as ArrayBufferView;
        expect(got.constructor, name).to.equal(ctor);
        expect(new Uint8Array(got.buffer, got.byteOffset, got.byteLength), name).to.deep.equal(bits.subarray(0, n * per));
        // in place inside a batch, at an odd offset, phase bit set
        const batch = new Uint8Array(enc.bytes.length + 8).fill(0xc1);
        batch.set(enc.bytes, 3);
        batch[4] = batch[4]! | 0x40;
        expect(readSmallInput(batch, into, 3, 3 + enc.bytes.length), name).to.equal(true);
        expect(into).to.include({ ttId: 4_000_000_000, terminal: 65535, phase: 0x40 });
        expect(into.key).to.deep.equal(key);
        const read = into.value as ArrayBufferView;
        expect(read.constructor).to.equal(ctor);
        expect(new Uint8Array(read.buffer, read.byteOffset, read.byteLength), name).to.deep.equal(bits.subarray(0, n * per));
        expect(read, 'a new array each time').to.not.equal(got);
      }
    }
  });

  it('copies an inline array when it is sent: later writes to the sender\'s array do not travel', () => {
    const a = Float64Array.of(1, 2);
    const enc = encodeInput(input(1, a))!;
    a[0] = 9;
    expect(Array.from(decodeInput(enc.bytes, undefined)!.msg[2] as Float64Array)).to.deep.equal([1, 2]);
  });

  it('keeps every typed-array class and negative and large integer keys', () => {
    for (const a of [new Int8Array(3), new Uint8ClampedArray(5), new Int32Array(2), new BigUint64Array(4), new Float32Array(9)]) {
      for (const key of [0, -1, -(2 ** 53 - 1), 2 ** 53 - 1]) {
        const dec = decodeInput(encodeInput(input(key, a))!.bytes, undefined)!;
        expect(dec.msg[1]).to.deep.equal([[7, 1, [key]]]);
        expect((dec.msg[2] as object).constructor).to.equal(a.constructor);
        expect((dec.msg[2] as Int8Array).length).to.equal(a.length);
      }
    }
  });

  it('views a payload that was already received, and refuses one that does not fit', () => {
    const n = INLINE_MAX_BYTES / 8 + 4;
    const bytes = encodeInput(input(5, new Float64Array(n)))!.bytes;
    const buf = new ArrayBuffer(8 * n);
    new Float64Array(buf).set([9, 8, 7, 6]);
    const dec = decodeInput(bytes, [buf])!;
    expect(Array.from((dec.msg[2] as Float64Array).subarray(0, 5))).to.deep.equal([9, 8, 7, 6, 0]);
    expect((dec.msg[2] as Float64Array).buffer).to.equal(buf);
    expect(() => decodeInput(bytes, [new ArrayBuffer(24)])).to.throw(new RegExp(`does not fit a Float64Array\\(${n}\\)`));
    expect(() => decodeInput(bytes, [buf, buf])).to.throw(/2 payload parts but its header names 1/);
  });

  it('leaves every other shape to msgpack', () => {
    const a = new Float64Array(2);
    const others: WireMessage[] = [
      input(1.5, a), // not an integer
      input(-0, a),
      input(2 ** 53, a), // beyond exact integers
      input('k', a),
      input([1, 2, 3, 4, 5], a), // a tuple longer than a small header's
      input(1, Buffer.from([1, 2])), // a Buffer is not one of the plain classes
      input(1, { a }),
      input(1, 3n),
      input(1.5, 3), // a number to a key that is not an integer
      input(1, a, -1),
      input(1, a, 7, 70000),
      [Wire.Input, [[7, 1, [1, 2]]], a], // several keys
      [Wire.Input, [[7, 1, [1]], [8, 0, [1]]], a], // several targets
      [Wire.Invoke, 7, 1],
    ];
    for (const m of others) expect(encodeInput(m), JSON.stringify(m[1])).to.equal(undefined);
  });

  it('carries one number to one integer key in 24 bytes with no parts: -0, NaN, infinities and every double intact', () => {
    const values = [0, -0, 1, -1.5, NaN, Infinity, -Infinity, Number.MIN_VALUE, Number.MAX_VALUE, 2 ** 53 + 2, 0.1 + 0.2];
    for (const v of values) {
      const enc = encodeInput(input(42, v))!;
      expect(enc.bytes.length).to.equal(24);
      expect(enc.parts).to.deep.equal([]);
      const dec = decodeInput(enc.bytes, undefined)!;
      expect(dec.msg[1]).to.deep.equal([[7, 1, [42]]]);
      expect(Object.is(dec.msg[2], v), String(v)).to.equal(true);
      expect(dec.parts).to.deep.equal([]);
    }
    // a number header with a payload is damaged
    expect(() => decodeInput(encodeInput(input(1, 2))!.bytes, [new ArrayBuffer(8)])).to.throw(/carries a number/);
  });

  it('reads a number header in place, its phase bit apart, and no other kind of header', () => {
    const into: SmallInput = { ttId: 0, terminal: 0, key: 0, value: 0, phase: 0 };
    const bytes = encodeInput(input(-12, -0, 4_000_000_000, 65535))!.bytes;
    bytes[1] = bytes[1]! | 0x40;
    const before = bytes.slice();
    expect(readSmallInput(bytes, into)).to.equal(true);
    expect(into).to.deep.equal({ ttId: 4_000_000_000, terminal: 65535, key: -12, value: -0, phase: 0x40 });
    expect(Object.is(into.value, -0)).to.equal(true);
    expect(bytes).to.deep.equal(before);
    expect(readSmallInput(encodeInput(input(1, new Float64Array(INLINE_MAX_BYTES)))!.bytes, into)).to.equal(false);
    expect(readSmallInput(encode(input('k', 1)).bytes, into)).to.equal(false);
    expect(readSmallInput(bytes.subarray(0, 23), into)).to.equal(false);
  });

  it('carries a number or nothing to an integer or a tuple of up to four integers in a small header, read in place or decoded', () => {
    const into: SmallInput = { ttId: 0, terminal: 0, key: 0, value: 0, phase: 0 };
    const keys: unknown[] = [5, -7, 2 ** 53 - 1, [0], [1, -2], [3, 4, 5], [-(2 ** 53) + 1, 0, 9, 2 ** 40], [7, 7, 7, 7]];
    const values: unknown[] = [undefined, 0, -0, NaN, -Infinity, 1e-300, 0.1 + 0.2];
    for (const key of keys) {
      for (const value of values) {
        if (typeof key === 'number' && value !== undefined) continue; // the 24-byte number header
        const m = input(key, value, 4_000_000_000, 65535);
        const enc = encodeInput(m)!;
        const n = Array.isArray(key) ? key.length : 1;
        expect(enc.bytes.length, JSON.stringify(key)).to.equal(16 + 8 * n + (value === undefined ? 0 : 8));
        expect(enc.parts).to.deep.equal([]);
        const dec = decodeInput(enc.bytes, undefined)!;
        expect(dec.msg[1]).to.deep.equal([[4_000_000_000, 65535, [key]]]);
        expect(Object.is(dec.msg[2], value), String(value)).to.equal(true);
        enc.bytes[1] = enc.bytes[1]! | 0x40;
        expect(readSmallInput(enc.bytes, into)).to.equal(true);
        expect(into.key).to.deep.equal(key);
        expect(Object.is(into.value, value)).to.equal(true);
        expect(into).to.include({ ttId: 4_000_000_000, terminal: 65535, phase: 0x40 });
        // read in place inside a larger buffer (a batch), from its bounds
        const batch = new Uint8Array(enc.bytes.length + 9).fill(0xc1);
        batch.set(enc.bytes, 5);
        into.key = into.value = undefined;
        expect(readSmallInput(batch, into, 5, 5 + enc.bytes.length)).to.equal(true);
        expect(into.key).to.deep.equal(key);
        expect(Object.is(into.value, value)).to.equal(true);
        expect(readSmallInput(batch, into, 5, 4 + enc.bytes.length)).to.equal(false);
      }
    }
  });

  it('leaves to msgpack the keys and values a small header cannot carry exactly', () => {
    const holey = [1, , 3]; // eslint-disable-line no-sparse-arrays
    const others: unknown[][] = [
      [[1, 2, 3, 4, 5], undefined], [[], 1], [[1, -0], 1], [[1.5], undefined], [['a', 1], 1], [[1, [2]], 1],
      [holey, 1], [[2 ** 53], 1], [[1, 2n], 1], [-0, undefined], [1.5, undefined], [[1, 2], null], [[1, 2], 'v'],
      [[1, 2], true], [[1, 2], { a: 1 }], [[1, 2], 3n], [{ i: 1 }, 1],
    ];
    for (const [key, value] of others) expect(encodeInput(input(key, value)), `${String(key)} ${String(value)}`).to.equal(undefined);
  });

  it('names a damaged small header instead of misreading it, and does not read it in place', () => {
    const into: SmallInput = { ttId: 0, terminal: 0, key: 0, value: 0, phase: 0 };
    const bytes = encodeInput(input([1, 2], 3))!.bytes;
    expect(bytes.length).to.equal(40);
    expect(() => decodeInput(bytes.subarray(0, 32), undefined)).to.throw(/shape 10 has 40 bytes, this one 32/);
    expect(readSmallInput(bytes.subarray(0, 32), into)).to.equal(false);
    expect(() => decodeInput(bytes, [new ArrayBuffer(8)])).to.throw(/1 payload parts but its header names none/);
    for (const shape of [5, 16, 0x80, 15]) {
      const bad = bytes.slice();
      bad[8] = shape;
      expect(() => decodeInput(bad, undefined), String(shape)).to.throw(/small input header/);
      expect(readSmallInput(bad, into)).to.equal(false);
    }
    expect(() => decodeInput(bytes.subarray(0, 6), undefined)).to.throw(/has 16 to \d+ bytes, this one 6/);
  });

  it('gives the scratch bytes when not asked for fresh ones, a copy otherwise', () => {
    const a = encodeInput(input(1, 2), false)!.bytes;
    const b = encodeInput(input(3, 4), false)!.bytes;
    expect(a.buffer).to.equal(b.buffer);
    expect(a.byteOffset).to.equal(b.byteOffset);
    const c = encodeInput(input(1, 2))!.bytes;
    expect(c).to.not.equal(encodeInput(input(1, 2))!.bytes);
  });

  it('tells the two kinds of header apart: a msgpack header is not taken for a fixed one', () => {
    const m = input('key', new Float64Array([4, 5]));
    const enc = encode(m);
    expect(decodeInput(enc.bytes, undefined)).to.equal(undefined);
    const dec = decode<WireMessage>(enc.bytes);
    expect(dec.msg[1]).to.deep.equal([[7, 1, ['key']]]);
  });

  it('names a damaged fixed header instead of misreading it', () => {
    const bytes = encodeInput(input(1, new Float64Array(INLINE_MAX_BYTES)))!.bytes;
    expect(() => decodeInput(bytes.subarray(0, 20), undefined)).to.throw(/24 bytes, this one 20/);
    const bad = bytes.slice();
    bad[1] = 200;
    expect(() => decodeInput(bad, undefined)).to.throw(/unknown typed-array code 200/);
  });

  it('names a damaged inline header instead of misreading it, and does not read it in place', () => {
    const into: SmallInput = { ttId: 0, terminal: 0, key: 0, value: 0, phase: 0 };
    const bytes = encodeInput(input([4, 5], Int16Array.of(1, 2, 3)))!.bytes;
    expect(bytes.length).to.equal(40);
    const cases: Array<[Uint8Array, RegExp]> = [];
    const damaged = (at: number, write: (v: DataView) => void, message: RegExp) => {
      const bad = bytes.slice();
      write(new DataView(bad.buffer, bad.byteOffset + at));
      cases.push([bad, message]);
    };
    // a count that disagrees with the length, none, one above the limit; an unknown class; a number and an array at once
    for (const count of [5, 9]) damaged(12, (v) => v.setUint32(0, count, true), /has (48|56) bytes, this one 40/);
    damaged(12, (v) => v.setUint32(0, 0, true), /no valid shape/);
    damaged(12, (v) => v.setUint32(0, INLINE_MAX_BYTES, true), /no valid shape/);
    damaged(9, (v) => v.setUint8(0, TYPED.length), /no valid shape \(shape 18, class 11/);
    damaged(8, (v) => v.setUint8(0, 2 | 8 | 16), /no valid shape/);
    cases.push([bytes.subarray(0, 36), /has 40 bytes, this one 36/]);
    const longer = new Uint8Array(48);
    longer.set(bytes);
    cases.push([longer, /has 40 bytes, this one 48/]);
    cases.push([new Uint8Array(INLINE_MAX_BYTES + 72).fill(0).map((_, i) => (i < 40 ? bytes[i]! : 0)), /has 16 to \d+ bytes/]);
    for (const [bad, message] of cases) {
      expect(() => decodeInput(bad, undefined), message.source).to.throw(message);
      expect(readSmallInput(bad, into), message.source).to.equal(false);
    }
    expect(() => decodeInput(bytes, [new ArrayBuffer(6)])).to.throw(/1 payload parts but its header names none/);
    // and the undamaged one reads
    expect(readSmallInput(bytes, into)).to.equal(true);
    expect(into.key).to.deep.equal([4, 5]);
    expect(Array.from(into.value as Int16Array)).to.deep.equal([1, 2, 3]);
  });
});
