/**
 * What a failing task threw, made to travel with the failure's announcement so that `err.cause`
 * exists on every rank. An error travels as its built-in class, name, message, stack, own
 * properties and its own cause, four levels deep; the receiver rebuilds an error of that built-in
 * class (a `TypeError`, or a subclass of it, stays a `TypeError`) whose `name` is the original's.
 *
 * Values (a thrown value that is no error, an own property, a cause that is no error) arrive
 * intact when they pass the rules of a sent value (docs/design/values.md): typed arrays with their
 * class and contents, registered split-metadata objects, Maps, Sets, Dates, BigInts, nested
 * containers. Each is encoded on its own (codec.ts) and carried as base64 text in the `Failure` header: the
 * header needs no payload parts, so nothing of the cause depends on how payloads are received,
 * and one value that cannot be rebuilt cannot spoil the announcement.
 *
 * What cannot travel intact arrives as a stand-in, and announcing never throws:
 * - name, message, stack: always strings; lone surrogates become U+FFFD, a non-string is
 *   `String(v)` (a Symbol its description), one that cannot be converted its `util.inspect` text;
 *   a name or message whose getter throws is `Error` or empty; a missing stack stays missing;
 * - a value that breaks the rules (a cycle, a shared object, a class instance or error inside a
 *   value, a Buffer, a DataView, a BigInt beyond 64 bits, a lone surrogate, a symbol...): its
 *   `util.inspect` text (a string as itself, made well-formed);
 * - a value with a split-metadata object the receiver cannot rebuild (its class not registered
 *   there): the sender's `util.inspect` text of it;
 * - own properties that are functions are left out; one whose getter throws (the stack too) is
 *   {@link UNREADABLE}; causes deeper than four levels are left out;
 * - anything else that fails: {@link UNDESCRIBABLE}.
 */
import { inspect, types } from 'node:util';

import { TtgError, type TtgErrorCode } from '../base/errors.js';
import { decode, encode } from '../serialize/codec.js';

/**
 * A value as it travels: its encoding (msgpack header and payload parts, base64) with the text
 * that stands in for it where it cannot be rebuilt (empty when it has no split-metadata object,
 * the only thing a receiver may fail to rebuild); or, when it cannot travel, that text alone.
 */
export type TravellingValue = [header: string, parts: string[], text: string] | string;

/**
 * What a task threw, as it travels: an error as
 * `['error', built-in class, name, message, stack, own properties, cause]`, any other value as
 * `['value', value]`. Only strings, arrays and null: the announcement always decodes.
 */
export type TravellingCause =
  | [kind: 'error', cls: string, name: string, message: string, stack: string | null, props: [string, TravellingValue][], cause: TravellingCause | null]
  | [kind: 'value', value: TravellingValue];

/** The cause of a failure that could not be described at all (every fallback threw). */
export const UNDESCRIBABLE = '[a thrown value that could not be described]';
/** An own property (or the stack) of a thrown error whose getter threw. */
export const UNREADABLE = '[a property that could not be read]';

/** Causes of causes travel this many levels deep (a cause chain may be a cycle). */
const DEPTH = 4;
const BUILT_IN = new Map<string, ErrorConstructor>([
  ['Error', Error], ['TypeError', TypeError], ['RangeError', RangeError], ['SyntaxError', SyntaxError],
  ['ReferenceError', ReferenceError], ['EvalError', EvalError], ['URIError', URIError],
]);
/** A prototype → the class it is rebuilt as: the nearest of these in an error's chain. */
const CLASS_OF = new Map<object, string>([...BUILT_IN].map(([n, c]) => [c.prototype, n]));
CLASS_OF.set(TtgError.prototype, 'TtgError');
/** Own properties that travel as fields, not as properties. */
const FIELDS = new Set(['name', 'message', 'stack', 'cause']);
/** Short, single-line inspection: a stand-in names what was thrown, it does not reproduce it. */
const INSPECT = { depth: 4, breakLength: Infinity, maxArrayLength: 32, maxStringLength: 4096 } as const;

// ES2024's String.prototype.toWellFormed (Node 20 has it; this TypeScript lib is ES2023)
const wellFormed = (s: string): string => (s as string & { toWellFormed(): string }).toWellFormed();

/** Text that stands in for `v`: a string as itself, anything else as `util.inspect` shows it. Never throws. */
function standIn(v: unknown): string {
  try {
    return wellFormed(typeof v === 'string' ? v : inspect(v, INSPECT));
  } catch {
    // inspect runs the value's own code (getters, custom inspectors, proxy traps)
  }
  try {
    return wellFormed(String(v));
  } catch {
    return UNDESCRIBABLE;
  }
}

/** `v` as the text of a name, message or stack: `String(v)` (a Symbol's description), else its stand-in. */
function text(v: unknown): string {
  try {
    if (typeof v === 'string') return wellFormed(v);
    if (typeof v === 'symbol') return wellFormed(v.description ?? '');
    return wellFormed(String(v));
  } catch {
    return standIn(v);
  }
}

const base64 = (v: ArrayBufferView): string => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');

