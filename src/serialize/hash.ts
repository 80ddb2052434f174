/**
 * Key hashing for the default procmap (`hash(key) mod size`). Every rank must compute the same
 * value, so hashes depend only on the key's canonical form. Non-negative integers hash to
 * themselves, as in C++ TTG, so integer-keyed chains spread round-robin over ranks; small integer
 * tuples use a cheap integer mix; everything else goes through xxhash-wasm.
 */
import xxhash from 'xxhash-wasm';
import { canonicalKey, isHashableKey, packSmallTuple } from './key-codec.js';

let h32: ((input: string, seed?: number) => number) | undefined;

/** Loads the xxhash WebAssembly module; called once by `ttg.initialize()`. */
export async function initHashing(): Promise<void> {
  if (h32 === undefined) h32 = (await xxhash()).h32;
}

function mix32(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Non-negative 32-bit hash of a key, identical on every rank. Throws `KeyShapeError` for bad keys. */
export function hashKey(key: unknown): number {
  if (typeof key === 'number' && (key >>> 0) === key) return key;
  if (key === undefined) return 0;
  if (Array.isArray(key)) {
    const packed = packSmallTuple(key);
    if (packed >= 0) {
      let h = 0x9e3779b9;
      for (let i = 0; i < key.length; i++) h = mix32(h ^ (key[i] as number)) + i;
      return mix32(h);
    }
  }
  if (isHashableKey(key)) {
    const h = key.hash();
    if (typeof h !== 'number' || !Number.isFinite(h)) throw new TypeError('hash() must return a finite number');
    return h >>> 0;
  }
  if (h32 === undefined) throw new Error('key hashing used before ttg.initialize()');
  return h32(canonicalKey(key));
}
