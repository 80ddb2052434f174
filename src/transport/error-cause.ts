/**
 * What a failing task threw, made to travel with the failure's announcement so that `err.cause`
 * exists on every rank: its class name, message, stack and `code`, its own properties that can be
 * encoded, and its own cause, a few levels deep. The receiver rebuilds an `Error` of the same
 * built-in class (a `TypeError` stays a `TypeError`); another class becomes an `Error` whose
 * `name` is the original's.
 */
import { encode } from '../serialize/codec.js';
import { TtgError, type TtgErrorCode } from '../base/errors.js';

/** An error as it travels: [name, message, stack, own properties, its cause]. */
export type TravellingCause = [string, string, string | null, Record<string, unknown>, TravellingCause | null] | [string, unknown];

const DEPTH = 4;
const BUILT_IN: Record<string, ErrorConstructor> = {
  Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError,
};

const canTravel = (v: unknown): boolean => {
  try {
    encode(v);
    return true;
  } catch {
    return false;
  }
};

/** `e` made encodable (an Error as its parts, any other value as itself when it can travel). */
export function causeToTravel(e: unknown, depth = 0): TravellingCause | null {
  if (e === undefined || depth >= DEPTH) return null;
  if (!(e instanceof Error)) return canTravel(e) ? ['value', e] : ['value', String(e)];
  const props: Record<string, unknown> = {};
  for (const k of Object.keys(e)) {
    const v = (e as unknown as Record<string, unknown>)[k];
    if (k !== 'cause' && canTravel(v)) props[k] = v;
  }
  if (e instanceof TtgError) props['code'] = e.code;
  return [e.name, e.message, e.stack ?? null, props, causeToTravel(e.cause, depth + 1)];
}

/** The error {@link causeToTravel} made travel, rebuilt here. */
export function causeFromTravel(t: TravellingCause | null): unknown {
  if (t === null) return undefined;
  if (t.length === 2) return t[1];
  const [name, message, stack, props, cause] = t;
  const inner = causeFromTravel(cause);
  const options = inner === undefined ? undefined : { cause: inner };
  let e: Error;
  if (name === 'TtgError' && typeof props['code'] === 'string') {
    e = new TtgError(props['code'] as TtgErrorCode, String(props['detail'] ?? message), { cause: inner });
    e.message = message;
  } else {
    e = new (BUILT_IN[name] ?? Error)(message, options);
    if (e.name !== name) Object.defineProperty(e, 'name', { value: name, configurable: true, writable: true });
  }
  for (const [k, v] of Object.entries(props)) if (!(e instanceof TtgError && (k === 'code' || k === 'detail'))) (e as unknown as Record<string, unknown>)[k] = v;
  if (stack !== null) e.stack = stack;
  return e;
}
