/**
 * Input terminal `index` of a TT: where an edge delivers, and how values are combined (plain, or
 * folded by a reducer until the stream is complete).
 */
import type { InputSlot, TTBase } from '../common/model.js';

/** Folds one more value into the accumulator; may mutate `acc` and return nothing, or return a new one. */
export type Reducer<V> = (acc: V, value: V) => V | void;

/** An input terminal of a TT. */
export class InputTerminal implements InputSlot {
  /** Set by `set_input_reducer`; undefined for plain inputs. */
  reducer: Reducer<unknown> | undefined = undefined;
  /** Stream size for every key (from `set_input_reducer(i, fn, count)`), -1 when per key. */
  staticCount = -1;
  /** Stream size of each key, asked when its task is made (`set_input_reducer(i, fn, count(key))`). */
  countOf: ((key: unknown) => number) | undefined = undefined;
  /** Each key's stream ends at the world's next fence (`set_input_reducer(i, fn, 'fence')`). */
  untilFence = false;

  constructor(
    /** The TT this terminal belongs to. */
    readonly tt: TTBase,
    /** Position among the TT's inputs (the body parameter after the key). */
    readonly index: number,
    /** Name of the edge feeding it, for diagnostics. */
    readonly edgeName: string,
    /** Fed by an edge marked `{ control: true }` (every edge, when fused). */
    readonly control: boolean,
  ) {}
}
