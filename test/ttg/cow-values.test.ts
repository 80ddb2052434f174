/**
 * Issue 36, item 11: the private copy that a consuming task gets while another task still holds
 * the value (copy-on-write) must be equal to the value by the same rule as a send to another rank
 * (test/serialize/values.ts: same prototypes at every depth, Map keys included, null prototypes,
 * -0, NaN, holes, symbol keys), or the copy is refused loudly (the run fails with a TtgError that
 * names the class). It must never be a silently different value.
 *
 *   src ──broadcast──▶ Reader(1), Reader(2)   (hold the value until release)
 *             └──────▶ Consumer(0)            (consume: gets a copy; records it, then releases)
 */
import { expect } from 'chai';
import * as ttg from 'ttg';

import { fence } from '../helpers.js';
import { copyValue } from '../../src/ttg/run/cow.js';
import { F64, generate, MyArray, MyDate, MyMap, MySet, Point, strictDiff } from '../serialize/values.js';

/** What a case's copy must be: equal, or equal unless the copy is refused with a TtgError naming `name`. */
type Want = { keep: true } | { keepOrRefuse: string };

interface CowCase {
  name: string;
  make(): unknown;
  want: Want;
}

const KEEP: Want = { keep: true };

const CASES: CowCase[] = [
  // ---- must keep
  { name: 'a ttg.Buffer Map key stays a ttg.Buffer (it becomes a plain object)', want: KEEP, make: () => ({
    m: new Map<unknown, unknown>([[new ttg.Buffer(new Float64Array([1, 2])), 'buffer key'], ['v', new ttg.Buffer(new Float64Array([3]))]]),
  }) },
  { name: 'a class instance Map key keeps its class', want: KEEP, make: () => ({ m: new Map([[new Point(1), 'point key']]) }) },
  { name: 'a Map with a ttg.Buffer key as the consumed value itself', want: KEEP, make: () => new Map([[new ttg.Buffer(new Float64Array([4])), 1]]) },
  { name: 'a null-prototype object keeps its null prototype (nested)', want: KEEP, make: () => ({ n: Object.assign(Object.create(null) as object, { a: 1, b: [2] }) }) },
  { name: 'a null-prototype object keeps its null prototype (the consumed value itself)', want: KEEP, make: () => Object.assign(Object.create(null) as object, { a: 1 }) },
  { name: 'class instances in Sets and Map values keep their class (works today)', want: KEEP, make: () => ({ s: new Set([new Point(2)]), m: new Map([['p', new Point(3)]]) }) },
  { name: '-0, NaN, holes and extra array properties are kept (works today)', want: KEEP, make: () => {
    const a: unknown[] & { extra?: number } = [1, , -0, NaN];
    a.extra = 5;
    return { a, z: -0, m: new Map([[1, -0]]) };
  } },
  // ---- kept, or refused loudly
  { name: 'a Map subclass (nested)', want: { keepOrRefuse: 'MyMap' }, make: () => ({ m: new MyMap([[1, 2]]) }) },
  { name: 'a Map subclass (the consumed value itself)', want: { keepOrRefuse: 'MyMap' }, make: () => new MyMap([[1, 2]]) },
  { name: 'a Set subclass', want: { keepOrRefuse: 'MySet' }, make: () => ({ s: new MySet([1, 2]) }) },
  { name: 'an Array subclass', want: { keepOrRefuse: 'MyArray' }, make: () => ({ a: MyArray.from([1, 2]) }) },
  { name: 'a Float64Array subclass (nested)', want: { keepOrRefuse: 'F64' }, make: () => ({ t: F64.from([1.5, 2.5]) }) },
  { name: 'a Float64Array subclass (the consumed value itself)', want: { keepOrRefuse: 'F64' }, make: () => F64.from([1.5, 2.5]) },
  { name: 'a Date subclass', want: { keepOrRefuse: 'MyDate' }, make: () => ({ d: new MyDate(1234) }) },
  { name: 'a Node Buffer', want: { keepOrRefuse: 'Buffer' }, make: () => ({ b: Buffer.from([1, 2, 3]) }) },
  { name: 'a symbol-keyed property', want: { keepOrRefuse: 'symbol' }, make: () => ({ o: { [Symbol.for('ttg-cow')]: 1, a: 2 } }) },
];

let n = 0;

/** Runs the graph of the header with `value`; returns the consumer's copy and the original, or the fence's error. */
async function copyOf(value: unknown): Promise<{ copy: unknown; original: unknown } | { error: unknown }> {
  const id = `cowv${n++}`;
  const go = new ttg.Edge<number, number>(`${id}-go`);
  const toReader = new ttg.Edge<number, unknown>(`${id}-reader`);
  const toConsumer = new ttg.Edge<number, unknown>(`${id}-consumer`);
  const release = new ttg.Edge<number, void>(`${id}-release`);
  let copy: unknown;
  const src = ttg.make_tt((_k: number, _v: number, out) => {
    out.broadcast([0, 1], [[1, 2], [0]], value);
  }, [go], [toReader, toConsumer], { name: `${id}-src` });
  const reader = ttg.make_tt((_k: number, _t: unknown, _go: void) => {}, [toReader, release], [], { name: `${id}-readers` });
  const consumer = ttg.make_tt((_k: number, t: unknown, out) => {
    copy = t;
    out.sendk(0, 1);
    out.sendk(0, 2);
  }, [toConsumer], [release], { name: `${id}-consumer`, consume: [0] });
  ttg.make_graph_executable(src, reader, consumer);
  src.invoke(0, 0);
  try {
    await fence();
  } catch (e) {
    return { error: e };
  }
  return { copy, original: value };
}

