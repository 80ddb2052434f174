/**
 * own-properties.ts: the own properties of an object besides its contents, found for a large typed
 * array without listing its indices (issue 55, item 2), whatever it is hiding; in JavaScript alone
 * and with the addon's count of the keys that are not indices.
 */
import { inspect } from 'node:util';

import { expect } from 'chai';

import { requireNative } from '../../src/native/addon.js';
import { countNonIndexKeysWith, extraOwnKeys } from '../../src/serialize/own-properties.js';

const define = <T extends object>(o: T, k: PropertyKey, enumerable: boolean): T => Object.defineProperty(o, k, { value: 1, enumerable, configurable: true, writable: true });

for (const mode of ['JavaScript alone', 'the addon counting'] as const) describe(`extraOwnKeys: own properties besides the contents (${mode})`, () => {
  before(() => countNonIndexKeysWith(mode === 'JavaScript alone' ? undefined : requireNative().ownNonIndexKeys));
  after(() => countNonIndexKeysWith(requireNative().ownNonIndexKeys));

  for (const n of [0, 3, 64, 65, 5000]) {
    it(`a Float64Array of ${n} elements: none, then each kind of extra property`, () => {
      expect(extraOwnKeys(new Float64Array(n))).to.deep.equal([]);
      expect(extraOwnKeys(define(new Float64Array(n), 'unit', true))).to.deep.equal(['unit']);
      expect(extraOwnKeys(define(new Float64Array(n), 'hidden', false))).to.deep.equal(['hidden']);
      const sym = Symbol('s');
      expect(extraOwnKeys(define(new Float64Array(n), sym, false))).to.deep.equal([sym]);
      // own properties that shadow what the fast path reads from the prototype
      for (const k of ['length', 'buffer', 'byteLength', 'byteOffset', 'BYTES_PER_ELEMENT', 'constructor']) {
        expect(extraOwnKeys(define(new Float64Array(n), k, false)), k).to.deep.equal([k]);
      }
      const tricky = define(new Float64Array(n), 'x', true) as Float64Array & { x: unknown };
      tricky.x = `[buffer]: ArrayBuffer { byteLength: ${n * 8} } ]`;
      expect(extraOwnKeys(tricky)).to.deep.equal(['x']);
    });
  }

  it('views with offsets, of SharedArrayBuffers, of every class: no extra key', () => {
    const ab = new ArrayBuffer(4096);
    for (const v of [new Float64Array(ab, 8, 200), new Uint8Array(ab, 3, 1000), new BigInt64Array(new SharedArrayBuffer(8 * 300)), new Int16Array(new SharedArrayBuffer(1024), 2, 100), new Uint8ClampedArray(300)]) {
      expect(extraOwnKeys(v), v.constructor.name).to.deep.equal([]);
    }
  });

  it('a program that changed util.inspect.defaultOptions changes nothing', () => {
    const saved = { ...inspect.defaultOptions };
    try {
      Object.assign(inspect.defaultOptions, { sorted: true, numericSeparator: true, showHidden: false, maxArrayLength: 5, compact: false, breakLength: 10 });
      expect(extraOwnKeys(new Float64Array(10_000))).to.deep.equal([]);
      expect(extraOwnKeys(define(new Int32Array(10_000), 'tag', false))).to.deep.equal(['tag']);
    } finally {
      Object.assign(inspect.defaultOptions, saved);
    }
  });

  it('arrays and String objects: elements and length are contents; holes are not keys', () => {
    expect(extraOwnKeys([1, , 3])).to.deep.equal([]);
    expect(extraOwnKeys(Object.assign([1, 2], { k: 0 }))).to.deep.equal(['k']);
    expect(extraOwnKeys(new String('ab'))).to.deep.equal([]);
    expect(extraOwnKeys(define(new String('ab'), 'tag', false))).to.deep.equal(['tag']);
    expect(extraOwnKeys(define([1, 2], 'hidden', false))).to.deep.equal(['hidden']);
    const sym = Symbol('s');
    expect(extraOwnKeys(define(new Array(100).fill(0), sym, true))).to.deep.equal([sym]);
    // not an index: the largest index is 2^32 - 2
    expect(extraOwnKeys(Object.assign([1], { 4294967295: 0 }))).to.deep.equal(['4294967295']);
    expect(extraOwnKeys(Object.assign(new Array(5000).fill(1), { big: 0 }))).to.deep.equal(['big']);
  });

  it('Maps, Sets, Dates, plain objects: every own key', () => {
    expect(extraOwnKeys(new Map([[1, 2]]))).to.deep.equal([]);
    expect(extraOwnKeys(define(new Set([1]), 'u', false))).to.deep.equal(['u']);
    expect(extraOwnKeys(define(new Date(0), 'z', true))).to.deep.equal(['z']);
    expect(extraOwnKeys({ a: 1, b: 2 })).to.deep.equal(['a', 'b']);
  });
});