/** `v` made to travel: encoded by the strict rules of a sent value, or its stand-in text. */
function valueToTravel(v: unknown): TravellingValue {
  try {
    const { bytes, parts, plain } = encode([v], 0);
    return [base64(bytes), parts.map(base64), plain ? '' : standIn(v)];
  } catch {
    return standIn(v);
  }
}

/** The value {@link valueToTravel} made travel, rebuilt here, or its stand-in text. */
function valueFromTravel(t: TravellingValue): unknown {
  if (typeof t === 'string') return t;
  const [header, parts, fallback] = t;
  try {
    const d = decode<[unknown]>(Buffer.from(header, 'base64'));
    if (d.parts.length !== parts.length) throw new Error('the parts do not match the header');
    d.parts.forEach((p, i) => {
      const bytes = Buffer.from(parts[i]!, 'base64');
      if (bytes.byteLength !== p.byteLength) throw new Error('a part does not fit its array');
      new Uint8Array(p.buffer, p.byteOffset, p.byteLength).set(bytes);
    });
    return d.msg[0];
  } catch {
    // a split-metadata class not registered here, or its create_from_metadata refused
    return fallback === '' ? UNDESCRIBABLE : fallback;
  }
}

/** `e` is an error (also one of another realm); false when even asking throws (a hostile proxy). */
function isError(e: unknown): e is Error {
  try {
    return e instanceof Error || types.isNativeError(e);
  } catch {
    return false;
  }
}

/** The class `e` is rebuilt as: the nearest built-in error class (or TtgError) in its prototype chain. */
function classOf(e: Error): string {
  for (let p: unknown = Object.getPrototypeOf(e); p !== null && typeof p === 'object'; p = Object.getPrototypeOf(p)) {
    const c = CLASS_OF.get(p);
    if (c !== undefined) return c;
  }
  return 'Error';
}

/** Property `k` of `e`, or `fail` when its getter throws. */
function read(e: object, k: PropertyKey, fail: unknown): unknown {
  try {
    return (e as Record<PropertyKey, unknown>)[k];
  } catch {
    return fail;
  }
}

function errorToTravel(e: Error, depth: number): TravellingCause {
  let cls = 'Error';
  try {
    cls = classOf(e);
  } catch {
    // a prototype chain that cannot be walked: a plain Error
  }
  const stack = read(e, 'stack', UNREADABLE); // V8 formats it on first read, which can throw (a Symbol name)
  const props: [string, TravellingValue][] = [];
  let keys: string[] = [];
  try {
    keys = Object.keys(e);
  } catch {
    // a proxy that hides its keys: no properties
  }
  for (const k of keys) {
    if (FIELDS.has(k)) continue;
    const v = read(e, k, UNREADABLE);
    // a function (a callback, a method) is code, not data about what went wrong
    if (typeof v !== 'function') props.push([wellFormed(k), valueToTravel(v)]);
  }
  let cause: TravellingCause | null = null;
  try {
    if ('cause' in e) cause = causeToTravel(read(e, 'cause', UNREADABLE), depth + 1);
  } catch {
    // `in` on a hostile proxy: no cause
  }
  return ['error', cls, text(read(e, 'name', 'Error')), text(read(e, 'message', '')), stack === undefined ? null : text(stack), props, cause];
}

/**
 * `e`, what a task threw, made to travel (see the module's notes for what becomes a stand-in);
 * null for undefined and beyond four levels of causes. Never throws.
 */
export function causeToTravel(e: unknown, depth = 0): TravellingCause | null {
  if (e === undefined || depth >= DEPTH) return null;
  try {
    return isError(e) ? errorToTravel(e, depth) : ['value', valueToTravel(e)];
  } catch {
    return ['value', UNDESCRIBABLE];
  }
}

function errorFromTravel(t: Extract<TravellingCause, { 0: 'error' }>): Error {
  const [, cls, name, message, stack, props, cause] = t;
  const inner = causeFromTravel(cause);
  const values = new Map(props.map(([k, v]) => [k, valueFromTravel(v)]));
  let e: Error;
  const code = values.get('code');
  if (cls === 'TtgError' && typeof code === 'string') {
    const detail = values.get('detail');
    e = new TtgError(code as TtgErrorCode, typeof detail === 'string' ? detail : message, { cause: inner });
    e.message = message;
  } else {
    e = new (BUILT_IN.get(cls) ?? Error)(message, inner === undefined ? undefined : { cause: inner });
  }
  if (e.name !== name) Object.defineProperty(e, 'name', { value: name, configurable: true, writable: true });
  // defined, not assigned: a key like `__proto__` is an own property there too
  for (const [k, v] of values) Object.defineProperty(e, k, { value: v, configurable: true, writable: true, enumerable: true });
  if (stack === null) delete e.stack; // not this rank's stack in place of a missing one
  else e.stack = stack;
  return e;
}

/** What {@link causeToTravel} made travel, rebuilt here (undefined for null). Never throws. */
export function causeFromTravel(t: TravellingCause | null): unknown {
  try {
    if (t === null || t === undefined) return undefined;
    return t[0] === 'error' ? errorFromTravel(t) : valueFromTravel(t[1]);
  } catch {
    // a malformed announcement: it still fails the run
    return UNDESCRIBABLE;
  }
}
