/**
 * The zones of the NPB-MZ-style example: a ZX x ZY grid of zones whose widths and heights grow
 * geometrically, so that the largest zone has about 20 times the points of the smallest (BT-MZ's
 * spread). Zones in one column share a width, zones in one row a height, so neighbours meet along
 * whole edges. Each zone is stored with a one-point ghost ring holding its neighbours' edge values
 * (0 on the outer boundary).
 */

/** The zone layout. */
export interface Layout {
  /** Zones per side. */
  Z: number;
  /** Width of each zone column, height of each zone row. */
  widths: number[];
  heights: number[];
  alpha: number;
  /** Jacobi sweeps per step. */
  reps: number;
}

/** Zones per side `Z`, the smallest zone `size` x `size`, `reps` sweeps a step. */
export function layout(Z: number, size: number, reps: number, alpha = 0.2): Layout {
  const q = Z > 1 ? 20 ** (1 / (2 * (Z - 1))) : 1;
  const sides = Array.from({ length: Z }, (_, i) => Math.round(size * q ** i));
  return { Z, widths: sides, heights: [...sides].reverse(), alpha, reps };
}

/** Zone `z` (row-major index) as [column, row, width, height]. */
export function zone(l: Layout, z: number): [number, number, number, number] {
  const i = z % l.Z, j = Math.floor(z / l.Z);
  return [i, j, l.widths[i]!, l.heights[j]!];
}

/** Points of zone `z` (its work per sweep). */
export const area = (l: Layout, z: number): number => l.widths[z % l.Z]! * l.heights[Math.floor(z / l.Z)]!;

/** The neighbours of zone `z`: [side of z they border (0 west, 1 east, 2 south, 3 north), zone]. */
export function neighbours(l: Layout, z: number): Array<[number, number]> {
  const [i, j] = zone(l, z);
  const out: Array<[number, number]> = [];
  if (i > 0) out.push([0, z - 1]);
  if (i < l.Z - 1) out.push([1, z + 1]);
  if (j > 0) out.push([2, z - l.Z]);
  if (j < l.Z - 1) out.push([3, z + l.Z]);
  return out;
}

/** Zone `z` at step 0, ghost ring filled from the neighbouring zones' initial values. */
export function initialZone(l: Layout, z: number): Float64Array {
  const u = initialInterior(l, z);
  for (const [side, n] of neighbours(l, z)) fillGhost(l, z, u, side, edgeOf(l, n, side ^ 1, initialInterior(l, n)));
  return u;
}

function value(z: number, x: number, y: number): number {
  return ((z * 7919 + x * 31 + y * 17) % 101) / 10;
}

/** Zone `z`'s own initial values, its ghost ring 0. */
function initialInterior(l: Layout, z: number): Float64Array {
  const [, , w, h] = zone(l, z);
  const u = new Float64Array((w + 2) * (h + 2));
  for (let y = 1; y <= h; y++) for (let x = 1; x <= w; x++) u[y * (w + 2) + x] = value(z, x, y);
  return u;
}

/** The owned points of zone `z` along `side` (0 west column, 1 east column, 2 south row, 3 north row). */
export function edgeOf(l: Layout, z: number, side: number, u: Float64Array): Float64Array {
  const [, , w, h] = zone(l, z);
  const s = w + 2;
  if (side < 2) {
    const x = side === 0 ? 1 : w;
    return Float64Array.from({ length: h }, (_, k) => u[(k + 1) * s + x]!);
  }
  const y = side === 2 ? 1 : h;
  return u.slice(y * s + 1, y * s + 1 + w);
}

/** Writes a neighbour's edge into the ghost points of zone `z` on `side`. */
export function fillGhost(l: Layout, z: number, u: Float64Array, side: number, edge: Float64Array): void {
  const [, , w, h] = zone(l, z);
  const s = w + 2;
  if (side < 2) {
    const x = side === 0 ? 0 : w + 1;
    for (let k = 0; k < h; k++) u[(k + 1) * s + x] = edge[k]!;
  } else {
    const y = side === 2 ? 0 : h + 1;
    u.set(edge, y * s + 1);
  }
}

/** `reps` sweeps of zone `z` in place, as sweep.c computes them. */
export function sweep(l: Layout, z: number, u: Float64Array): void {
  const [, , w, h] = zone(l, z);
  const s = w + 2;
  const v = new Float64Array(u.length);
  for (let rep = 0; rep < l.reps; rep++) {
    for (let y = 1; y <= h; y++) {
      for (let x = 1; x <= w; x++) {
        const i = y * s + x;
        v[i] = u[i]! + l.alpha * (u[i - s]! + u[i + s]! + u[i - 1]! + u[i + 1]! - 4 * u[i]!);
      }
    }
    for (let y = 1; y <= h; y++) u.set(v.subarray(y * s + 1, y * s + 1 + w), y * s + 1);
  }
}

/** All zones after `steps` steps, computed one zone after another in one process (the check). */
export function sequential(l: Layout, steps: number): Float64Array[] {
  const n = l.Z * l.Z;
  const zs = Array.from({ length: n }, (_, z) => initialZone(l, z));
  for (let t = 0; t < steps; t++) {
    for (let z = 0; z < n; z++) sweep(l, z, zs[z]!);
    if (t + 1 === steps) break;
    const edges = zs.map((u, z) => neighbours(l, z).map(([side]) => [side, edgeOf(l, z, side, u)] as const));
    edges.forEach((list, z) => {
      for (const [side, e] of list) {
        const n2 = neighbours(l, z).find(([sd]) => sd === side)![1];
        fillGhost(l, n2, zs[n2]!, side ^ 1, e);
      }
    });
  }
  return zs;
}
