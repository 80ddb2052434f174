/**
 * What may travel (docs/design/values.md): the walk that refuses, before msgpack runs, what would
 * be dropped or arrive changed. Headers (keys, targets) get the basic rules; the value of an Input
 * message the strict ones, with errors naming the path inside it (`value.tiles[3].data: ...`).
 */
import { extraOwnKeys } from './own-properties.js';
import { splitEntryOf } from './split-metadata.js';
import { detached, TYPED, type TypedCtor } from './typed-arrays.js';

/** Thrown by `encode` for values that would not arrive intact; the caller adds context. */
export class UnserializableError extends Error {}

/** Thrown by `encode` for a typed array an earlier send moved to another rank (detached): E_MOVED. */
export class MovedArrayError extends UnserializableError {}

const MAX_DEPTH = 64;

/** Where the walk is inside the value: property names, indices, Set/Map markers; formatted only for an error. */
const path: unknown[] = [];
const SET_MEMBER = Symbol('a Set member');
const METADATA = Symbol('split metadata');
const MAP_KEY = Symbol('a Map key');
/** A Map value on the path: the entry's key follows it. */
const MAP_VALUE = Symbol('a Map value');

/** `path` as `value.tiles[3]<the Map value of "a">`. */
function pathText(): string {
  let s = 'value';
  for (let i = 0; i < path.length; i++) {
    const p = path[i];
    if (typeof p === 'number') s += `[${p}]`;
    else if (p === SET_MEMBER) s += '<a Set member>';
    else if (p === MAP_KEY) s += '<a Map key>';
    else if (p === METADATA) s += '<its split metadata>';
    else if (p === MAP_VALUE) {
      const k = path[++i];
      s += `<the Map value of ${typeof k === 'string' || typeof k === 'number' ? JSON.stringify(k) : 'an object key'}>`;
    } else s += /^[A-Za-z_$][\w$]*$/.test(String(p)) ? `.${String(p)}` : `[${JSON.stringify(p)}]`;
  }
  return s;
}
/** Objects met so far inside the value: one met twice would arrive as two (or, nested, explode). */
const seen = new Set<object>();
/** The walk is inside the value of an Input message (the strict rules apply), not its header. */
let strict = false;

function refuse(what: string): never {
  throw new UnserializableError(`${strict ? pathText() : 'the message'}: ${what}`);
}

function checkString(s: string): void {
  // ES2024's String.prototype.isWellFormed (Node 20 has it; this TypeScript lib is ES2023)
  if (!(s as string & { isWellFormed(): boolean }).isWellFormed()) refuse(`a string with a lone surrogate (${JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}...` : s)}) would arrive with U+FFFD in its place`);
}

/** An object (not a typed array) met a second time inside the value: it would arrive as two. */
function checkOnce(v: object): void {
  if (seen.has(v)) refuse('this object appears twice in the value (shared or cyclic); it would arrive as separate copies: send it once, or a copy');
  seen.add(v);
}

/**
 * An array carries its elements only: a hole would arrive as `undefined`, and any other own
 * property (enumerable or not) would be dropped. Counting keys alone is not enough, as a hole and
 * an extra property balance; own names list the indices first, then `length`, then the rest.
 */
function checkArrayKeys(v: unknown[]): void {
  const names = Object.getOwnPropertyNames(v);
  if (names.length === v.length + 1 && names[v.length] === 'length') return;
  if (names[v.length] !== 'length') {
    let i = 0;
    while (i in v) i++;
    path.push(i);
    refuse('a hole in an array would arrive as undefined');
  }
  path.push(names[v.length + 1]!);
  refuse('an own property of an array other than its elements would not arrive (arrays carry only their elements)');
}

/** A plain object with `enumerated` properties walked: one it has beyond them is not enumerable, and msgpack would drop it. */
function checkEnumerable(v: object, enumerated: number): void {
  const names = Object.getOwnPropertyNames(v);
  if (names.length === enumerated) return;
  const hidden = names.find((k) => !Object.prototype.propertyIsEnumerable.call(v, k));
  if (hidden === undefined) return;
  path.push(hidden);
  refuse('a non-enumerable own property would not arrive (only enumerable ones travel)');
}

/**
 * A typed array, Map, Set or Date carries only its elements, entries or time: an own property
 * besides them (a tag, a unit; enumerable or not) would be dropped by msgpack.
 */
function checkNoExtras(v: object, kind: string): void {
  const extra = extraOwnKeys(v);
  if (extra.length === 0) return;
  const k = extra[0]!;
  if (typeof k === 'symbol') refuse(`a symbol-keyed property of a ${kind} would be dropped`);
  path.push(k);
  refuse(`an own property of a ${kind} would not arrive (a ${kind} carries only its ${kind === 'Date' ? 'time' : kind === 'typed array' ? 'elements' : 'entries'})`);
}

/** The strict rules for an object inside a value: exact built-in prototypes. */
function checkShape(v: object, proto: unknown): void {
  if (Array.isArray(v)) {
    if (proto !== Array.prototype) refuse(`a subclass of Array (${v.constructor?.name}) would arrive as an Array`);
    checkArrayKeys(v);
  } else if (v instanceof Map) {
    if (proto !== Map.prototype) refuse(`a subclass of Map (${v.constructor?.name}) would arrive as a Map`);
    checkNoExtras(v, 'Map');
  } else if (v instanceof Set) {
    if (proto !== Set.prototype) refuse(`a subclass of Set (${v.constructor?.name}) would arrive as a Set`);
    checkNoExtras(v, 'Set');
  } else if (proto === null) {
    refuse('an object with a null prototype would arrive with Object.prototype');
  }
  if (Object.getOwnPropertySymbols(v).length !== 0) refuse('symbol-keyed properties would be dropped');
}

/** Inside split metadata: the value rules, and no typed arrays (the data travels through `get_data`). */
let inMetadata = false;

function checkMetadata(md: unknown, depth: number): void {
  const was = inMetadata;
  inMetadata = true;
  path.push(METADATA);
  try {
    check(md, depth + 1);
  } finally {
    path.pop();
    inMetadata = was;
  }
}

/** What `get_data` returns travels as raw parts received into the receiver's arrays: plain typed arrays only. */
function checkSplitData(data: readonly ArrayBufferView[]): void {
  for (const d of data) {
    if (TYPED.indexOf(d.constructor as TypedCtor) < 0 || Object.getPrototypeOf(d) !== (d.constructor as TypedCtor).prototype) {
      refuse(`get_data returned a ${d.constructor?.name ?? 'view'}: split data must be plain typed arrays (a view of a subclass's memory will do)`);
    }
  }
}

