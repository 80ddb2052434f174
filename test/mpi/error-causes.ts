/**
 * What a failing task threw, on every rank (run by test/mpi/error-causes.test.ts under mpirun; its
 * generator, view and comparison are shared with test/transport/error-cause.test.ts).
 *
 * `node error-causes.js <seed> <dir>`: for each value of {@link throwables}, a task on the last
 * rank throws it and every rank appends a line `<json>` to `<dir>/rank-<rank>.jsonl` (its own file:
 * mpirun interleaves long lines of several ranks): the {@link view} of the cause its fence
 * rejected with, or `rejected: false`; then the next value goes. The job ends with
 * `ttg.finalize()`, exit 0.
 * The last rank's view is what the thrower sees locally; {@link arrivalProblems} says whether another
 * rank's view is that value intact or a well-formed stand-in where the value cannot travel.
 */
import { createHash } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import * as ttg from 'ttg';

/** A value to throw: `make` builds a fresh one; `text`: paths (in {@link arrivalProblems}) that arrive as stand-in text. */
export interface Throwable {
  label: string;
  make: () => unknown;
  text: string[];
  /** Paths that arrive as text only on ranks where the thrower's split class is not registered. */
  textElsewhere?: string[];
}

/** A split-metadata class every rank registers: arrives intact, its arrays included. */
export class CauseTile {
  constructor(readonly rows: number, readonly data: Float32Array, readonly tags: Int16Array) {}
}
/** A split-metadata class only the thrower registers: elsewhere it arrives as text. */
export class OnlyOnThrower {
  constructor(readonly data: Uint32Array) {}
}
/** A class nobody registers. */
class Point {
  constructor(readonly x: number, readonly y: number) {}
}
class MyRange extends RangeError {
  constructor(m: string, readonly extra: Float64Array) {
    super(m);
    this.name = 'MyRange';
  }
}

/** Registers {@link CauseTile} (and {@link OnlyOnThrower} where `thrower`). */
export function registerClasses(thrower: boolean): void {
  ttg.register_split_metadata(CauseTile, {
    get_metadata: (t) => ({ rows: t.rows, n: t.data.length, m: t.tags.length }),
    get_data: (t) => [t.data, t.tags],
    create_from_metadata: (m) => new CauseTile(m.rows, new Float32Array(m.n), new Int16Array(m.m)),
  });
  if (thrower) {
    ttg.register_split_metadata(OnlyOnThrower, {
      get_metadata: (t) => t.data.length,
      get_data: (t) => [t.data],
      create_from_metadata: (n) => new OnlyOnThrower(new Uint32Array(n)),
    });
  }
}

