/**
 * The fixed 24-byte header of the commonest remote messages (one typed array or one number to one integer key):
 * what takes it, what falls back to msgpack, and that both kinds of header decode to the same
 * message.
 */
import { expect } from 'chai';

import { decode, encode } from '../../src/serialize/codec.js';
import { decodeInput, encodeInput, readNumberInput, type NumberInput } from '../../src/transport/input-header.js';
import { Wire, type WireMessage } from '../../src/ttg/wire.js';

const input = (key: unknown, value: unknown, ttId = 7, terminal = 1): WireMessage => [Wire.Input, [[ttId, terminal, [key]]], value];

describe('fixed input header', () => {
  it('carries one typed array to one integer key in 24 bytes, the array as its one raw part', () => {
    const a = new Float64Array([1.5, 2.5, 3.5]);
    const enc = encodeInput(input(123456789, a, 4_000_000_000, 65535))!;
    expect(enc.bytes.length).to.equal(24);
    expect(enc.bytes[0]).to.equal(0xc1);
    expect(enc.parts).to.deep.equal([a]);
    expect(enc.plain).to.equal(true);
    const dec = decodeInput(enc.bytes, undefined)!;
    expect(dec.msg[0]).to.equal(Wire.Input);
    expect(dec.msg[1]).to.deep.equal([[4_000_000_000, 65535, [123456789]]]);
    const got = dec.msg[2] as Float64Array;
    expect(got).to.be.instanceOf(Float64Array).with.property('length', 3);
    expect(dec.parts).to.deep.equal([got]);
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
    const bytes = encodeInput(input(5, new Float64Array(4)))!.bytes;
    const buf = new ArrayBuffer(32);
    new Float64Array(buf).set([9, 8, 7, 6]);
    const dec = decodeInput(bytes, [buf])!;
    expect(Array.from(dec.msg[2] as Float64Array)).to.deep.equal([9, 8, 7, 6]);
    expect((dec.msg[2] as Float64Array).buffer).to.equal(buf);
    expect(() => decodeInput(bytes, [new ArrayBuffer(24)])).to.throw(/does not fit a Float64Array\(4\)/);
    expect(() => decodeInput(bytes, [buf, buf])).to.throw(/2 payload parts but its header names 1/);
  });

  it('leaves every other shape to msgpack', () => {
    const a = new Float64Array(2);
    const others: WireMessage[] = [
      input(1.5, a), // not an integer
      input(-0, a),
      input(2 ** 53, a), // beyond exact integers
      input('k', a),
      input([1, 2], a),
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
    const into: NumberInput = { ttId: 0, terminal: 0, key: 0, value: 0, phase: 0 };
    const bytes = encodeInput(input(-12, -0, 4_000_000_000, 65535))!.bytes;
    bytes[1] = bytes[1]! | 0x40;
    const before = bytes.slice();
    expect(readNumberInput(bytes, into)).to.equal(true);
    expect(into).to.deep.equal({ ttId: 4_000_000_000, terminal: 65535, key: -12, value: -0, phase: 0x40 });
    expect(Object.is(into.value, -0)).to.equal(true);
    expect(bytes).to.deep.equal(before);
    expect(readNumberInput(encodeInput(input(1, new Float64Array(2)))!.bytes, into)).to.equal(false);
    expect(readNumberInput(encode(input('k', 1)).bytes, into)).to.equal(false);
    expect(readNumberInput(bytes.subarray(0, 23), into)).to.equal(false);
  });

  it('gives the scratch bytes when not asked for fresh ones, a copy otherwise', () => {
    const a = encodeInput(input(1, 2), false)!.bytes;
    const b = encodeInput(input(3, 4), false)!.bytes;
    expect(a).to.equal(b);
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
    const bytes = encodeInput(input(1, new Float64Array(1)))!.bytes;
    expect(() => decodeInput(bytes.subarray(0, 20), undefined)).to.throw(/24 bytes, this one 20/);
    const bad = bytes.slice();
    bad[1] = 200;
    expect(() => decodeInput(bad, undefined)).to.throw(/unknown typed-array code 200/);
  });
});
