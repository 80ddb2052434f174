/**
 * Message codec: headers and small values through msgpackr; typed arrays and split-metadata
 * payloads are *not* encoded — they are replaced by a small descriptor and travel as separate raw
 * parts (mpi4py's buffer path). Decoding allocates the destination arrays (or asks the class's
 * `create_from_metadata`) and returns them in order so the transport can receive into them.
 */
import { addExtension, Packr } from 'msgpackr';
import { splitEntries, splitEntryNamed, type SplitEntry } from './split-metadata.js';
import { allocTyped, TYPED, viewReceived } from './typed-arrays.js';
import { checkMessage } from './value-check.js';

export { MovedArrayError, UnserializableError } from './value-check.js';

const TYPED_EXT = 0x51;
const SPLIT_EXT = 0x52;

/** Parts collected (when packing) or allocated (when unpacking) by the current codec call. */
let parts: ArrayBufferView[] = [];
/** Packing: a split-metadata object contributed parts. */
let splitParts = false;
/** Unpacking: payload buffers that already hold the parts, in order (or undefined). */
let given: ArrayBuffer[] | undefined;

for (let code = 0; code < TYPED.length; code++) {
  const ctor = TYPED[code]!;
  addExtension({
    Class: ctor,
    type: TYPED_EXT,
    write(a: ArrayBufferView & { length: number }) {
      parts.push(a);
      return [code, a.length];
    },
    read([c, n]: [number, number]) {
      const a = given === undefined ? allocTyped(c, n) : viewReceived(c, n, given[parts.length], parts.length);
      parts.push(a);
      return a;
    },
  });
}

/**
 * A Map on its way into msgpack. msgpackr writes a Map as a plain msgpack map before it looks at
 * extensions, so it would arrive as an object with string keys; {@link encode} boxes the Maps of a
 * message (only of one that has any) so that they travel as this extension.
 */
class MapBox {
  constructor(readonly entries: [unknown, unknown][]) {}
}

/**
 * A plain object msgpackr cannot write as a map: one whose `constructor` is not `Object` (an own
 * field named `constructor` sends msgpackr looking for extensions and then for a `toJSON` method,
 * which an own `toJSON` field that is no function breaks), one with more keys than the 16-bit
 * map size msgpackr uses for plain objects, or one with an own `__proto__` key (msgpackr reads it
 * back as `__proto_`). Travels as its keys and values, alternating.
 */
class ObjectBox {
  constructor(readonly flat: unknown[]) {}
}
addExtension({
  Class: ObjectBox,
  type: 0x56,
  write: (b: ObjectBox) => b.flat,
  read(flat: unknown[]) {
    const o: Record<string, unknown> = {};
    for (let i = 0; i < flat.length; i += 2) {
      const k = flat[i] as string;
      // an own key "__proto__" stays a key instead of setting the prototype
      if (k === '__proto__') Object.defineProperty(o, k, { value: flat[i + 1], enumerable: true, writable: true, configurable: true });
      else o[k] = flat[i + 1];
    }
    return o;
  },
});

/** The most keys msgpackr writes in a plain object's map. */
const MAX_MAP_KEYS = 0xffff;

/** -0 on its way into msgpack, which would write it as the integer 0 (see {@link encode}). */
class NegativeZero {}
const NEGATIVE_ZERO = new NegativeZero();
addExtension({
  Class: NegativeZero,
  type: 0x55,
  write: () => 0,
  read: () => -0,
});

// Maps and Sets keep their type across ranks (msgpack alone would turn a Map into an object).
addExtension({
  Class: MapBox,
  type: 0x53,
  write: (m: MapBox) => m.entries,
  read: (entries: [unknown, unknown][]) => new Map(entries),
});
addExtension({
  Class: Set,
  type: 0x54,
  write: (s: Set<unknown>) => [...s],
  read: (items: unknown[]) => new Set(items),
});

const installed = new Set<SplitEntry>();