/** mulberry32: the same values on every rank for one seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TYPED = [Float64Array, Float32Array, Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array,
  Int32Array, Uint32Array, BigInt64Array, BigUint64Array] as const;

/** Every value {@link throwables} throws, for one seed (same seed, same values, on every rank). */
export function throwables(seed: number): Throwable[] {
  const rnd = prng(seed);
  const int = (n: number) => Math.floor(rnd() * n);
  /** Random bytes for an array of class `C`: NaN, -0 and every bit pattern included. */
  const typed = (C: (typeof TYPED)[number], n = 1 + int(9)) => {
    const a = new C(n);
    const bytes = new Uint8Array(a.buffer);
    for (let i = 0; i < bytes.length; i++) bytes[i] = int(256);
    if (a instanceof Float64Array && n > 1) [a[0], a[1]] = [-0, NaN];
    return a;
  };
  const out: Throwable[] = [];
  const add = (label: string, make: () => unknown, text: string[] = [], more: Partial<Throwable> = {}) => out.push({ label, make, text, ...more });

  // the issue's examples
  add('issue: Float64Array in an error', () => Object.assign(new Error('x'), { data: Float64Array.of(1.5, 2.5, 3.5) }));
  add('issue: lone surrogate in a message', () => new Error('label: ' + '😀'.slice(0, 1)));
  add('issue: message is an object with toString', () => Object.assign(new Error(), { message: { toString: () => 'from toString' } }));
  add('issue: name is a Symbol', () => Object.assign(new Error('named'), { name: Symbol('boom') }));

  // strings cut at every position of emoji (a flag, a skin tone, a family: surrogate pairs and joiners)
  const emoji = ['😀', '👍🏽', '🇫🇷', '👨‍👩‍👧'][int(4)]! + 'é' + ['😀', '🙂'][int(2)]!;
  for (let i = 0; i <= emoji.length; i++) {
    const head = emoji.slice(0, i), tail = emoji.slice(i);
    const wf = (s: string) => (s as string & { isWellFormed(): boolean }).isWellFormed();
    add(`message cut at ${i}`, () => new Error(`label: ${head}`));
    add(`thrown string cut at ${i}`, () => tail, wf(tail) ? [] : ['value']);
    add(`name and property cut at ${i}`, () => Object.assign(new TypeError('t'), { name: head, tag: tail, [head]: 1 }),
      [...(wf(tail) ? [] : ['props.tag'])]);
  }

  // text fields that are not strings
  add('message is a number', () => Object.assign(new Error(), { message: 42 }));
  add('message whose toString throws', () => Object.assign(new Error(), { message: { toString() { throw new Error('no text'); } } }), []);
  add('message is a Symbol', () => Object.assign(new Error(), { message: Symbol('msg') }), []);
  add('name is a Symbol without description', () => Object.assign(new Error('anon'), { name: Symbol() }));
  add('name getter throws', () => Object.defineProperty(new Error('n'), 'name', { get() { throw new Error('no name'); } }));
  add('stack is deleted', () => {
    const e = new Error('no stack');
    delete e.stack;
    return e;
  });
  add('property getter throws', () => Object.defineProperty(new Error('p'), 'bad', { get() { throw new Error('no'); }, enumerable: true }), ['props.bad']);

  // values that cannot travel, thrown bare
  add('object whose toString throws', () => ({ toString() { throw new Error('no'); } }), ['value']);
  add('null-prototype object', () => Object.assign(Object.create(null) as object, { a: 1 }), ['value']);
  add('class instance', () => new Point(int(100), int(100)), ['value']);
  add('cycle', () => {
    const o: Record<string, unknown> = { a: int(10) };
    o['self'] = o;
    return o;
  }, ['value']);
  add('shared object', () => {
    const s = { n: int(10) };
    return { a: s, b: s };
  }, ['value']);
  add('symbol', () => Symbol('thrown'), ['value']);
  add('function', () => function thrownFunction() {}, ['value']);
  add('Buffer', () => Buffer.from([1, 2, 3]), ['value']);
  add('DataView', () => new DataView(new ArrayBuffer(8)), ['value']);
  add('BigInt beyond 64 bits', () => 2n ** 70n + BigInt(int(1000)), ['value']);
  add('error inside an object', () => ({ err: new Error('inside') }), ['value']);
  add('split class elsewhere unknown', () => new OnlyOnThrower(typed(Uint32Array) as Uint32Array), [], { textElsewhere: ['value'] });

  // values that travel
  add('null', () => null);
  add('undefined', () => undefined);
  add('number -0', () => -0);
  add('NaN', () => NaN);
  add('BigInt', () => BigInt(int(1e9)) * 1_000_000_007n);
  add('negative BigInt', () => -(2n ** 63n));
  add('Date', () => new Date(int(2e12)));
  add('frozen object', () => Object.freeze({ a: int(10), b: Object.freeze([1, 'two', null]), c: Object.freeze({ d: 'x' }) }));
  add('Map and Set', () => new Map<unknown, unknown>([[int(10), new Set(['a', int(5)])], ['k', [1n, -0]]]));
  add('nested typed arrays', () => ({ a: typed(Float32Array), b: [typed(Int8Array), { c: typed(BigUint64Array) }], m: new Map([['t', typed(Uint16Array)]]) }));
  add('a view into a larger buffer', () => new Float64Array(typed(Float64Array, 16).buffer, 8 * (1 + int(4)), 5));
  add('empty typed array', () => new Int32Array(0));
  add('split class', () => new CauseTile(3, typed(Float32Array) as Float32Array, typed(Int16Array) as Int16Array));
  add('split class in an error', () => Object.assign(new Error('tile'), { tile: new CauseTile(2, typed(Float32Array) as Float32Array, typed(Int16Array) as Int16Array) }));
  for (const C of TYPED) {
    add(`${C.name} in an error`, () => Object.assign(new Error(`has ${C.name}`), { data: typed(C), more: [typed(C)] }));
    add(`${C.name} thrown`, () => typed(C));
  }

  // errors: classes, properties, causes
  for (const C of [TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError]) {
    add(C.name, () => Object.assign(new C(`a ${C.name}`), { code: `E_${int(100)}` }));
  }
  add('subclass of RangeError', () => new MyRange('mine', typed(Float64Array) as Float64Array));
  add('AggregateError', () => new AggregateError([new Error('one')], 'many'));
  add('DOMException', () => new DOMException('stop', 'AbortError'));
  add('frozen error', () => Object.freeze(Object.assign(new Error('frozen'), { n: int(10) })));
  add('error with a callback and a cycle', () => {
    const e = Object.assign(new Error('mixed'), { callback: () => 0, ok: [1, 2] });
    return Object.assign(e, { self: e, point: new Point(1, 2) });
  }, ['props.self', 'props.point']);
  add('nested causes, six deep', () => {
    let e: unknown = { last: typed(Int32Array) };
    for (let i = 6; i >= 1; i--) e = new (i % 2 === 0 ? TypeError : Error)(`level ${i}`, { cause: e });
    return e;
  });
  add('cause with typed arrays and a lone surrogate', () => new Error('outer', {
    cause: Object.assign(new RangeError('inner \ud800'), { data: typed(Float64Array) }, { cause: typed(Uint8Array) }),
  }));
  add('cause is itself', () => {
    const e = new Error('loop');
    (e as Error & { cause: unknown }).cause = e;
    return e;
  });
  add('8 MB message', () => new Error('m'.repeat(8 << 20) + '😀'));
  add('8 MB typed array in an error', () => Object.assign(new Error('big'), { data: typed(Float64Array, 1 << 20) }));
  return out;
}

