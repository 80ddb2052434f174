/**
 * The halo of a block for the 27-point operator: its faces, edges and corners towards each of up
 * to 26 neighbouring ranks. A piece is packed from the sender's owned points next to that
 * neighbour and unpacked into the receiver's ghost points on the opposite side, both walked in
 * the same order (z, y, x).
 */
import { rankAt, type Geometry } from './geometry.js';
import type { Vec } from './vectors.js';

/** Direction code of (dx, dy, dz), each in -1..1: 0..26, 13 being the block itself. */
export const direction = (dx: number, dy: number, dz: number): number => dx + 1 + 3 * (dy + 1) + 9 * (dz + 1);

function delta(code: number): [number, number, number] {
  return [(code % 3) - 1, (Math.floor(code / 3) % 3) - 1, Math.floor(code / 9) - 1];
}

/** The ranks around `g`'s block: [direction code, rank] for each one that exists. */
export function neighbours(g: Geometry): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (let code = 0; code < 27; code++) {
    if (code === 13) continue;
    const [dx, dy, dz] = delta(code);
    const r = rankAt(g, g.ipx + dx, g.ipy + dy, g.ipz + dz);
    if (r >= 0) out.push([code, r]);
  }
  return out;
}

/** Index range along one axis: owned points next to side d (-1: first, 1: last, 0: all), or ghosts beyond it. */
function range(n: number, d: number, ghost: boolean): [number, number] {
  if (d === 0) return [0, n];
  if (ghost) return d < 0 ? [-1, 0] : [n, n + 1];
  return d < 0 ? [0, 1] : [n - 1, n];
}

function walk(v: Vec, code: number, ghost: boolean, f: (i: number) => void): void {
  const [dx, dy, dz] = delta(code);
  const [x0, x1] = range(v.g.nx, dx, ghost);
  const [y0, y1] = range(v.g.ny, dy, ghost);
  const [z0, z1] = range(v.g.nz, dz, ghost);
  for (let z = z0; z < z1; z++) for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) f(v.at(x, y, z));
}

/** The owned points of `v` that the neighbour in direction `code` needs. */
export function pack(v: Vec, code: number): Float64Array {
  const out: number[] = [];
  walk(v, code, false, (i) => out.push(v.data[i]!));
  return Float64Array.from(out);
}

/** Writes a piece from the neighbour in direction `code` into `v`'s ghost points on that side. */
export function unpack(v: Vec, code: number, piece: Float64Array): void {
  let k = 0;
  walk(v, code, true, (i) => { v.data[i] = piece[k++]!; });
  if (k !== piece.length) throw new Error(`halo piece from direction ${code} has ${piece.length} values, the ghost region ${k}`);
}