describe('copy-on-write copies keep the value (issue 36, item 11)', () => {
  before(async () => {
    await ttg.initialize();
  });

  for (const c of CASES) {
    const how = 'keep' in c.want ? 'kept' : 'kept, or refused naming it';
    it(`${c.name}: ${how}`, async () => {
      const r = await copyOf(c.make());
      if ('error' in r) {
        const e = r.error;
        expect('keepOrRefuse' in c.want, `the copy must be made, but the run failed: ${String(e)}`).to.equal(true);
        expect(e, `refused, but not with a TtgError: ${String(e)}`).to.be.instanceOf(ttg.TtgError);
        expect((e as Error).message).to.include((c.want as { keepOrRefuse: string }).keepOrRefuse);
        return;
      }
      expect(r.copy, 'the consumer must get a private copy (readers still hold the value)').to.not.equal(r.original);
      const diff = strictDiff(c.make(), r.copy);
      expect(diff, `the copy differs from the value: ${diff}`).to.equal(undefined);
    });
  }
});

describe('copy-on-write copies keep own properties; a copy that cannot be made is named (issue 55, items 5 and 6)', () => {
  before(async () => {
    await ttg.initialize();
  });

  const tagged = <T extends object>(o: T): T => Object.assign(o, { tag: 'x', nested: { n: 1 } });
  const OWN: Array<[string, () => object]> = [
    ['a Map', () => tagged(new Map([[1, 2]]))],
    ['a Set', () => tagged(new Set([1]))],
    ['a Date', () => tagged(new Date(0))],
    ['a Float64Array', () => tagged(new Float64Array([1, 2]))],
    ['an Error', () => Object.assign(new Error('boom'), { code: 'E1', detail: { n: 1 } })],
    ['a RegExp', () => tagged(/a+/g)],
    ['a String object', () => tagged(new String('ab'))],
    // the same definition of equal as the wire's (src/serialize/same-value.ts): non-enumerable
    // and symbol-keyed properties, on a typed array past the size whose keys are listed one by one
    ['a large Int32Array with a non-enumerable and a symbol-keyed property', () => Object.defineProperty(Object.assign(new Int32Array(5000).fill(3), { [Symbol.for('ttg-cow')]: 4 }), 'unit', { value: 'm' })],
    ['a plain object with a non-enumerable property', () => Object.defineProperty({ a: [1] }, 'hidden', { value: { deep: 2 }, enumerable: false })],
    ['an array with a non-enumerable property', () => Object.defineProperty([1, , 3], 'tag', { value: 't', enumerable: false })],
    ['a RegExp whose lastIndex moved', () => { const re = /b/g; re.exec('abcb'); return re; }],
  ];
  for (const [what, make] of OWN) {
    it(`${what} keeps its own properties, inside a plain object and as the value itself`, async () => {
      for (const inside of [true, false]) {
        const r = await copyOf(inside ? { v: make() } : make());
        expect('error' in r, `the copy must be made: ${'error' in r ? String(r.error) : ''}`).to.equal(false);
        if ('error' in r) return;
        expect(r.copy).to.not.equal(r.original);
        const got = (inside ? (r.copy as { v: object }).v : r.copy) as Record<string, unknown>;
        const want = (inside ? (r.original as { v: object }).v : r.original) as Record<string, unknown>;
        expect(got).to.not.equal(want);
        expect(Object.getPrototypeOf(got)).to.equal(Object.getPrototypeOf(want));
        expect(strictDiff(want, got)).to.equal(undefined);
        for (const k of Object.keys(want)) expect(got[k], `${what}.${k}`).to.deep.equal(want[k]);
        if (typeof want['nested'] === 'object') expect(got['nested'], 'a nested object is copied, not shared').to.not.equal(want['nested']);
        if (want instanceof Error) expect([(got as unknown as Error).message, (got as unknown as Error).name]).to.deep.equal([want.message, want.name]);
        if (want instanceof String) expect(String(got)).to.equal('ab');
        if (want instanceof Float64Array) expect(Array.from(got as unknown as Float64Array)).to.deep.equal([1, 2]);
      }
    });
  }

  it('10,000 seeded random values: each copy is the same value by the wire\'s rule, or copying it is refused', () => {
    // copyValue is what a consumer's private copy is made with; the runtime path is covered above
    const failures: string[] = [];
    let copied = 0;
    for (let seed = 1; seed <= 10_000; seed++) {
      const { value } = generate(seed);
      let copy: unknown;
      try {
        copy = copyValue(value);
      } catch (e) {
        // structuredClone refuses functions and symbols; anything else must copy
        if (!/could not be cloned|function|Symbol/i.test(String(e))) failures.push(`seed ${seed}: ${String(e)}`);
        continue;
      }
      copied++;
      const d = strictDiff(value, copy);
      if (d !== undefined) failures.push(`seed ${seed}: ${d}`);
    }
    expect(failures.slice(0, 20), `${failures.length} of 10,000`).to.deep.equal([]);
    expect(copied).to.be.above(9_000);
  });


  it('a value that cannot be copied fails with E_INVALID_ARGUMENT naming the TT and input, not as the body\'s error', async () => {
    let ran = false;
    const r = await copyOf({ f: () => (ran = true) });
    expect('error' in r).to.equal(true);
    const e = (r as { error: unknown }).error as ttg.TtgError;
    expect(e.code).to.equal('E_INVALID_ARGUMENT');
    expect(e.message).to.match(/private copy of consumed input 0/);
    expect(e.message).to.match(/register_copier/);
    expect(e.message).to.include('-consumer');
    expect(ran).to.equal(false);
  });
});
