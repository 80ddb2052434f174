/**
 * Values that must travel intact, or be refused (issue 36), shared by the one-process tests
 * (test/serialize/hostile-values.test.ts through test/fixtures/hostile_values_child.ts) and the
 * mpirun program test/mpi/value-roundtrip.ts. Not a test file and not a program: importing it
 * neither initializes ttg nor registers anything.
 *
 * The rule: a value arrives equal to what was sent — same types and prototypes, -0, NaN, string
 * contents, holes — or the send is refused with E_SERIALIZE naming the path inside the value
 * (`value.tiles[3].data`) and what is wrong. {@link strictDiff} is that "equal".
 */
import * as ttg from 'ttg';

import { firstDifference, type CompareOwn } from '../../src/serialize/same-value.js';
import { rng } from '../helpers.js';

// ---------------------------------------------------------------------------------------------
// strict deep equality: the runtime's own definition (src/serialize/same-value.ts)

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const INDEX = /^(0|[1-9][0-9]*)$/;

/** `path` extended by property `k` (`.name`, `[3]`, `["a b"]`, `[Symbol(s)]`). */
export function step(path: string, k: string | symbol | number): string {
  if (typeof k === 'number') return `${path}[${k}]`;
  if (typeof k === 'symbol') return `${path}[${String(k)}]`;
  if (INDEX.test(k)) return `${path}[${k}]`;
  return IDENT.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`;
}

/** A `ttg.Buffer` compares by its host array and scratch flag (the rest of it is runtime state). */
const bufferFields: CompareOwn = (a, b, at) => (a instanceof ttg.Buffer
  ? firstDifference(a.host, (b as ttg.Buffer).host, `${at}.host`, bufferFields) ?? (a.scratch === (b as ttg.Buffer).scratch ? undefined : `${at}.scratch differs`)
  : null);

/**
 * Where `got` differs from `sent`, or undefined when they are the same value by the rule every
 * part of the runtime uses (src/serialize/same-value.ts: prototypes at every depth, `Object.is`
 * numbers, holes, own properties of every kind with their enumerability, bytes, entries in order).
 */
export function strictDiff(sent: unknown, got: unknown, path = 'value'): string | undefined {
  return firstDifference(sent, got, path, bufferFields);
}

// ---------------------------------------------------------------------------------------------
// classes

/** Not registered anywhere: cannot travel. */
export class Point {
  constructor(readonly x: number) {}
}

/** Split-metadata class whose metadata is whatever the test puts in it (item 4). */
export class Tagged {
  constructor(public meta: unknown, public data: Float64Array) {}
}

/**
 * Split-metadata class (issue 55, item 9) whose fields are bytes: sent as views of other element
 * types where the length allows (those in {@link typedViews}), received as plain Uint8Arrays, as
 * the contract allows ("arrays of the right sizes").
 */
export class Fields {
  constructor(readonly parts: Uint8Array[]) {}
}
/** The Fields whose get_data returns typed views (not an own property: the comparison would see it). */
const typedViews = new WeakSet<Fields>();

/** A Fields of `n` parts of 3, 8 and 4 bytes, in turn, sent as Uint8, Float64 and Int16 views. */
export function fields(n: number): Fields {
  const f = new Fields(Array.from({ length: n }, (_, i) => Uint8Array.from({ length: [3, 8, 4][i % 3]! }, (_, j) => (i * 31 + j * 7) & 255)));
  typedViews.add(f);
  return f;
}

/** A typed-array subclass with a constructor unlike Float64Array's (item 5). */
export class Mat extends Float64Array {
  constructor(rows: number, cols: number) {
    super(rows * cols);
  }
}

/** Split-metadata class whose payload is a {@link Mat}. */
export class MatTile {
  constructor(public rows: number, public cols: number, public m: Mat) {}
}

/** Built-in subclasses (item 3): refused when sent. */
export class F64 extends Float64Array {}
export class U8 extends Uint8Array {}
export class MyMap<K, V> extends Map<K, V> {}
export class MySet<T> extends Set<T> {}
export class MyArray<T> extends Array<T> {}
export class MyDate extends Date {}

let registered = false;

/** Registers {@link Tagged} and {@link MatTile} for split-metadata transfer (every rank, once). */
export function registerSplitClasses(): void {
  if (registered) return;
  registered = true;
  ttg.register_split_metadata(Tagged, {
    get_metadata: (t) => t.meta,
    get_data: (t) => [t.data],
    create_from_metadata: (m) => new Tagged(m, new Float64Array(4)),
  });
  ttg.register_split_metadata(Fields, {
    get_metadata: (f) => f.parts.map((p) => p.byteLength),
    get_data: (f) => (typedViews.has(f) ? f.parts.map((p, i) => (i % 3 === 1 ? new Float64Array(p.buffer, 0, 1) : i % 3 === 2 ? new Int16Array(p.buffer, 0, 2) : p)) : f.parts),
    create_from_metadata: (sizes: number[]) => new Fields(sizes.map((b) => new Uint8Array(b))),
  });
  ttg.register_split_metadata(MatTile, {
    get_metadata: (t) => ({ rows: t.rows, cols: t.cols }),
    get_data: (t) => [t.m],
    create_from_metadata: (m: { rows: number; cols: number }) => new MatTile(m.rows, m.cols, new Mat(m.rows, m.cols)),
  });
}

// ---------------------------------------------------------------------------------------------
// fixed cases

/** What a case must give. */
export type Expect =
  | { equal: true }
  /** Arrives equal, or is refused with E_SERIALIZE; never changed. */
  | { equalOrRefused: true }
  | { code: 'E_SERIALIZE' | 'E_MOVED'; path?: string | RegExp; why?: RegExp };

export interface Case {
  name: string;
  /** Item of issue 36. */
  item: number;
  /** Fresh key and value (called once per send and once more to compare). */
  make(): { key?: unknown; value: unknown };
  expect: Expect;
  /** How S hands it to R (default send). */
  via?: 'send' | 'broadcast' | 'broadcast-procmap';
  /** Only in one process (needs local tricks), only across ranks, or both (default). */
  where?: 'local' | 'mpi';
  /** Split-metadata (items 4 and 5): a separate describe. */
  split?: boolean;
  /** Across ranks, in an mpirun of its own (today it hangs, and E_HANG fails every later fence). */
  alone?: boolean;
}

const EQUAL: Expect = { equal: true };
const refuse = (path: string | RegExp, why: RegExp): Expect => ({ code: 'E_SERIALIZE', path, why });

function filled<T extends { length: number; [i: number]: number | bigint }>(a: T, f: (i: number) => number | bigint): T {
  for (let i = 0; i < a.length; i++) a[i] = f(i) as never;
  return a;
}

function detached(n: number): Float64Array {
  const a = filled(new Float64Array(n), (i) => i + 0.5);
  structuredClone(a.buffer, { transfer: [a.buffer] });
  return a;
}

/** `v = [v, v]`, `depth` times: a DAG with 2^depth paths. */
export function dag(depth: number): unknown {
  let v: unknown = [];
  for (let i = 0; i < depth; i++) v = [v, v];
  return v;
}

/** A plain object with `n` properties. */
function wide(n: number): Record<string, number> {
  const o: Record<string, number> = {};
  for (let i = 0; i < n; i++) o[`p${i}`] = i;
  return o;
}

const LONG = 'ab😀c\u00e9中'.repeat(20000);

export const CASES: Case[] = [
  // ---- must keep working
  { name: 'all typed-array kinds, BigInt64 and BigUint64 included', item: 0, expect: EQUAL, make: () => ({ value: {
    f64: filled(new Float64Array(5), (i) => [NaN, -0, Infinity, -Infinity, 1e-310][i]!),
    f32: filled(new Float32Array(3), (i) => [NaN, -0, 1.5][i]!),
    i8: filled(new Int8Array(3), (i) => [-128, 0, 127][i]!), u8: filled(new Uint8Array(3), (i) => [0, 128, 255][i]!),
    u8c: filled(new Uint8ClampedArray(2), (i) => [0, 255][i]!), i16: filled(new Int16Array(2), (i) => [-32768, 32767][i]!),
    u16: filled(new Uint16Array(2), (i) => [0, 65535][i]!), i32: filled(new Int32Array(2), (i) => [-(2 ** 31), 2 ** 31 - 1][i]!),
    u32: filled(new Uint32Array(2), (i) => [0, 2 ** 32 - 1][i]!),
    i64: filled(new BigInt64Array(3), (i) => [-(2n ** 63n), 0n, 2n ** 63n - 1n][i]!),
    u64: filled(new BigUint64Array(2), (i) => [0n, 2n ** 64n - 1n][i]!),
    empty: new Float64Array(0),
  } }) },
  { name: 'subarray views with offsets (overlapping views of one ArrayBuffer arrive as separate arrays with the right contents)', item: 2, expect: EQUAL, make: () => {
    const ab = new ArrayBuffer(64);
    filled(new Uint8Array(ab), (i) => i * 3 + 1);
    const f = new Float64Array(ab, 8, 3);
    return { value: { f, i16: new Int16Array(ab, 2, 5), u8: new Uint8Array(ab).subarray(5, 17), tail: f.subarray(1), i32: new Int32Array(ab, 60, 1) } };
  } },
  { name: 'the same typed array twice (typed arrays may repeat)', item: 2, expect: EQUAL, make: () => {
    const t = filled(new Float64Array(3), (i) => i - 1.25);
    return { value: { pair: [t, t], m: new Map([['t', t]]) } };
  } },
  { name: 'NaN and -0 at any depth, infinities, large integers', item: 0, expect: EQUAL, make: () => ({ value: {
    z: -0, nan: NaN, deep: [[[-0, [NaN]]]], m: new Map<unknown, unknown>([['k', { z: -0 }], [1, [-0]]]), s: new Set([[-0], { n: NaN }]),
    inf: [Infinity, -Infinity], ints: [2 ** 53 - 1, -(2 ** 53), 2 ** 31, -(2 ** 31) - 1, 2 ** 32, 2 ** 64, 1e300, 5e-324, Number.MAX_VALUE, 0.1],
    big: [0n, -1n, 2n ** 63n - 1n, -(2n ** 63n)],
  } }) },
  { name: 'Dates (before 1970, far future, invalid)', item: 0, expect: EQUAL, make: () => ({ value: {
    d: [new Date(0), new Date(-1e12), new Date(8.64e15), new Date(-8.64e15), new Date(1234567890123), new Date(NaN)],
  } }) },
  { name: 'Maps with object, array, Date and typed-array keys; Sets of objects', item: 0, expect: EQUAL, make: () => ({ value: {
    m: new Map<unknown, unknown>([[{ a: 1 }, 'obj'], [[1, 2], 'arr'], [new Date(5), 'date'], [new Int32Array([7]), 'ta'], ['1', 'str'], [1, 'num'], [NaN, 'nan']]),
    s: new Set<unknown>([{ a: 1 }, [2], 'x', 3, new Map([[1, 2]])]),
    empty: [new Map(), new Set(), {}, []],
  } }) },
  { name: 'long strings, non-BMP characters, NUL, empty', item: 6, expect: EQUAL, make: () => ({ value: {
    long: LONG, emoji: '😀𝄞\u{10FFFF}', nul: 'a\u0000b', empty: '', [`k😀`]: 'non-BMP property name', m: new Map([['😀', '𝄞']]),
  } }) },
  { name: 'a non-BMP string key of a task', item: 6, expect: EQUAL, make: () => ({ key: 'key😀𝄞', value: 1 }) },
  { name: 'undefined in objects and arrays (not holes), null, booleans, numeric-like property names', item: 7, expect: EQUAL, make: () => ({ value: {
    u: undefined, arr: [undefined, 1, null], t: true, f: false, n: null, o: { '1': 'one', '-0': 'minus zero', '': 'empty', 'a b': 2 },
  } }) },
  // issue 55, item 8: plain objects msgpackr alone cannot write
  { name: 'issue 55: fields named constructor and toJSON (msgpackr threw "value.toJSON is not a function")', item: 0, expect: EQUAL, make: () => ({ value: {
    rec: { constructor: 'Point', toJSON: 1 }, m: new Map([[{ constructor: 'k', toJSON: 2 }, [{ toJSON: 3, constructor: 4 }]]]), z: { constructor: -0 },
  } }) },
  { name: 'issue 55: a task key with fields named constructor and toJSON', item: 0, expect: EQUAL, make: () => ({ key: { constructor: 'K', toJSON: 1 }, value: 1 }) },
  { name: 'issue 55: an object with 65,536 properties (msgpackr threw "16-bit map size")', item: 0, expect: EQUAL, make: () => ({ value: { wide: wide(65536) } }) },
  { name: 'ttg.Buffer in an object, as a Map value and key, and in a Set', item: 0, expect: EQUAL, make: () => {
    const b = (x: number) => new ttg.Buffer(filled(new Float64Array(3), (i) => x + i));
    return { value: { b: b(1), m: new Map<unknown, unknown>([['v', b(2)], [b(3), 'buffer key']]), s: new Set([b(4)]), i32: new ttg.Buffer(new Int32Array([5, 6])) } };
  } },
  { name: 'SharedArrayBuffer views arrive as a copy with the same contents', item: 0, expect: EQUAL, make: () => {
    const sab = new SharedArrayBuffer(32);
    filled(new Float64Array(sab), (i) => i * 1.5 - 2);
    return { value: { s: new Float64Array(sab), v: new Uint8Array(sab, 8, 8) } };
  } },
  { name: 'a registered split-metadata object as a Map value', item: 0, expect: EQUAL, make: () => ({ value: {
    m: new Map([['t', new Tagged({ n: 1, s: 'x' }, new Float64Array([1, 2, 3, 4]))]]),
  } }) },

  // ---- item 1
  { name: 'a DataView inside an object (arrives as 0 bytes)', item: 1, expect: refuse('value.tiles[3].data', /DataView/), make: () => {
    const dv = new DataView(new ArrayBuffer(16));
    dv.setFloat64(0, 3.25);
    return { value: { tiles: [0, 1, 2, { data: dv }] } };
  } },
  { name: 'a DataView as the whole value', item: 1, expect: refuse('value', /DataView/), make: () => ({ value: new DataView(new ArrayBuffer(8)) }) },

  // ---- item 2
  { name: 'the same array twice: [x, x]', item: 2, expect: refuse(/value\.pair\[[01]\]/, /same|twice|more than once|alias|shared|repeat|already|DAG/i), make: () => {
    const x = [1, 2];
    return { value: { pair: [x, x] } };
  } },
  { name: 'the same object at two places', item: 2, expect: refuse(/value\.(a|b\.c)\b/, /same|twice|more than once|alias|shared|repeat|already|DAG/i), make: () => {
    const o = { n: 1 };
    return { value: { a: o, b: { c: o } } };
  } },
  { name: 'the same Map twice (in a Set and an object)', item: 2, expect: refuse(/value/, /same|twice|more than once|alias|shared|repeat|already|DAG/i), make: () => {
    const m = new Map([[1, 2]]);
    return { value: { m, s: new Set([m]) } };
  } },
  { name: 'a cycle (already refused)', item: 2, expect: { code: 'E_SERIALIZE' }, make: () => {
    const o: Record<string, unknown> = { a: 1 };
    o['self'] = o;
    return { value: o };
  } },

  // ---- item 3
  { name: 'a Node Buffer (arrives as a Uint8Array)', item: 3, expect: refuse('value.blob', /Buffer/), make: () => ({ value: { blob: Buffer.from([1, 2, 3]) } }) },
  { name: 'a subclass of Float64Array', item: 3, expect: refuse('value.a', /F64/), make: () => ({ value: { a: filled(new F64(3), (i) => i) } }) },
  { name: 'a subclass of Uint8Array', item: 3, expect: refuse('value.list[1]', /U8/), make: () => ({ value: { list: [1, filled(new U8(3), (i) => i)] } }) },
  { name: 'a subclass of Map', item: 3, expect: refuse('value.m', /MyMap/), make: () => ({ value: { m: new MyMap([[1, 2]]) } }) },
  { name: 'a subclass of Set', item: 3, expect: refuse('value.s', /MySet/), make: () => ({ value: { s: new MySet([1]) } }) },
  { name: 'a subclass of Array', item: 3, expect: refuse('value.a', /MyArray/), make: () => ({ value: { a: MyArray.from([1, 2]) } }) },
  { name: 'a subclass of Date', item: 3, expect: refuse('value.d', /MyDate/), make: () => ({ value: { d: new MyDate(5) } }) },

  // ---- item 6
  { name: 'a lone surrogate in a string value (arrives as U+FFFD)', item: 6, expect: refuse('value.s[1]', /surrogate/i), make: () => ({ value: { s: ['ok', 'a\uD800b'] } }) },
  { name: 'a lone trailing surrogate at the end of a string', item: 6, expect: refuse('value.t', /surrogate/i), make: () => ({ value: { t: 'x\uDC00' } }) },
  { name: 'a lone surrogate in a property name', item: 6, expect: refuse(/value\.o/, /surrogate/i), make: () => ({ value: { o: { ['p\uD800']: 1 } } }) },
  { name: 'a lone surrogate in a Map key', item: 6, expect: refuse(/value\.m/, /surrogate/i), make: () => ({ value: { m: new Map([['k\uDFFF', 1]]) } }) },
  { name: 'a lone surrogate in the key of a task', item: 6, expect: { code: 'E_SERIALIZE', path: 'key', why: /surrogate/i }, make: () => ({ key: 'a\uD800b', value: 1 }) },

  // ---- item 7
  // issue 55, item 3: an own "__proto__" travels boxed (msgpackr alone read it back as "__proto_"), in values and keys
  { name: 'issue 55: an own "__proto__" property (arrived as "__proto_")', item: 7, expect: EQUAL, make: () => ({ value: JSON.parse('{"a": {"__proto__": 1, "b": 2}, "m": [{"__proto__": {"x": -1}}]}') as unknown }) },
  { name: 'issue 55: a task key with an own "__proto__" (arrived as another task\'s key)', item: 0, expect: EQUAL, make: () => ({ key: JSON.parse('{"__proto__": 1, "a": 2}') as unknown, value: 1 }) },
  { name: 'issue 55: a task key [1, {"__proto__": [2]}]', item: 0, expect: EQUAL, make: () => ({ key: [1, JSON.parse('{"__proto__": [2]}') as unknown], value: 'v' }) },
  // issue 55, item 2: a Map, Set, Date or typed array carries only its contents
  { name: 'issue 55: an own property of a Map (dropped)', item: 7, expect: refuse('value.m.tag', /own property of a Map/), make: () => ({ value: { m: Object.assign(new Map([[1, 2]]), { tag: 'x' }) } }) },
  { name: 'issue 55: a non-enumerable own property of a Set (dropped)', item: 7, expect: refuse('value.s.unit', /own property of a Set/), make: () => ({ value: { s: Object.defineProperty(new Set([1]), 'unit', { value: 'm' }) } }) },
  { name: 'issue 55: an own property of a Date (dropped)', item: 7, expect: refuse('value[0].zone', /own property of a Date/), make: () => ({ value: [Object.assign(new Date(5), { zone: 'UTC' })] }) },
  { name: 'issue 55: an own property of a small typed array (dropped)', item: 7, expect: refuse('value.t.unit', /own property of a typed array/), make: () => ({ value: { t: Object.assign(new Float64Array([1, 2]), { unit: 'm' }) } }) },
  { name: 'issue 55: a non-enumerable own property of a large typed array (dropped)', item: 7, expect: refuse('value.t.unit', /own property of a typed array/),
    make: () => ({ value: { t: Object.defineProperty(filled(new Int32Array(5000), (i) => i), 'unit', { value: 'm' }) } }) },
  { name: 'issue 55: a symbol-keyed property of a large typed array (dropped)', item: 7, expect: refuse('value.t', /symbol/), make: () => ({ value: { t: Object.assign(new Uint8Array(300), { [Symbol.for('ttg-test')]: 1 }) } }) },
  { name: 'issue 55: a typed array with an own "length" (dropped)', item: 7, expect: refuse('value.t.length', /own property of a typed array/), make: () => ({ value: { t: Object.defineProperty(new Float32Array(200), 'length', { value: 3 }) } }) },
  { name: 'issue 55: a typed array with an own property as the whole value to an integer key (no check ran on that path)', item: 7, expect: refuse('value.unit', /own property of a typed array/),
    make: () => ({ key: 7, value: Object.assign(filled(new Float64Array(4), (i) => i), { unit: 'm' }) }) },
  { name: 'issue 55: a large typed array with an own property as the whole value to an integer key', item: 7, expect: refuse('value.scale', /own property of a typed array/),
    make: () => ({ key: 8, value: Object.assign(filled(new Float64Array(40000), (i) => i), { scale: 2 }) }) },
  { name: 'issue 55: a Uint8Array whose own "constructor" names Float64Array, to an integer key', item: 7, expect: refuse('value.constructor', /own property of a typed array/),
    make: () => ({ key: 9, value: Object.assign(new Uint8Array([1, 2, 3]), { constructor: Float64Array }) }) },
  { name: 'a large typed array to an integer key', item: 0, expect: EQUAL, make: () => ({ key: 10, value: filled(new Float64Array(40000), (i) => i * 0.5) }) },
  { name: 'a symbol-keyed property (dropped)', item: 7, expect: refuse(/value\.a/, /symbol/i), make: () => ({ value: { a: { [Symbol.for('ttg-test')]: 1, b: 2 } } }) },
  { name: 'an array with holes [1,,3] (holes become undefined)', item: 7, expect: refuse(/value\.h/, /hole|sparse/i), make: () => ({ value: { h: [1, , 3] } }) },
  { name: 'an array with an extra non-index property (lost)', item: 7, expect: refuse(/value\.x/, /extra|propert/i), make: () => {
    const x: number[] & { extra?: number } = [1, 2];
    x.extra = 3;
    return { value: { x } };
  } },
  // issue 55, item 1: a hole and an extra property balance in a count of keys
  { name: 'issue 55: a hole plus an extra array property (arrived as [undefined])', item: 7, expect: refuse('value.a[0]', /hole/), make: () => ({ value: { a: Object.assign(new Array(1), { k: 0 }) } }) },
  { name: 'issue 55: holes and as many extra array properties', item: 7, expect: refuse('value.a[1]', /hole/), make: () => ({ value: { a: Object.assign([1, , 3, , 5], { j: 1, k: 2 }) } }) },
  { name: 'issue 55: a non-enumerable property of a plain object (dropped on the wire)', item: 7, expect: refuse('value.o.hidden', /non-enumerable/),
    make: () => ({ value: { o: Object.defineProperty({ a: 1 }, 'hidden', { value: 2 }) } }) },
  { name: 'issue 55: a non-enumerable extra array property (dropped)', item: 7, expect: refuse('value.a.tag', /only their elements/), make: () => ({ value: { a: Object.defineProperty([1, 2], 'tag', { value: 'x' }) } }) },
  { name: 'an object with a null prototype (gains Object.prototype)', item: 7, expect: refuse('value.n', /null/i), make: () => {
    const n = Object.create(null) as Record<string, number>;
    n['a'] = 1;
    return { value: { n } };
  } },

  // ---- unchanged refusals (regression guards)
  { name: 'a function', item: 0, expect: refuse('value.f', /function/), make: () => ({ value: { f: () => 1 } }) },
  { name: 'a symbol value', item: 0, expect: refuse('value.s', /symbol/i), make: () => ({ value: { s: Symbol('s') } }) },
  { name: 'an unregistered class instance', item: 0, expect: refuse('value.p', /Point/), make: () => ({ value: { p: new Point(1) } }) },

  // ---- item 8: broadcasts get the check too
  { name: 'a function broadcast (in one process: to local targets, where send gives E_SERIALIZE)', item: 8, via: 'broadcast', expect: refuse('value.f', /function/), make: () => ({ value: { f: () => 1 } }) },
  { name: 'a DataView broadcast', item: 8, via: 'broadcast', expect: refuse('value.dv', /DataView/), make: () => ({ value: { dv: new DataView(new ArrayBuffer(8)) } }) },
  { name: 'a function broadcast to local targets of a TT with a procmap', item: 8, via: 'broadcast-procmap', where: 'local', expect: refuse('value.f', /function/), make: () => ({ value: { f: () => 1 } }) },
  { name: 'a broadcast of a value that travels arrives equal at every target', item: 8, via: 'broadcast', expect: EQUAL, make: () => ({ value: { m: new Map([[{ k: 1 }, -0]]), t: new Float64Array([NaN, -0]) } }) },

  // ---- item 9 (one process: a detached array; the mpirun program has the real move)
  { name: 'a detached typed array inside an object', item: 9, where: 'local', expect: { code: 'E_MOVED' }, make: () => ({ value: { a: { b: detached(4) } } }) },
  { name: 'a detached typed array inside an array', item: 9, where: 'local', expect: { code: 'E_MOVED' }, make: () => ({ value: [1, detached(64)] }) },
  { name: 'a detached typed array as a Map value', item: 9, where: 'local', expect: { code: 'E_MOVED' }, make: () => ({ value: new Map([['a', detached(2)]]) }) },
  { name: 'a detached typed array as the whole value', item: 9, where: 'local', expect: { code: 'E_MOVED' }, make: () => ({ value: detached(4) }) },

  // ---- items 4 and 5: split metadata
  { name: 'a Map in split metadata (arrives as a plain object)', item: 4, split: true, expect: EQUAL, make: () => ({ value: { t: new Tagged({ m: new Map([[1, 'a']]) }, new Float64Array([1, 2, 3, 4])) } }) },
  { name: '-0 in split metadata (arrives as +0)', item: 4, split: true, expect: EQUAL, make: () => ({ value: { t: new Tagged({ z: -0, l: [-0] }, new Float64Array(4)) } }) },
  { name: 'issue 55: split metadata with fields named constructor and toJSON', item: 4, split: true, expect: EQUAL, make: () => ({ value: { t: new Tagged({ constructor: 'P', toJSON: 1 }, new Float64Array(4)) } }) },
  // issue 55, item 9: more than 16 parts travel packed; the receiver's arrays have other element types
  ...[17, 18, 30].map((n): Case => ({ name: `issue 55: a split object of ${n} parts received into arrays of other element types`, item: 0, split: true, expect: EQUAL,
    make: () => ({ value: { f: fields(n) } }) })),
  { name: 'a function in split metadata (arrives as undefined)', item: 4, split: true, expect: refuse(/value\.t/, /function/), make: () => ({ value: { t: new Tagged({ f: () => 1 }, new Float64Array(4)) } }) },
  { name: 'an unregistered class in split metadata (arrives as a plain object)', item: 4, split: true, expect: refuse(/value\.t/, /Point/), make: () => ({ value: { t: new Tagged({ p: new Point(2) }, new Float64Array(4)) } }) },
  { name: 'a typed array in split metadata of the same size as the data (payloads swap)', item: 4, split: true, expect: { equalOrRefused: true }, make: () => ({
    value: { t: new Tagged({ idx: new Float64Array([9, 8, 7, 6]) }, new Float64Array([1, 2, 3, 4])) },
  }) },
  { name: 'a DataView in split metadata', item: 4, split: true, expect: refuse(/value\.t/, /DataView/), make: () => ({ value: { t: new Tagged({ dv: new DataView(new ArrayBuffer(8)) }, new Float64Array(4)) } }) },
  { name: 'a Float64Array subclass as split data, 128 B (staged send)', item: 5, split: true, alone: true, expect: { equalOrRefused: true }, make: () => ({
    value: { t: new MatTile(4, 4, filled(new Mat(4, 4), (i) => i + 0.5)) },
  }) },
  { name: 'a Float64Array subclass as split data, 8 KiB (eager send; arrives all zeros)', item: 5, split: true, alone: true, expect: { equalOrRefused: true }, make: () => ({
    value: { t: new MatTile(32, 32, filled(new Mat(32, 32), (i) => i + 0.5)) },
  }) },
  { name: 'a Float64Array subclass as split data, 256 KiB', item: 5, split: true, alone: true, expect: { equalOrRefused: true }, make: () => ({
    value: { t: new MatTile(128, 256, filled(new Mat(128, 256), (i) => i + 0.5)) },
  }) },
];

/** Item 9 across ranks (test/mpi/value-roundtrip.ts, mode moved): how the moved array is sent again. */
export const MOVED = ['a moved array re-sent inside an object', 'a moved array re-sent inside an array', 'a moved array re-sent as a Map value'];

/** DAG cases (run apart: today the 40-deep one never finishes encoding). */
export const DAG_CASES: Case[] = [
  { name: 'a DAG v = [v, v] 20 deep (a 2 MB header today)', item: 2, expect: refuse(/value\[[01]\]/, /same|twice|more than once|alias|shared|repeat|already|DAG/i), make: () => ({ value: dag(20) }) },
  { name: 'a DAG v = [v, v] 40 deep (hangs the sender today)', item: 2, expect: refuse(/value\[[01]\]/, /same|twice|more than once|alias|shared|repeat|already|DAG/i), make: () => ({ value: dag(40) }) },
];

// ---------------------------------------------------------------------------------------------
// outcomes

/** What a receiver (or the fence) saw for one case. */
export interface Outcome {
  name: string;
  /** `equal`, `changed` (diff says where), `error` (code, message), `missing` (no error, no arrival). */
  kind: 'equal' | 'changed' | 'error' | 'missing';
  diff?: string;
  code?: string;
  message?: string;
  /** The error's cause, when it has one (E_HANG, E_TASK_FAILED). */
  cause?: string;
  ms?: number;
}

/** Failure text for `o` against `e`, or undefined when it meets it. */
export function judge(e: Expect, o: Outcome): string | undefined {
  const saw = o.kind === 'error' ? `${o.code}: ${o.message}${o.cause !== undefined ? ` (cause: ${o.cause})` : ''}` : o.kind === 'changed' ? `arrived changed: ${o.diff}` : o.kind;
  if ('equal' in e) return o.kind === 'equal' ? undefined : `must arrive equal, but ${saw}`;
  if ('equalOrRefused' in e) {
    if (o.kind === 'equal' || (o.kind === 'error' && o.code === 'E_SERIALIZE')) return undefined;
    return `must arrive equal or be refused with E_SERIALIZE, but ${saw}`;
  }
  if (o.kind !== 'error') return `must be refused with ${e.code}, but was not refused (${o.kind === 'equal' ? 'it arrived equal' : saw})`;
  if (o.code !== e.code) return `must be refused with ${e.code}, but ${saw}`;
  const msg = o.message ?? '';
  if (e.path !== undefined && !(typeof e.path === 'string' ? msg.includes(e.path) : e.path.test(msg))) return `the message must name the path ${String(e.path)}: ${msg}`;
  if (e.why !== undefined && !e.why.test(msg)) return `the message must say what is wrong (${String(e.why)}): ${msg}`;
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// seeded random values

/** What the generator made: the value and what must happen to it. */
export interface Generated {
  value: unknown;
  /** `equal`: nothing hostile inside; `refuse`: one hostile element at `paths`; `either`: may travel or be refused. */
  verdict: 'equal' | 'refuse' | 'either';
  /** Paths the refusal may name (several for an alias); undefined when under a Map or Set or an odd name. */
  paths?: string[];
  /** What the hostile element is. */
  what?: string;
}

const TYPED_CTORS = [Float64Array, Float32Array, Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, BigInt64Array, BigUint64Array] as const;
const SPECIAL_NUMBERS = [-0, 0, NaN, Infinity, -Infinity, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, 2 ** 31, -(2 ** 31) - 1, 2 ** 32, 2 ** 64, 5e-324, Number.MAX_VALUE, 0.1, -1.5, 1e21];
const CHARS = ['a', 'Z', '0', ' ', 'é', '中', '😀', '𝄞', '\u0000', '\n', '"', '\\', '\u{10FFFF}', '\uFFFD'];
const NAMES = ['a', 'b', 'data', 'x1', '_y', '$', 'tiles', 'length', 'constructor', 'toString', '1', '0', '', 'a b', 'é', '😀k', '-0', 'hasOwnProperty', 'toJSON', '__proto__', 'valueOf'];

/**
 * A random value from `seed` (the same on every rank): plain objects (fields named `constructor`,
 * `toJSON`, `__proto__` among them; rarely more than 65,535 of them), arrays, Maps, Sets, Dates,
 * typed arrays (views with offsets, SharedArrayBuffer-backed, repeated), numbers, bigints,
 * strings; with probability about `hostileRate` one hostile element somewhere (own properties of
 * Maps, Sets, Dates and typed arrays, non-enumerable properties, holes with extra properties...).
 */
export function generate(seed: number, hostileRate = 0.25): Generated {
  const r = rng(seed);
  const int = (n: number) => Math.floor(r() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const wantHostile = r() < hostileRate;
  const hostileP = pick([0.03, 0.1, 0.3]);
  const out: Generated = { value: undefined, verdict: 'equal' };
  const typedMade: ArrayBufferView[] = [];
  const objectsMade: { obj: object; path: string | undefined }[] = [];
  let nodes = 0;

  const str = (): string => {
    if (r() < 0.03) return 'long😀'.repeat(500 + int(2000));
    let s = '';
    for (let i = int(10); i > 0; i--) s += pick(CHARS);
    return s;
  };
  const num = (): number => {
    const c = r();
    if (c < 0.35) return pick(SPECIAL_NUMBERS);
    if (c < 0.7) return int(2 ** 20) - 2 ** 19;
    return (r() - 0.5) * 10 ** int(30);
  };
  const typed = (): ArrayBufferView => {
    if (typedMade.length > 0 && r() < 0.1) return pick(typedMade);
    const C = pick(TYPED_CTORS);
    const n = int(12);
    const per = C.BYTES_PER_ELEMENT;
    let a: ArrayBufferView & { length: number; [i: number]: number | bigint };
    const kind = r();
    if (kind < 0.2) {
      const off = int(4) * per;
      a = new C(new ArrayBuffer(off + n * per + int(3) * per), off, n) as never;
    } else if (kind < 0.3) {
      a = new C(new SharedArrayBuffer((n + 1) * per) as unknown as ArrayBuffer, per, n) as never;
    } else if (kind < 0.4 && typedMade.length > 0) {
      // another view of the buffer of an earlier array (overlapping it)
      const prev = pick(typedMade);
      const m = Math.floor(prev.byteLength / per);
      a = new C(prev.buffer as ArrayBuffer, prev.byteOffset - (prev.byteOffset % per), Math.max(0, m - 1)) as never;
      typedMade.push(a);
      return a;
    } else {
      a = new C(n) as never;
    }
    const big = C === BigInt64Array || C === BigUint64Array;
    for (let i = 0; i < a.length; i++) {
      if (big) a[i] = BigInt(int(2 ** 30)) * BigInt(int(2 ** 30)) * (C === BigInt64Array && r() < 0.5 ? -1n : 1n);
      else if (C === Float64Array || C === Float32Array) a[i] = r() < 0.3 ? pick(SPECIAL_NUMBERS) : (r() - 0.5) * 1000;
      else a[i] = int(70000) - 35000;
    }
    typedMade.push(a);
    return a;
  };

  /** A hostile element at `path` (undefined: a path the message format is not fixed for). */
  const hostile = (path: string | undefined): unknown => {
    const made = (what: string, v: unknown, verdict: 'refuse' | 'either' = 'refuse') => {
      out.verdict = verdict;
      out.what = what;
      if (path !== undefined) out.paths = [path];
      return v;
    };
    switch (int(15)) {
      case 0: return made('a DataView', new DataView(new ArrayBuffer(8 + int(8))));
      case 1: return made('a Node Buffer', Buffer.from([1, 2, 3]));
      case 2: return made('a Float64Array subclass', new F64(3));
      case 3: return made('a Map subclass', new MyMap([[1, 2]]));
      case 4: return made('an Array subclass', MyArray.from([1]));
      case 5: return r() < 0.5 ? made('a hole', [1, , 3]) : made('a hole and an extra property', Object.assign(new Array(1), { k: 0 }));
      case 6: return made('a null-prototype object', Object.assign(Object.create(null) as object, { a: 1 }));
      case 7: {
        // issue 55, item 2: a Map, Set, Date or typed array carries only its contents
        const carrier = pick<() => object>([() => new Map([[1, 2]]), () => new Set(['a']), () => new Date(7), () => new Float64Array(1 + int(3)), () => new Int16Array(100 + int(300))])();
        const name = pick(['tag', 'unit', 'length', '0x', 'size']);
        Object.defineProperty(carrier, name, { value: int(9), enumerable: r() < 0.5, writable: true, configurable: true });
        out.verdict = 'refuse';
        out.what = `an own property of a ${carrier.constructor.name}`;
        if (path !== undefined) out.paths = [step(path, name)];
        return carrier;
      }
      case 8: return made('a symbol key', { [Symbol('k')]: 1 });
      case 9: return made('a lone surrogate', `ab${pick(['\uD800', '\uDBFF', '\uDC00', '\uDFFF'])}${r() < 0.5 ? 'c' : ''}`);
      case 10: return made('a function', () => 1);
      case 11: return made('an unregistered class instance', new Point(1));
      case 12: {
        if (r() < 0.5) {
          const o = Object.defineProperty({ a: 1 }, 'hidden', { value: 2, enumerable: false });
          out.verdict = 'refuse';
          out.what = 'a non-enumerable property of a plain object';
          if (path !== undefined) out.paths = [step(path, 'hidden')];
          return o;
        }
        const x: number[] & { extra?: number } = [1];
        x.extra = 2;
        return made('an extra array property', x);
      }
      case 13: return made('a Date subclass', new MyDate(0));
      default: {
        const earlier = objectsMade.filter((o) => !(path ?? '').startsWith(o.path ?? '\u0001'));
        if (earlier.length === 0) return made('a Set subclass', new MySet([1]));
        const o = pick(earlier);
        out.verdict = 'refuse';
        out.what = 'the same object twice';
        if (path !== undefined && o.path !== undefined) out.paths = [path, o.path];
        return o.obj;
      }
    }
  };

  const gen = (depth: number, path: string | undefined): unknown => {
    nodes++;
    if (wantHostile && out.verdict === 'equal' && r() < hostileP) return hostile(path);
    const leaf = depth >= 4 || r() < 0.35 || nodes > 200;
    if (leaf) {
      switch (int(10)) {
        case 0: case 1: return num();
        case 2: case 3: return str();
        case 4: return typed();
        case 5: return new Date(r() < 0.05 ? NaN : Math.round((r() - 0.5) * 2e13));
        case 6: return pick([null, undefined, true, false]);
        case 7: {
          if (r() < 0.05 && out.verdict === 'equal') {
            out.verdict = 'either';
            out.what = 'a BigInt outside 64 bits';
            return 2n ** 70n + BigInt(int(100));
          }
          return BigInt(int(2 ** 31)) * BigInt(int(2 ** 31)) * (r() < 0.5 ? -1n : 1n);
        }
        case 8: return new ttg.Buffer(new Float64Array([num(), num()]));
        default: return num();
      }
    }
    const n = int(5);
    switch (int(4)) {
      case 0: {
        const a: unknown[] = [];
        objectsMade.push({ obj: a, path });
        for (let i = 0; i < n; i++) a.push(gen(depth + 1, path === undefined ? undefined : step(path, i)));
        return a;
      }
      case 1: {
        const m = new Map<unknown, unknown>();
        objectsMade.push({ obj: m, path });
        for (let i = 0; i < n; i++) {
          const k = r() < 0.6 ? pick<unknown>([num(), str(), int(10), true, null]) : gen(depth + 1, undefined);
          if (m.has(k)) continue; // a value set twice would hide the first one
          m.set(k, gen(depth + 1, undefined));
        }
        return m;
      }
      case 2: {
        const s = new Set<unknown>();
        objectsMade.push({ obj: s, path });
        for (let i = 0; i < n; i++) {
          const x = r() < 0.5 ? num() : gen(depth + 1, undefined);
          // a Set keeps one of each: an object added twice is not there twice
          if (s.has(x) && typeof x === 'object' && out.what === 'the same object twice') {
            out.verdict = 'equal';
            out.what = undefined;
            out.paths = undefined;
          }
          s.add(x);
        }
        return s;
      }
      default: {
        const o: Record<string, unknown> = {};
        objectsMade.push({ obj: o, path });
        for (let i = 0; i < n; i++) {
          const k = r() < 0.8 ? pick(NAMES) : str();
          if (Object.prototype.hasOwnProperty.call(o, k)) continue;
          const odd = !IDENT.test(k) || INDEX.test(k) || k === '__proto__';
          // an own "__proto__" is a key like any other (defined, not set)
          Object.defineProperty(o, k, { value: gen(depth + 1, path === undefined || odd ? undefined : step(path, k)), enumerable: true, writable: true, configurable: true });
        }
        return o;
      }
    }
  };
  // now and then a value msgpackr alone cannot write: more than 65,535 properties
  out.value = r() < 0.002 ? { wide: wide(65536 + int(100)), v: gen(1, 'value.v') } : gen(0, 'value');
  if (wantHostile && out.verdict === 'equal') {
    const v = [out.value];
    objectsMade.push({ obj: v, path: 'value' });
    v.push(hostile('value[1]'));
    out.value = v;
  }
  return out;
}

/** Failure text of a generated value's outcome, or undefined. */
export function judgeGenerated(g: Generated, o: Outcome): string | undefined {
  if (g.verdict === 'equal') return judge({ equal: true }, o);
  if (g.verdict === 'either') return judge({ equalOrRefused: true }, o);
  const e = judge({ code: 'E_SERIALIZE' }, o);
  if (e !== undefined) return `${g.what}: ${e}`;
  if (g.paths !== undefined && !g.paths.some((p) => new RegExp(`${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w$])`).test(o.message ?? ''))) {
    return `${g.what}: the message must name the path ${g.paths.join(' or ')}: ${o.message}`;
  }
  return undefined;
}

/** What one delivery made of a case: the fence's error, or the arrivals compared with what `m` makes again. */
export async function settleRun(name: string, m: () => { key?: unknown; value: unknown }, how: NonNullable<Case['via']>,
  arrived: readonly { key: unknown; value: unknown }[], t0: number): Promise<Outcome> {
  try {
    await ttg.fence({ quiet: true });
  } catch (e) {
    const err = e as ttg.TtgError;
    return { name, kind: 'error', code: err.code ?? `not a TtgError (${(e as Error)?.name})`, message: err.message, cause: causeOf(err), ms: performance.now() - t0 };
  }
  const ms = performance.now() - t0;
  const want = how === 'send' ? 1 : 2;
  if (arrived.length !== want) return { name, kind: 'missing', diff: `${arrived.length} of ${want} arrivals`, ms };
  for (const a of arrived) {
    const expected = m();
    const diff = (how === 'send' && expected.key !== undefined ? strictDiff(expected.key, a.key, 'key') : undefined) ?? strictDiff(expected.value, a.value);
    if (diff !== undefined) return { name, kind: 'changed', diff, ms };
  }
  return { name, kind: 'equal', ms };
}

/**
 * Issue 55, item 4: the cases `world.broadcast` must treat as a send (not those that need a key,
 * a task or local tricks), and the DAGs, which must be refused at once.
 */
export const WORLD_CASES: Case[] = [...CASES.filter((c) => c.where !== 'local' && c.alone !== true && c.via === undefined && c.make().key === undefined), ...DAG_CASES,
  // one the rules let through and the comparison of TTG_CHECK_SERIALIZE=1 catches (issue 55, item 7)
  { name: 'a non-enumerable property of a plain object (TTG_CHECK_SERIALIZE=1 decodes and compares)', item: 0, where: 'local', expect: refuse(/value\.o/, /./),
    make: () => ({ value: { o: Object.defineProperty({ a: 1 }, 'hidden', { value: 2 }) } }) }];

/** `world.broadcast` of what `c` makes from rank 0; every rank compares what it got with a fresh `c.make()`. */
export async function worldBroadcastRun(world: { rank: number; broadcast<T>(x: T, root?: number): Promise<T> }, c: Case): Promise<Outcome> {
  const t0 = performance.now();
  try {
    const got = await world.broadcast(world.rank === 0 ? c.make().value : undefined, 0);
    const ms = performance.now() - t0;
    const diff = strictDiff(c.make().value, got);
    return diff === undefined ? { name: c.name, kind: 'equal', ms } : { name: c.name, kind: 'changed', diff, ms };
  } catch (e) {
    const err = e as ttg.TtgError;
    return { name: c.name, kind: 'error', code: err.code ?? `not a TtgError (${(e as Error)?.name})`, message: err.message, cause: causeOf(err), ms: performance.now() - t0 };
  }
}

/** The message of an error's cause (an E_HANG's names the error recorded meanwhile), if any. */
export function causeOf(e: { cause?: unknown } | undefined): string | undefined {
  const c = e?.cause;
  return c instanceof Error ? `${(c as { code?: string }).code ?? c.name}: ${c.message}` : undefined;
}
