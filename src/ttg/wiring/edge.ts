/**
 * Edges connect output terminals to input terminals. An edge carries keys of type `K` and values
 * of type `V`; `V = void` makes it a control edge (keys only, `sendk`). Types are gone at run time:
 * `{ control: true }` tells the runtime too, which then checks sends and invokes against it.
 */
import type { InputTerminal } from './input-terminal.js';
import { Errors } from '../../base/errors.js';
import type { EdgeSource } from '../common/model.js';

/**
 * A named connection between TTs. Give the same edge object as an output of one TT and an input
 * of others; sends on that output reach every connected input terminal.
 */
export class Edge<K = unknown, V = unknown> {
  /** Name shown in errors and in `ttg.dot()`. */
  readonly name: string;
  /** @internal input terminals fed by this edge */
  readonly sinks: InputTerminal[] = [];
  /** @internal output terminals that write to this edge */
  readonly sources: EdgeSource[] = [];
  /** Phantom field that carries the edge's types; never set. */
  declare readonly __types?: [K, V];

  /**
   * Made with `{ control: true }`: a control edge the runtime knows of, as plain JavaScript can
   * mark one. A value sent on it is `E_INVALID_ARGUMENT`, and `invoke(key)` with no values is
   * `E_ARITY` on a TT whose other inputs are not all control edges. Its input still takes a
   * parameter of the body (`undefined`).
   */
  readonly control: boolean;

  constructor(name = 'edge', options: { control?: boolean } = {}) {
    if (typeof name !== 'string') throw Errors.invalidArgument('Edge name', `must be a string, got ${typeof name}`);
    if (typeof options !== 'object' || options === null || (options.control !== undefined && typeof options.control !== 'boolean')) {
      throw Errors.invalidArgument(`Edge '${name}' options`, `must be { control?: boolean }, got ${String(options?.control ?? options)}`);
    }
    this.name = name;
    this.control = options.control === true;
  }

  /** @internal edges this one stands for when used as an input (itself, or a fused set) */
  members(): readonly Edge<K, V>[] {
    return [this];
  }

}

/** Several edges feeding one input terminal, made by {@link fuse}. */
export class FusedEdge<K, V> extends Edge<K, V> {
  private readonly parts: readonly Edge<K, V>[];

  constructor(parts: readonly Edge<K, V>[]) {
    super(parts.map((e) => e.name).join('|'), { control: parts.every((e) => e.control) });
    this.parts = parts;
  }

  /** @internal */
  override members(): readonly Edge<K, V>[] {
    return this.parts.flatMap((p) => p.members());
  }
}

/**
 * Feeds one input terminal from several edges (`ttg::fuse` in C++ TTG): values sent on any of
 * them arrive at the same input. Cycles are allowed.
 */
export function fuse<K, V>(...edges: Edge<K, V>[]): Edge<K, V> {
  if (edges.length === 0) throw Errors.invalidArgument('fuse()', 'needs at least one edge');
  for (const e of edges) if (!(e instanceof Edge)) throw Errors.invalidArgument('fuse()', 'takes Edge objects only');
  return new FusedEdge(edges);
}