/** A JSON description of a value, exact enough to compare what ranks got (long contents hashed). */
export type View = { t: string; [k: string]: unknown };
/** A name, message or stack: its value, and the text it should arrive as (null: no text can be predicted). */
interface Field { v: View; text: View | null }

const LONG = 512;
const hash = (b: Uint8Array) => createHash('sha256').update(b).digest('hex').slice(0, 16);
const BUILT_IN = [Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError];

function stringView(s: string): View {
  const wf = (s as string & { isWellFormed(): boolean }).isWellFormed();
  return { t: 'string', s: s.length > LONG ? `${s.length} units #${hash(Buffer.from(s, 'utf16le'))}` : s, wf };
}

/** The text a name, message or stack should arrive as (independent of the implementation): null if it cannot be said. */
function fieldText(x: unknown): View | null {
  try {
    if (x === undefined) return { t: 'undefined' };
    const s = typeof x === 'string' ? x : typeof x === 'symbol' ? x.description ?? '' : String(x);
    return stringView((s as string & { toWellFormed(): string }).toWellFormed());
  } catch {
    return null;
  }
}

/** {@link View} of `v`; never throws (what cannot be looked at is `unviewable`). */
export function view(v: unknown, seen: Set<object> = new Set()): View {
  try {
    switch (typeof v) {
      case 'undefined': return { t: 'undefined' };
      case 'string': return stringView(v);
      case 'number': return { t: 'number', n: Object.is(v, -0) ? '-0' : String(v) };
      case 'bigint': return { t: 'bigint', n: String(v) };
      case 'boolean': return { t: 'boolean', b: v };
      case 'symbol': return { t: 'symbol', s: String(v) };
      case 'function': return { t: 'function' };
      default:
    }
    if (v === null) return { t: 'null' };
    const o = v as object;
    if (seen.has(o)) return { t: 'cycle' };
    seen.add(o);
    if (ArrayBuffer.isView(o)) {
      const b = new Uint8Array(o.buffer, o.byteOffset, o.byteLength);
      return { t: 'typed', ctor: o.constructor.name, n: b.length, data: b.length > LONG ? hash(b) : Buffer.from(b).toString('hex') };
    }
    if (o instanceof Date) return { t: 'Date', n: o.getTime() };
    if (o instanceof Map) return { t: 'Map', e: [...o].map(([k, x]) => [view(k, seen), view(x, seen)]) };
    if (o instanceof Set) return { t: 'Set', e: [...o].map((x) => view(x, seen)) };
    if (Array.isArray(o)) return { t: 'Array', e: o.map((x) => view(x, seen)) };
    const own = (skip: string[]) => Object.keys(o).filter((k) => !skip.includes(k)).map((k) => {
      try {
        return [k, view((o as Record<string, unknown>)[k], seen)];
      } catch {
        return [k, { t: 'unviewable' }];
      }
    });
    if (o instanceof Error) {
      const field = (k: string): Field => {
        let x: unknown;
        try {
          x = (o as unknown as Record<string, unknown>)[k];
        } catch {
          return { v: { t: 'unviewable' }, text: null };
        }
        return { v: view(x, seen), text: fieldText(x) };
      };
      let builtin = 'Error';
      for (let p = Object.getPrototypeOf(o) as object | null; p !== null; p = Object.getPrototypeOf(p) as object | null) {
        const c = BUILT_IN.find((b) => b.prototype === p);
        if (c !== undefined) {
          builtin = c.name;
          break;
        }
      }
      return {
        t: 'error', ctor: o.constructor.name, builtin, name: field('name'), message: field('message'), stack: field('stack'),
        own: own(['name', 'message', 'stack', 'cause']), ...('cause' in o ? { cause: view(o.cause, seen) } : {}),
      };
    }
    const proto = Object.getPrototypeOf(o) as { constructor?: { name?: string } } | null;
    return { t: 'object', proto: proto === null ? 'null' : String(proto.constructor?.name), o: own([]) };
  } catch {
    return { t: 'unviewable' };
  }
}

