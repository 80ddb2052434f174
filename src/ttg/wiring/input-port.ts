/**
 * One input terminal of a TT fed from outside any task, as C++ TTG's `tt->in<i>()->send(...)`:
 * the main program starts a graph by sending to the input it needs, on any rank; the value goes
 * to the rank that owns the key.
 */

/** @internal What a port calls on its TT (tt.ts's TT): `op` of input `idx` for `key`, from outside any task. */
export interface FedTT {
  /** Does `op` on input `idx` for `key`, as a task's send would, wherever the task lives. */
  feed(op: FeedOp, idx: number, key: unknown, value: unknown): void;
}

/** @internal The operations of a port. */
export type FeedOp = 'send' | 'sendk' | 'sendv' | 'broadcast' | 'set_size' | 'finalize';

/** Input `index` of a TT, from {@link TT.in}. */
export class InputPort<K, V> {
  /** @internal use `tt.in(i)` */
  constructor(private readonly tt: FedTT, readonly index: number) {}

  /** Sends `value` to input `index` of task `key`. */
  send(key: K, value: V): void {
    this.tt.feed('send', this.index, key, value);
  }

  /** Triggers input `index` of task `key` (a control input: no value). */
  sendk(key: K): void {
    this.tt.feed('sendk', this.index, key, undefined);
  }

  /** Sends `value` to input `index` of the task of a keyless TT. */
  sendv(value: V): void {
    this.tt.feed('sendv', this.index, undefined, value);
  }

  /** Sends `value` to input `index` of each task in `keys`. */
  broadcast(keys: Iterable<K>, value: V): void {
    for (const key of keys) this.tt.feed('broadcast', this.index, key, value);
  }

  /** Sets how many values this reducing input expects for `key` (`set_argstream_size`). */
  set_size(key: K, n: number): void {
    this.tt.feed('set_size', this.index, key, n);
  }

  /** Ends the stream of this reducing input for `key` (`finalize_argstream`). */
  finalize(key: K): void {
    this.tt.feed('finalize', this.index, key, undefined);
  }
}
