/**
 * Message codec: headers and small values through msgpackr; typed arrays and split-metadata
 * payloads are *not* encoded — they are replaced by a small descriptor and travel as separate raw
 * parts (mpi4py's buffer path). Decoding allocates the destination arrays (or asks the class's
 * `create_from_metadata`) and returns them in order so the transport can receive into them.
 */
import { addExtension, Packr } from 'msgpackr';
import { splitEntries, splitEntryNamed, type SplitEntry } from './split-metadata.js';

const TYPED_EXT = 0x51;
const SPLIT_EXT = 0x52;

type TypedCtor = new (length: number) => ArrayBufferView;
const TYPED: TypedCtor[] = [
  Float64Array, Float32Array, Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array,
  Int32Array, Uint32Array, BigInt64Array, BigUint64Array,
];

/** Parts collected (when packing) or allocated (when unpacking) by the current codec call. */
let parts: ArrayBufferView[] = [];

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
      const a = new TYPED[c]!(n);
      parts.push(a);
      return a;
    },
  });
}

const installed = new Set<SplitEntry>();

function installSplitExtensions(): void {
  for (const e of splitEntries()) {
    if (installed.has(e)) continue;
    installed.add(e);
    addExtension({
      Class: e.proto.constructor as new () => unknown,
      type: SPLIT_EXT,
      write(obj: unknown) {
        const data = e.desc.get_data(obj);
        for (const d of data) parts.push(d);
        return [e.name, e.desc.get_metadata(obj), data.length];
      },
      read([name, md, n]: [string, unknown, number]) {
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

const packr = new Packr({ useRecords: false, moreTypes: false, structuredClone: false, mapsAsObjects: false });

/** A message ready for the wire: encoded header plus the raw payload views, in order. */
export interface EncodedMessage {
  bytes: Uint8Array;
  parts: ArrayBufferView[];
}

/** A decoded message: its content, and the arrays the payload parts must be received into. */
export interface DecodedMessage<T> {
  msg: T;
  parts: ArrayBufferView[];
}

/** Encodes `msg`; typed arrays and split-metadata objects inside it become raw parts. */
export function encode(msg: unknown): EncodedMessage {
  installSplitExtensions();
  parts = [];
  try {
    const bytes = packr.pack(msg);
    return { bytes, parts };
  } finally {
    parts = [];
  }
}

/** Decodes a header; the returned parts are empty arrays to be filled by the transport. */
export function decode<T>(bytes: Uint8Array): DecodedMessage<T> {
  installSplitExtensions();
  parts = [];
  try {
    const msg = packr.unpack(bytes) as T;
    return { msg, parts };
  } finally {
    parts = [];
  }
}
