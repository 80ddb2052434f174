/**
 * Sequential Dijkstra, the reference of --check. It adds a vertex's distance and an edge's weight
 * exactly as the task graph does (one double addition, `d + w`), so the two agree bit for bit:
 * both end with D[s] = 0 and D[w] = the least fl(D[v] + c) over w's in-edges (c >= 0 and rounding
 * is monotone, so every such fixed point reached along real paths is the same one), whatever
 * order the relaxations ran in.
 */
import type { Graph } from './graph.js';

/** Distances from `source`; Infinity where no path leads. */
export function dijkstra(g: Graph, source: number): Float64Array {
  const dist = new Float64Array(g.n).fill(Infinity);
  const done = new Uint8Array(g.n);
  // a binary heap of (distance, vertex) with lazy deletion: a vertex may sit in it several times
  let keys = new Float64Array(1024), verts = new Int32Array(1024);
  let size = 0;
  const push = (d: number, v: number): void => {
    if (size === keys.length) {
      const k2 = new Float64Array(size * 2), v2 = new Int32Array(size * 2);
      k2.set(keys);
      v2.set(verts);
      keys = k2;
      verts = v2;
    }
    let i = size++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (keys[p]! <= d) break;
      keys[i] = keys[p]!;
      verts[i] = verts[p]!;
      i = p;
    }
    keys[i] = d;
    verts[i] = v;
  };
  const pop = (): number => {
    const top = verts[0]!;
    const d = keys[--size]!, v = verts[size]!;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= size) break;
      if (c + 1 < size && keys[c + 1]! < keys[c]!) c++;
      if (keys[c]! >= d) break;
      keys[i] = keys[c]!;
      verts[i] = verts[c]!;
      i = c;
    }
    keys[i] = d;
    verts[i] = v;
    return top;
  };
  const { offsets, heads, weights } = g;
  dist[source] = 0;
  push(0, source);
  while (size > 0) {
    const v = pop();
    if (done[v] === 1) continue;
    done[v] = 1;
    const d = dist[v]!;
    for (let e = offsets[v]!; e < offsets[v + 1]!; e++) {
      const w = heads[e]!;
      const dw = d + weights[e]!;
      if (dw < dist[w]!) {
        dist[w] = dw;
        push(dw, w);
      }
    }
  }
  return dist;
}
