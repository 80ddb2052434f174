/**
 * A Buffer as a value: how it travels to another rank (its host array as a raw payload part,
 * received straight into the new Buffer's array) and how a consuming task gets a private copy.
 * Both read the host array, which the runtime makes current first (see migrate.ts).
 */
import { register_copier } from '../ttg/run/cow.js';
import { register_split_metadata } from '../serialize/split-metadata.js';
import { allocTyped, TYPED } from '../serialize/typed-arrays.js';
import { Buffer, type AnyBuffer, type BufferArray } from './buffer.js';

interface BufferMeta {
  /** Wire code of the host array's class. */
  code: number;
  length: number;
  scratch: boolean;
}

register_split_metadata(Buffer, {
  get_metadata: (b: AnyBuffer): BufferMeta => ({
    code: TYPED.indexOf(b.host.constructor as (typeof TYPED)[number]), length: b.length, scratch: b.scratch,
  }),
  get_data: (b: AnyBuffer) => [b.host],
  create_from_metadata: (m: BufferMeta) => new Buffer(allocTyped(m.code, m.length) as BufferArray, { scratch: m.scratch }),
});

register_copier(Buffer, (b: AnyBuffer) => new Buffer(b.host.slice(), { scratch: b.scratch }));
