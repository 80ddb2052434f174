/**
 * A value as JSON-like text for people (keys in errors, traces and reports), cut at a length.
 * It stops walking the value once the text is long enough: a key of 100 KB, or an array of a
 * million numbers, costs what its first characters cost, where JSON.stringify copies it all.
 */

/** Thrown inside the walk when the text reached its limit (never escapes {@link shortJson}). */
const FULL = Symbol('full');

/**
 * `value` as JSON text (no spaces), at most `limit` characters: when longer, cut to `limit - 3`
 * and ended with `...`. Beyond JSON: a repeated object is `"[cycle]"`, a non-finite number, a
 * bigint, a function or a symbol is a string. May throw what a getter or `toJSON` throws.
 */
export function shortJson(value: unknown, limit: number): string {
  const out: string[] = [];
  let length = 0;
  const seen = new WeakSet<object>();
  const put = (s: string): void => {
    out.push(s);
    length += s.length;
    if (length > limit) throw FULL;
  };
  const walk = (v: unknown): void => {
    if (typeof v === 'object' && v !== null && typeof (v as { toJSON?: unknown }).toJSON === 'function') v = (v as { toJSON(): unknown }).toJSON();
    switch (typeof v) {
      case 'string':
        put(JSON.stringify(v.length > limit ? v.slice(0, limit) : v));
        return;
      case 'number':
        put(Number.isFinite(v) ? String(v) : `"${v}"`);
        return;
      case 'boolean':
        put(String(v));
        return;
      case 'bigint':
      case 'symbol':
        put(JSON.stringify(String(v)));
        return;
      case 'function':
        put(JSON.stringify(`[function ${v.name || 'anonymous'}]`));
        return;
      case 'undefined':
        put('null');
        return;
    }
    if (v === null) {
      put('null');
      return;
    }
    const o = v as Record<string, unknown>;
    if (seen.has(o)) {
      put('"[cycle]"');
      return;
    }
    seen.add(o);
    if (Array.isArray(o)) {
      put('[');
      for (let i = 0; i < o.length; i++) {
        if (i > 0) put(',');
        walk(o[i]);
      }
      put(']');
      return;
    }
    // a typed array by index: enumerating the keys of a large one would build them all first
    const indexed = ArrayBuffer.isView(o) && 'length' in o;
    put('{');
    let first = true;
    const member = (k: string, x: unknown): void => {
      if (x === undefined) return;
      put(first ? JSON.stringify(k) : `,${JSON.stringify(k)}`);
      put(':');
      first = false;
      walk(x);
    };
    if (indexed) for (let i = 0; i < (o.length as number); i++) member(String(i), o[i]);
    else for (const k in o) if (Object.hasOwn(o, k)) member(k, o[k]);
    put('}');
  };
  try {
    walk(value);
  } catch (e) {
    if (e !== FULL) throw e;
    return `${wholeChars(out.join('').slice(0, limit - 3))}...`;
  }
  return out.join('');
}

/** `s` without a high surrogate at its end (what a cut can leave). */
function wholeChars(s: string): string {
  const last = s.charCodeAt(s.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? s.slice(0, -1) : s;
}
