/**
 * Split-metadata serialization (TTG's `SplitMetadataDescriptor`): an object is sent as small
 * metadata in the message header plus its big typed arrays as raw payload parts. The receiver
 * builds an empty object from the metadata and the transport writes the payload straight into the
 * arrays that object owns, so the payload is never copied or re-encoded in JavaScript.
 */
import { Errors } from '../base/errors.js';

/** How to split objects of one class into metadata and payload arrays. */
export interface SplitMetadataDescriptor<T, M> {
  /** Small description (shape, sizes...) packed into the header with msgpackr. */
  get_metadata(obj: T): M;
  /** The arrays to ship, in order; the object's own memory (not copies). */
  get_data(obj: T): ArrayBufferView[];
  /** An object whose `get_data` arrays have the right sizes; their contents get overwritten. */
  create_from_metadata(metadata: M): T;
}

/** A registered class with its descriptor and wire name. */
export interface SplitEntry {
  readonly name: string;
  readonly proto: object;
  readonly desc: SplitMetadataDescriptor<unknown, unknown>;
}

const byName = new Map<string, SplitEntry>();
const byProto = new Map<object, SplitEntry>();

/**
 * Registers `cls` for split-metadata transfer. Every rank must register the same classes (the
 * class name identifies it on the wire).
 */
export function register_split_metadata<T extends object, M>(
  cls: abstract new (...args: never[]) => T,
  desc: SplitMetadataDescriptor<T, M>,
): void {
  if (typeof cls !== 'function' || typeof cls.name !== 'string' || cls.name === '') {
    throw Errors.invalidArgument('register_split_metadata', 'needs a named class');
  }
  for (const f of ['get_metadata', 'get_data', 'create_from_metadata'] as const) {
    if (typeof desc?.[f] !== 'function') throw Errors.invalidArgument('register_split_metadata', `descriptor lacks ${f}()`);
  }
  const prior = byName.get(cls.name);
  if (prior !== undefined && prior.proto !== cls.prototype) {
    throw Errors.invalidArgument('register_split_metadata', `another class named '${cls.name}' is already registered`);
  }
  const entry: SplitEntry = { name: cls.name, proto: cls.prototype as object, desc: desc as SplitMetadataDescriptor<unknown, unknown> };
  byName.set(cls.name, entry);
  byProto.set(entry.proto, entry);
}

/** The registration for an object's class, if any. */
export function splitEntryOf(obj: object): SplitEntry | undefined {
  return byProto.get(Object.getPrototypeOf(obj) as object);
}

/** The registration for a wire name. */
export function splitEntryNamed(name: string): SplitEntry | undefined {
  return byName.get(name);
}

/** All registrations (the codec installs one msgpackr extension per class). */
export function splitEntries(): IterableIterator<SplitEntry> {
  return byName.values();
}