/**
 * Refuses what msgpack would silently drop or change: functions, symbols, cycles, lone
 * surrogates, and instances of classes that are not registered for split-metadata transfer (they
 * would arrive as plain objects). Inside the value of an Input message (`strict`) also what would
 * arrive changed: DataViews, subclasses of built-ins, holes, null prototypes, symbol keys, own
 * properties of typed arrays, Maps, Sets and Dates, objects appearing twice; a moved typed array
 * is E_MOVED.
 */
function check(v: unknown, depth: number): void {
  switch (typeof v) {
    case 'function':
      refuse('a function cannot be sent to another rank');
    case 'symbol':
      refuse('a symbol cannot be sent to another rank');
    case 'string':
      checkString(v);
      return;
    case 'object': {
      if (v === null) return;
      if (ArrayBuffer.isView(v)) {
        if (!strict && !inMetadata) return;
        if (v instanceof DataView) refuse('a DataView would arrive as an empty Uint8Array: send a typed array');
        if (inMetadata) refuse('a typed array inside split metadata: return it from get_data, where the payload goes');
        // by the prototype: an own `constructor` property must not pass for the class
        const ctor = (Object.getPrototypeOf(v) as { constructor?: TypedCtor } | null)?.constructor;
        if (ctor === undefined || TYPED.indexOf(ctor) < 0 || Object.getPrototypeOf(v) !== ctor.prototype) {
          refuse(`a ${ctor?.name ?? 'typed array'} (a subclass of a typed array class, like Node's Buffer) would arrive as its base class: send a plain typed array view of it`);
        }
        if (detached(v)) throw new MovedArrayError(`${pathText()}: this typed array was already moved to another rank by an earlier send (its buffer is detached)`);
        checkNoExtras(v, 'typed array');
        return;
      }
      const proto: unknown = Object.getPrototypeOf(v);
      if (strict) checkOnce(v);
      if (v instanceof Date) {
        if (strict && proto !== Date.prototype) refuse(`a subclass of Date (${v.constructor?.name}) would arrive as a Date`);
        if (strict) checkNoExtras(v, 'Date');
        return;
      }
      if (depth > MAX_DEPTH) refuse(`nested deeper than ${MAX_DEPTH} levels (is it cyclic?)`);
      if (strict) checkShape(v, proto);
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          path.push(i);
          check(v[i], depth + 1);
          path.pop();
        }
        return;
      }
      if (v instanceof Set) {
        path.push(SET_MEMBER);
        for (const x of v) check(x, depth + 1);
        path.pop();
        return;
      }
      if (v instanceof Map) {
        needsBoxes = true;
        for (const [k, x] of v) {
          path.push(MAP_KEY);
          check(k, depth + 1);
          path.pop();
          path.push(MAP_VALUE, k);
          check(x, depth + 1);
          path.length -= 2;
        }
        return;
      }
      if (proto !== Object.prototype && proto !== null) {
        const entry = splitEntryOf(v);
        if (entry !== undefined) {
          checkMetadata(entry.desc.get_metadata(v), depth);
          if (strict) checkSplitData(entry.desc.get_data(v));
          return;
        }
        const name = (v as object).constructor?.name ?? 'object';
        refuse(`a ${name} instance would arrive as a plain object: register the class with ttg.register_split_metadata`);
      }
      // msgpackr reads `constructor` to choose how to write an object, writes at most 65,535 keys in a
      // map and renames an own `__proto__` key when it reads one back
      if ((v as { constructor?: unknown }).constructor !== Object || Object.prototype.hasOwnProperty.call(v, '__proto__')) needsBoxes = true;
      let n = 0;
      for (const k in v) {
        checkString(k);
        path.push(k);
        check((v as Record<string, unknown>)[k], depth + 1);
        path.pop();
        n++;
      }
      if (n > 0xffff) needsBoxes = true;
      if (strict) checkEnumerable(v, n);
      return;
    }
    case 'number':
      if (v === 0 && 1 / v < 0) needsBoxes = true;
      return;
    default:
  }
}

/** The walk met a Map, a -0 or a plain object msgpackr cannot write or read back: the message must be boxed before msgpack writes it. */
let needsBoxes = false;

/**
 * Checks `msg` (throws {@link UnserializableError} or {@link MovedArrayError}); `valueAt`: the index
 * in the message array of a value that must arrive exactly as it is. True when it needs boxing.
 */
export function checkMessage(msg: unknown, valueAt: number): boolean {
  needsBoxes = false;
  try {
    if (valueAt >= 0 && Array.isArray(msg)) {
      for (let i = 0; i < msg.length; i++) {
        strict = i === valueAt;
        check(msg[i], 1);
      }
    } else {
      check(msg, 0);
    }
  } finally {
    strict = false;
    path.length = 0;
    seen.clear();
  }
  return needsBoxes;
}