/** Causes travel this many levels deep (src/transport/error-cause.ts). */
const DEPTH = 4;
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
// ES2024's String.prototype.toWellFormed (Node 20 has it; this TypeScript lib is ES2023)
const toWellFormed = (s: unknown) => (String(s) as string & { toWellFormed(): string }).toWellFormed();

/**
 * How `got` (a view of a cause on another rank) differs from what should arrive of `local` (the
 * view of what the task threw, on its rank): the value intact, or at the paths in `text` a
 * well-formed string; an error rebuilt as its nearest built-in class with its name, message and
 * stack as text, its own properties (functions left out) and its causes four levels deep.
 */
export function arrivalProblems(local: View, got: View | undefined, text: readonly string[], path = 'value', depth = 0): string[] {
  const at = (what: string) => [`${path}: ${what} (local ${JSON.stringify(local).slice(0, 300)}, got ${JSON.stringify(got).slice(0, 300)})`];
  if (depth >= DEPTH) return got === undefined || got.t === 'undefined' ? [] : at('beyond four levels of causes nothing should arrive');
  if (got === undefined) return at('nothing arrived');
  if (text.includes(path)) {
    if (got.t !== 'string' || got['wf'] !== true || got['s'] === '') return at('a well-formed, non-empty stand-in text should arrive');
    if (local.t === 'string' && got['s'] !== toWellFormed(local['s'])) {
      return at('a string should arrive with U+FFFD for its lone surrogates');
    }
    return [];
  }
  if (local.t !== 'error') return same(local, got) ? [] : at('the value should arrive intact');
  if (got.t !== 'error') return at('an error should arrive');
  const problems: string[] = [];
  if (got['ctor'] !== local['builtin'] || got['builtin'] !== local['builtin']) problems.push(...at(`a ${String(local['builtin'])} should arrive`));
  for (const f of ['name', 'message', 'stack'] as const) {
    const l = local[f] as Field, g = got[f] as Field;
    if (f === 'stack' && l.v.t === 'undefined') {
      if (g.v.t !== 'undefined') problems.push(...at('a missing stack should stay missing'));
    } else if (g.v.t !== 'string' || g.v['wf'] !== true) problems.push(...at(`its ${f} should arrive as well-formed text`));
    else if (l.text !== null && !same(l.text, g.v)) problems.push(...at(`its ${f} should arrive as ${JSON.stringify(l.text).slice(0, 200)}`));
  }
  const gotOwn = new Map(got['own'] as [string, View][]);
  const localOwn = (local['own'] as [string, View][]).filter(([, v]) => v.t !== 'function');
  if (!same(localOwn.map(([k]) => toWellFormed(k)), [...gotOwn.keys()])) {
    problems.push(...at('its own properties (but functions) should arrive'));
  }
  for (const [k, v] of localOwn) problems.push(...arrivalProblems(v, gotOwn.get(toWellFormed(k)), text, `${path === 'value' ? '' : `${path}.`}props.${k}`, depth));
  const cause = local['cause'] as View | undefined;
  const causePath = `${path === 'value' ? '' : `${path}.`}cause`;
  if (cause === undefined || cause.t === 'undefined') {
    if (got['cause'] !== undefined && (got['cause'] as View).t !== 'undefined') problems.push(...at('no cause should arrive'));
  } else if (cause.t === 'cycle') {
    // a cause chain that loops arrives unrolled, four levels deep
    if (depth + 1 < DEPTH && (got['cause'] as View | undefined)?.t !== 'error') problems.push(...at('the looping cause should arrive as an error'));
  } else {
    problems.push(...arrivalProblems(cause, got['cause'] as View | undefined, text, causePath, depth + 1));
  }
  return problems;
}

/** The program: one fence per thrown value; every rank prints what its fence rejected with. */
async function main(): Promise<void> {
  const seed = Number(process.argv[2] ?? 1);
  const dir = process.argv[3] ?? '.';
  const world = await ttg.initialize();
  const { rank, size } = world;
  const file = join(dir, `rank-${rank}.jsonl`);
  registerClasses(rank === size - 1);
  const cases = throwables(seed);
  const go = new ttg.Edge<number, number>('go');
  const thrower = ttg.make_tt((k: number, _v: number) => {
    throw cases[k]!.make();
  }, [go], [], { name: 'Thrower' });
  thrower.set_procmap(() => size - 1);
  ttg.make_graph_executable(thrower);
  for (let i = 0; i < cases.length; i++) {
    if (rank === 0) thrower.invoke(i, 0);
    try {
      await ttg.fence();
      appendFileSync(file, `${JSON.stringify({ i, rank, rejected: false })}\n`);
    } catch (e) {
      const err = e as ttg.TtgError;
      appendFileSync(file, `${JSON.stringify({ i, rank, rejected: true, code: err.code, cause: view(err.cause) })}\n`);
    }
  }
  await ttg.finalize();
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) await main();
