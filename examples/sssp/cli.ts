/**
 * Command-line options of the SSSP example:
 * `--vertices N --degree D --seed S --graph random|geometric --mtx FILE --layout cyclic|block --schedule phases|priorities --source V --delta Δ --out FILE --check --json --trace FILE`.
 */
import { parseFlags } from '../common/flags.js';
import type { CommonOptions } from '../common/setup.js';
import type { Schedule } from './sssp.js';

/** How the graph is made. */
export type GraphKind = 'random' | 'geometric';

/** Which rank owns vertex v: v mod ranks (as bale), or blocks of consecutive vertices. */
export type Layout = 'cyclic' | 'block';

/** Parsed options. */
export interface Options extends CommonOptions {
  vertices: number;
  /** Average out-degree of a generated graph. */
  degree: number;
  seed: number;
  graph: GraphKind;
  /** A Matrix Market file to read instead of generating a graph. */
  mtx: string | undefined;
  layout: Layout;
  schedule: Schedule;
  /** The source vertex, 0-based. */
  source: number;
  /** Bucket width; undefined: the largest weight over the average out-degree (graph.ts). */
  delta: number | undefined;
  /** Where rank 0 writes every distance, one per line. */
  out: string | undefined;
  check: boolean;
  json: boolean;
}

const USAGE = `usage: sssp [--vertices N] [--degree D] [--seed S] [--graph random|geometric] [--mtx FILE] [--layout cyclic|block]
            [--schedule phases|priorities] [--source V] [--delta DELTA] [--out FILE] [--check] [--json] [--trace FILE]
  shortest distances from vertex V (0-based) by delta-stepping with buckets of width DELTA (default:
  the largest weight / the average out-degree; Infinity: one bucket), a phase per bucket ended by a
  fence, or (--schedule priorities) lower buckets first in one phase; the graph has N vertices and
  about N * D directed edges weighted in (0, 1], uniform ('random') or between points closer than a
  radius in the unit square ('geometric'), or comes from a Matrix Market coordinate file (row ->
  column, real, integer or pattern weights, general or symmetric); vertex v is on rank v mod ranks
  (cyclic, as bale) or in blocks of consecutive vertices; --check compares every distance with
  Dijkstra's on rank 0; --out writes the distances, one per line`;

/** Parses `argv`; throws with the usage text on anything it does not understand. */
export function parseArgs(argv: readonly string[]): Options {
  const o = parseFlags<Options>(argv, {
    vertices: 20_000, degree: 5, seed: 1, graph: 'random', mtx: undefined, layout: 'cyclic', schedule: 'phases', source: 0, delta: undefined, out: undefined,
    check: false, json: false, trace: undefined, backend: undefined, workers: undefined, devices: undefined, memory: undefined,
  }, {
    bools: ['check', 'json'],
    ints: ['vertices', 'seed'],
    strings: ['graph', 'mtx', 'layout', 'schedule', 'out', 'trace'],
    numbers: {
      degree: (d) => (d > 0 && Number.isFinite(d) ? undefined : 'a positive number'),
      delta: (d) => (d > 0 ? undefined : 'positive (Infinity: one bucket)'),
      source: (v) => (Number.isInteger(v) && v >= 0 ? undefined : 'a vertex number (0-based)'),
    },
  }, USAGE);
  if (o.graph !== 'random' && o.graph !== 'geometric') throw new Error(`--graph must be random or geometric, got '${String(o.graph)}'\n${USAGE}`);
  if (o.layout !== 'cyclic' && o.layout !== 'block') throw new Error(`--layout must be cyclic or block, got '${String(o.layout)}'\n${USAGE}`);
  if (o.schedule !== 'phases' && o.schedule !== 'priorities') throw new Error(`--schedule must be phases or priorities, got '${String(o.schedule)}'\n${USAGE}`);
  if (o.mtx === undefined && o.source >= o.vertices) throw new Error(`--source must be below --vertices (${o.vertices}), got ${o.source}\n${USAGE}`);
  if (o.mtx === undefined && o.vertices * o.degree >= 2 ** 31) throw new Error(`--vertices times --degree must be below 2^31 edges, got ${o.vertices * o.degree}\n${USAGE}`);
  return o;
}
