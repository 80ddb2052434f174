/**
 * The comparison behind `TTG_CHECK_SERIALIZE=1`: whether a decoded value is the value that was
 * sent — the same prototypes at every depth, numbers by `Object.is` (so -0 and NaN count), typed
 * arrays of the same class and bytes, Dates of the same time, Maps and Sets with equal entries in
 * the same order, the same own keys — and if not, where they first differ.
 */

/** Where `got` first differs from `sent` (a path like `value.tiles[3]` and what differs), or undefined. */
export function firstDifference(sent: unknown, got: unknown, at = 'value'): string | undefined {
  if (typeof sent !== 'object' || sent === null || typeof got !== 'object' || got === null) {
    return Object.is(sent, got) ? undefined : `${at}: sent ${describe(sent)}, would arrive as ${describe(got)}`;
  }
  const proto: unknown = Object.getPrototypeOf(sent);
  if (proto !== Object.getPrototypeOf(got)) return `${at}: a ${nameOf(sent)} would arrive as a ${nameOf(got)}`;
  if (ArrayBuffer.isView(sent)) {
    const a = bytes(sent), b = bytes(got as ArrayBufferView);
    if (a.length !== b.length) return `${at}: ${a.length} bytes would arrive as ${b.length}`;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return `${at}: byte ${i} would arrive changed`;
    return undefined;
  }
  if (sent instanceof Date) return Object.is(sent.getTime(), (got as Date).getTime()) ? undefined : `${at}: the Date would arrive changed`;
  if (sent instanceof Map || sent instanceof Set) {
    const a = [...sent], b = [...(got as Map<unknown, unknown> | Set<unknown>)];
    if (a.length !== b.length) return `${at}: ${a.length} entries would arrive as ${b.length}`;
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${at}<entry ${i}>`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  const ka = Reflect.ownKeys(sent), kb = Reflect.ownKeys(got);
  if (ka.length !== kb.length) return `${at}: ${ka.length} own properties would arrive as ${kb.length}`;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(got, k)) return `${at}: property ${String(k)} would not arrive`;
    const d = firstDifference((sent as Record<PropertyKey, unknown>)[k], (got as Record<PropertyKey, unknown>)[k], `${at}${typeof k === 'string' && /^\d+$/.test(k) ? `[${k}]` : `.${String(k)}`}`);
    if (d !== undefined) return d;
  }
  return undefined;
}

function bytes(v: ArrayBufferView): Uint8Array {
  return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

function nameOf(v: object): string {
  const p: unknown = Object.getPrototypeOf(v);
  return p === null ? 'null-prototype object' : ((p as { constructor?: { name?: string } }).constructor?.name ?? 'object');
}

function describe(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v);
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  return typeof v === 'object' ? (v === null ? 'null' : `a ${nameOf(v)}`) : `${typeof v} ${String(v)}`;
}
