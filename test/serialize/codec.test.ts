/** The msgpack codec's guarantees that the transport relies on. */
import { expect } from 'chai';

import { decode, encode } from '../../src/serialize/codec.js';

describe('codec', () => {
  it('decodes into memory of its own: nothing in a message views the header (the addon reuses batch bytes)', () => {
    const value = {
      s: 'text', n: [1, 2.5, -3, 2 ** 40], m: new Map<string, unknown>([['a', [1, 'b']]]), set: new Set([2, 'x']),
      d: new Date(0), nested: { x: 'y', deep: [[['z']]] }, big: 12345678901234567890n,
    };
    const { bytes, parts } = encode({ ...value, blob: Buffer.from([1, 2, 3, 4]) });
    expect(parts, 'a Buffer travels as a raw part, not inside the header').to.have.length(1);
    const header = bytes.slice();
    const { msg } = decode<typeof value>(header);
    header.fill(0);
    const { blob, ...rest } = msg as typeof value & { blob: unknown };
    expect(rest).to.deep.equal(value);
    expect(blob).to.be.instanceOf(Uint8Array).with.property('length', 4);
  });

  it('keeps a Map a Map, with keys of any type, also inside arrays, objects and other Maps', () => {
    const m = new Map<unknown, unknown>([[1, 'one'], ['1', 'string one'], [[2, 3], new Map([[4, 5]])]]);
    const { msg } = decode<unknown>(encode({ list: [m], m }).bytes);
    expect(msg).to.deep.equal({ list: [m], m });
    const got = (msg as { m: Map<unknown, unknown> }).m;
    expect(got).to.be.instanceOf(Map);
    expect(got.get(1)).to.equal('one');
    expect(got.get('1')).to.equal('string one');
  });

  it('an own "__proto__" key of a plain object arrives as an own "__proto__" key, whether or not a Map or -0 beside it needs boxing (issue 55, item 3)', () => {
    // msgpackr alone reads such a key back as "__proto_" (it never sets a prototype): a key naming another task
    const plain = JSON.parse('{"__proto__": {"m": 1}, "z": 0}') as Record<string, unknown>;
    const boxed = JSON.parse('{"__proto__": {"m": 1}, "z": 0}') as Record<string, unknown>;
    boxed['z'] = -0;
    for (const [sent, at] of [[plain, -1], [boxed, -1], [plain, 1], [boxed, 1]] as const) {
      const got = decode<[number, Record<string, unknown>]>(encode([7, sent], at).bytes).msg[1];
      expect(Object.keys(got)).to.deep.equal(['__proto__', 'z']);
      expect(Object.getOwnPropertyDescriptor(got, '__proto__')?.value).to.deep.equal({ m: 1 });
      expect(Object.is(got['z'], sent['z'])).to.equal(true);
      expect(Object.getPrototypeOf(got)).to.equal(Object.prototype);
    }
    expect(Object.keys(Object.prototype)).to.deep.equal([]);
  });

  it('keeps -0 negative at any depth (msgpack alone writes it as the integer 0), and 0 positive', () => {
    const value = { z: -0, list: [0, -0, [-0]], m: new Map([[-1, -0]]), n: 0 }; // (a Set stores -0 as 0 itself)
    const { msg } = decode<typeof value>(encode(value).bytes);
    expect(Object.is(msg.z, -0)).to.equal(true);
    expect(msg.list.map((x) => (Array.isArray(x) ? Object.is(x[0], -0) : Object.is(x, -0)))).to.deep.equal([false, true, true]);
    expect(Object.is(msg.m.get(-1), -0)).to.equal(true);
    expect(Object.is(msg.n, 0)).to.equal(true);
    expect(Object.is(decode<number>(encode(-0).bytes).msg, -0)).to.equal(true);
  });
});
