/**
 * Type machinery that makes `out.send(i, key, value)` check `key` and `value` against the edge of
 * output terminal `i`, the way C++ TTG's `std::tuple<Out<K, V>...>` does.
 */
import type { Edge } from './edge.js';

/** Any edge, whatever its key and value types. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyEdge = Edge<any, any>;

/** Key type carried by an edge. */
export type KeyOf<E> = E extends Edge<infer K, infer _V> ? K : never;

/** Value type carried by an edge (`void` for control edges). */
export type ValueOf<E> = E extends Edge<infer _K, infer V> ? V : never;

/** The numeric indices of a tuple type: `[A, B]` gives `0 | 1`. */
export type Indices<T extends readonly unknown[]> = {
  [I in keyof T]: I extends `${infer N extends number}` ? N : never;
}[number];

/** Positional input values of a task body, one per input edge. */
export type InputValues<Ins extends readonly AnyEdge[]> = { -readonly [I in keyof Ins]: ValueOf<Ins[I]> };

/**
 * What `tt.invoke(key, ...values)` takes after the key: one value per input, `undefined` for a
 * control input; or nothing at all when every input is a control edge (C++ TTG's `invoke(key)`,
 * and `invoke()` for a keyless TT). A control value is typed `undefined` rather than `void` so that
 * it cannot be left out of a list that also holds data values: the runtime cannot tell which
 * inputs are control edges and takes a partial list for a mistake.
 */
export type InvokeValues<Ins extends readonly AnyEdge[]> =
  | { -readonly [I in keyof Ins]: ValueOf<Ins[I]> extends void ? undefined : ValueOf<Ins[I]> }
  | ([ValueOf<Ins[number]>] extends [void] ? [] : never);

/** Per-terminal key lists for a multi-terminal broadcast. */
export type BroadcastKeys<Outs extends readonly AnyEdge[], Is extends readonly number[]> = {
  -readonly [J in keyof Is]: Iterable<KeyOf<Outs[Is[J] & keyof Outs]>>;
};

/**
 * The `out` argument of a task body: typed sends on the TT's output terminals.
 * Terminal `i` refers to the `i`-th edge in the TT's output list.
 */
export interface Out<Outs extends readonly AnyEdge[] = readonly AnyEdge[]> {
  /** Key of the running task. */
  readonly key: unknown;
  /** Sends `value` for task `key` on output terminal `i`. */
  send<I extends Indices<Outs>>(i: I, key: KeyOf<Outs[I]>, value: ValueOf<Outs[I]>): void;
  /** Sends only a key (control flow) on output terminal `i`. */
  sendk<I extends Indices<Outs>>(i: I, key: KeyOf<Outs[I]>): void;
  /** Sends a value to the keyless task on output terminal `i`. */
  sendv<I extends Indices<Outs>>(i: I, value: ValueOf<Outs[I]>): void;
  /** Sends one value to many keys of terminal `i` (payload shipped once per destination rank). */
  broadcast<I extends Indices<Outs>>(i: I, keys: Iterable<KeyOf<Outs[I]>>, value: ValueOf<Outs[I]>): void;
  /** Sends one value to keys on several terminals at once: `broadcast([0, 1], [keys0, keys1], v)`. */
  broadcast<const Is extends readonly Indices<Outs>[]>(
    is: Is, keys: BroadcastKeys<Outs, Is>, value: ValueOf<Outs[Is[number]]>): void;
  /** Sets how many values the reducing input fed by terminal `i` expects for `key`. */
  set_argstream_size<I extends Indices<Outs>>(i: I, key: KeyOf<Outs[I]>, n: number): void;
  /** Closes the reducing input stream fed by terminal `i` for `key`: no more values will come. */
  finalize_argstream<I extends Indices<Outs>>(i: I, key: KeyOf<Outs[I]>): void;
}

/** What a task body may return: nothing, a promise, or (for generator bodies) an iterator. */
export type BodyResult = void | undefined | Promise<void> | Iterator<unknown, unknown, unknown> | AsyncIterator<unknown, unknown, unknown>;

/** A task body: `(key, ...inputs, out)` as a plain, async, generator or async generator function. */
export type Body<K, Ins extends readonly AnyEdge[], Outs extends readonly AnyEdge[]> =
  (key: K, ...args: [...InputValues<Ins>, Out<Outs>]) => BodyResult;
