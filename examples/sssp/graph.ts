/**
 * The SSSP example's graphs: directed, weighted, in compressed rows (the out-edges of vertex v are
 * `heads[offsets[v] .. offsets[v + 1])`), made from a seed by every rank alike, so that no rank
 * has to send the graph: `random` (G(n, m): tail and head uniform) and `geometric` (points in the
 * unit square, an edge each way between two closer than the radius that gives the asked degree).
 * Weights are uniform in (0, 1]; self-loops and parallel edges may occur and change nothing.
 */

/** A directed weighted graph in compressed rows. */
export interface Graph {
  /** Number of vertices. */
  n: number;
  /** `n + 1` offsets into `heads` and `weights`. */
  offsets: Int32Array;
  /** Head of each edge, grouped by tail. */
  heads: Int32Array;
  /** Weight of each edge, at least 0. */
  weights: Float64Array;
}

/** A deterministic source of doubles in [0, 1) (mulberry32: the same stream on every rank and platform). */
export function random01(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Compressed rows from edge lists in any order; edges of one tail keep their order. */
export function fromEdges(n: number, tails: Int32Array, heads: Int32Array, weights: Float64Array): Graph {
  const m = tails.length;
  const offsets = new Int32Array(n + 1);
  for (let e = 0; e < m; e++) offsets[tails[e]! + 1]!++;
  for (let v = 0; v < n; v++) offsets[v + 1]! += offsets[v]!;
  const next = offsets.slice(0, n);
  const h = new Int32Array(m);
  const w = new Float64Array(m);
  for (let e = 0; e < m; e++) {
    const at = next[tails[e]!]!++;
    h[at] = heads[e]!;
    w[at] = weights[e]!;
  }
  return { n, offsets, heads: h, weights: w };
}

/** G(n, m) with m = round(n * degree) edges, each with a uniform tail, head and weight in (0, 1]. */
export function randomGraph(n: number, degree: number, seed: number): Graph {
  const m = Math.round(n * degree);
  const rand = random01(seed);
  const tails = new Int32Array(m), heads = new Int32Array(m), weights = new Float64Array(m);
  for (let e = 0; e < m; e++) {
    tails[e] = Math.floor(rand() * n);
    heads[e] = Math.floor(rand() * n);
    weights[e] = 1 - rand();
  }
  return fromEdges(n, tails, heads, weights);
}

/**
 * n uniform points in the unit square, an edge each way (each with its own weight in (0, 1])
 * between two points closer than r, with pi r^2 n = degree: about `degree` out-edges per vertex
 * away from the sides. Points are binned in cells of side at least r, so only neighbouring cells
 * are searched, and numbered in the order of their cells, column by column (as bale numbers its
 * geometric graphs): neighbours have nearby numbers, so owning vertices in blocks
 * (`--layout block`) gives each rank a strip of the square and few edges to other ranks.
 */
export function geometricGraph(n: number, degree: number, seed: number): Graph {
  const rand = random01(seed);
  const px = new Float64Array(n), py = new Float64Array(n);
  for (let v = 0; v < n; v++) {
    px[v] = rand();
    py[v] = rand();
  }
  const r = Math.sqrt(degree / (Math.PI * n));
  const cells = Math.max(1, Math.min(Math.floor(1 / r), Math.ceil(Math.sqrt(n))));
  const column = (c: number): number => Math.min(cells - 1, Math.floor(c * cells));
  // counting sort of the points by cell; a point's position in that order is its vertex number
  const start = new Int32Array(cells * cells + 1);
  for (let p = 0; p < n; p++) start[column(px[p]!) * cells + column(py[p]!) + 1]!++;
  for (let c = 0; c < cells * cells; c++) start[c + 1]! += start[c]!;
  const fill = start.slice(0, cells * cells);
  const x = new Float64Array(n), y = new Float64Array(n);
  for (let p = 0; p < n; p++) {
    const v = fill[column(px[p]!) * cells + column(py[p]!)]!++;
    x[v] = px[p]!;
    y[v] = py[p]!;
  }

  const offsets = new Int32Array(n + 1);
  let heads = new Int32Array(Math.max(16, Math.ceil(n * degree * 1.2)));
  let weights = new Float64Array(heads.length);
  let m = 0;
  const r2 = r * r;
  for (let v = 0; v < n; v++) {
    const cx = column(x[v]!), cy = column(y[v]!);
    for (let i = Math.max(0, cx - 1); i <= Math.min(cells - 1, cx + 1); i++) {
      for (let j = Math.max(0, cy - 1); j <= Math.min(cells - 1, cy + 1); j++) {
        const c = i * cells + j;
        for (let w = start[c]!; w < start[c + 1]!; w++) {
          const dx = x[w]! - x[v]!, dy = y[w]! - y[v]!;
          if (w === v || dx * dx + dy * dy >= r2) continue;
          if (m === heads.length) {
            const h2 = new Int32Array(m * 2), w2 = new Float64Array(m * 2);
            h2.set(heads);
            w2.set(weights);
            heads = h2;
            weights = w2;
          }
          heads[m] = w;
          weights[m++] = 1 - rand();
        }
      }
    }
    offsets[v + 1] = m;
  }
  return { n, offsets, heads: heads.slice(0, m), weights: weights.slice(0, m) };
}

/**
 * The bucket width when none is given: the largest weight over the average out-degree (Meyer
 * and Sanders' Θ(1/d) for weights in [0, 1]), so a vertex's light edges are few; 1 without edges.
 */
export function defaultDelta(g: Graph): number {
  let max = 0;
  for (const w of g.weights) if (w > max) max = w;
  const degree = g.heads.length / Math.max(1, g.n);
  return max > 0 && degree > 0 ? max / Math.max(1, degree) : 1;
}