function installSplitExtensions(): void {
  for (const e of splitEntries()) {
    if (installed.has(e)) continue;
    installed.add(e);
    addExtension({
      Class: e.proto.constructor as new () => unknown,
      type: SPLIT_EXT,
      write(obj: unknown) {
        splitParts = true;
        const data = e.desc.get_data(obj);
        for (const d of data) parts.push(d);
        // boxed like a message: a Map or a -0 in the metadata arrives as it was
        return [e.name, box(e.desc.get_metadata(obj)), data.length];
      },
      read([name, md, n]: [string, unknown, number]) {
        if (given !== undefined) throw new Error(`split-metadata '${name}' in a message whose payload was received as plain arrays`);
        const entry = splitEntryNamed(name);
        if (entry === undefined) throw new Error(`split-metadata class '${name}' is not registered on this rank`);
        const obj = entry.desc.create_from_metadata(md);
        const data = entry.desc.get_data(obj);
        if (data.length !== n) throw new Error(`'${name}'.get_data returned ${data.length} arrays for metadata that had ${n}`);
        for (const d of data) parts.push(d);
        return obj;
      },
    });
  }
}

const packr = new Packr({ useRecords: false, moreTypes: false, structuredClone: false });

/** A message ready for the wire: encoded header plus the raw payload views, in order. */
export interface EncodedMessage {
  bytes: Uint8Array;
  parts: ArrayBufferView[];
  /**
   * Every part is a plain typed array (no split-metadata object): the receiver may land the
   * payload in memory of its choosing and pass it to {@link decode} as `buffers`.
   */
  plain: boolean;
}

/** A decoded message: its content, and the arrays the payload parts must be received into. */
export interface DecodedMessage<T> {
  msg: T;
  parts: ArrayBufferView[];
}

/**
 * `v` with every Map, every -0 and every plain object msgpackr cannot write inside it boxed
 * (containers on the way are copied; other values kept): msgpackr writes a Map as a plain map and
 * -0 as the integer 0 before it looks at extensions.
 */
function box(v: unknown): unknown {
  if (typeof v === 'number') return v === 0 && 1 / v < 0 ? NEGATIVE_ZERO : v;
  if (typeof v !== 'object' || v === null || ArrayBuffer.isView(v) || v instanceof Date) return v;
  if (v instanceof Map) return new MapBox([...v].map(([k, x]) => [box(k), box(x)]));
  if (Array.isArray(v)) return v.map(box);
  if (v instanceof Set) return new Set([...v].map(box));
  if (Object.getPrototypeOf(v) !== Object.prototype && Object.getPrototypeOf(v) !== null) return v; // split-metadata
  const keys = Object.keys(v);
  if ((v as { constructor?: unknown }).constructor !== Object || keys.length > MAX_MAP_KEYS || Object.prototype.hasOwnProperty.call(v, '__proto__')) {
    const flat: unknown[] = [];
    for (const k of keys) flat.push(k, box((v as Record<string, unknown>)[k]));
    return new ObjectBox(flat);
  }
  // own keys, each defined (an own `__proto__` key stays a key instead of setting the prototype)
  return Object.fromEntries(keys.map((k) => [k, box((v as Record<string, unknown>)[k])]));
}

/**
 * Encodes `msg`; typed arrays and split-metadata objects inside it become raw parts. `valueAt`:
 * the index, in the message array, of a value that must arrive exactly as it is (an Input's value):
 * the strict rules of value-check.ts apply to it, and errors name the path inside it.
 */
export function encode(msg: unknown, valueAt = -1): EncodedMessage {
  const needsBoxes = checkMessage(msg, valueAt);
  installSplitExtensions();
  parts = [];
  splitParts = false;
  try {
    const bytes = packr.pack(needsBoxes ? box(msg) : msg);
    return { bytes, parts, plain: !splitParts };
  } finally {
    parts = [];
  }
}

/**
 * Decodes a header; the returned parts are arrays to be filled by the transport (uninitialized).
 * With `buffers` (the payload of a `plain` message, already received), the typed arrays are views
 * of those buffers instead, and there is nothing left to receive.
 */
export function decode<T>(bytes: Uint8Array, buffers?: ArrayBuffer[]): DecodedMessage<T> {
  installSplitExtensions();
  parts = [];
  given = buffers;
  try {
    const msg = packr.unpack(bytes) as T;
    if (buffers !== undefined && parts.length !== buffers.length) {
      throw new Error(`the message has ${buffers.length} payload parts but its header names ${parts.length}`);
    }
    return { msg, parts };
  } finally {
    parts = [];
    given = undefined;
  }
}
