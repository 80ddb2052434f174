/**
 * HPCG's vectors and kernels, matrix-free: the 27-point operator (26 on the diagonal, -1 for
 * each neighbour inside the global grid) applied to a block stored with a one-point ghost layer.
 * Ghost points outside the global grid stay 0, so each row sums the same terms as HPCG's sparse
 * rows, in the same order (z, then y, then x neighbour offsets from -1 to 1): a -1 times a zero
 * ghost adds -0, which leaves any sum unchanged.
 */
import type { Geometry } from './geometry.js';

/** A block of values with its ghost layer. */
export class Vec {
  readonly data: Float64Array;
  /** Strides of the ghosted layout: x, then y, then z. */
  readonly sy: number;
  readonly sz: number;
  constructor(readonly g: Geometry) {
    this.sy = g.nx + 2;
    this.sz = (g.nx + 2) * (g.ny + 2);
    this.data = new Float64Array(this.sz * (g.nz + 2));
  }

  /** Index of local point (ix, iy, iz), each from -1 (ghost) to n (ghost). */
  at(ix: number, iy: number, iz: number): number {
    return (iz + 1) * this.sz + (iy + 1) * this.sy + ix + 1;
  }

  /** Index of the first owned point of each x-line, in HPCG's row order (z, then y). */
  get lines(): Int32Array {
    if (this.lineStarts === undefined) {
      const { ny, nz } = this.g;
      this.lineStarts = new Int32Array(ny * nz);
      for (let iz = 0; iz < nz; iz++) for (let iy = 0; iy < ny; iy++) this.lineStarts[iz * ny + iy] = this.at(0, iy, iz);
    }
    return this.lineStarts;
  }

  private lineStarts: Int32Array | undefined;

  /** Calls `f(index, row)` for every owned point in HPCG's row order (x fastest). */
  forRows(f: (i: number, row: number) => void): void {
    const { nx, ny, nz } = this.g;
    let row = 0;
    for (let iz = 0; iz < nz; iz++) for (let iy = 0; iy < ny; iy++) {
      const base = this.at(0, iy, iz);
      for (let ix = 0; ix < nx; ix++) f(base + ix, row++);
    }
  }
}

/** The 27 offsets of a row's neighbours in the ghosted layout, in HPCG's order. */
function offsets(v: Vec): Int32Array {
  const o = new Int32Array(27);
  let n = 0;
  for (let sz = -1; sz <= 1; sz++) for (let sy = -1; sy <= 1; sy++) for (let sx = -1; sx <= 1; sx++) o[n++] = sz * v.sz + sy * v.sy + sx;
  return o;
}

// The operator's row is 26 on the diagonal (the 14th of its 27 entries) and -1 elsewhere; adding
// -1 * v is subtracting v and subtracting -1 * v is adding v, bit for bit, so the kernels below
// compute HPCG's sums exactly without multiplying by -1.

/** y = A x (HPCG's ComputeSPMV_ref); x's ghosts must be current. */
export function spmv(x: Vec, y: Vec): void {
  const o = offsets(x);
  const xv = x.data, yv = y.data;
  const nx = x.g.nx;
  for (const base of x.lines) {
    for (let i = base; i < base + nx; i++) {
      let sum = 0.0;
      for (let j = 0; j < 13; j++) sum -= xv[i + o[j]!]!;
      sum += 26.0 * xv[i]!;
      for (let j = 14; j < 27; j++) sum -= xv[i + o[j]!]!;
      yv[i] = sum;
    }
  }
}

/** One row of a Gauss-Seidel sweep: x_i from r_i and the current values around it. */
function relax(xv: Float64Array, rv: Float64Array, o: Int32Array, i: number): void {
  let sum = rv[i]!;
  for (let j = 0; j < 13; j++) sum += xv[i + o[j]!]!;
  sum -= 26.0 * xv[i]!;
  for (let j = 14; j < 27; j++) sum += xv[i + o[j]!]!;
  sum += xv[i]! * 26.0;
  xv[i] = sum / 26.0;
}

/** One symmetric Gauss-Seidel sweep for A x = r (HPCG's ComputeSYMGS_ref); x's ghosts must be current. */
export function symgs(r: Vec, x: Vec): void {
  const o = offsets(x);
  const xv = x.data, rv = r.data;
  const nx = x.g.nx;
  const lines = x.lines;
  for (let l = 0; l < lines.length; l++) for (let i = lines[l]!; i < lines[l]! + nx; i++) relax(xv, rv, o, i);
  for (let l = lines.length - 1; l >= 0; l--) for (let i = lines[l]! + nx - 1; i >= lines[l]!; i--) relax(xv, rv, o, i);
}

/** This rank's part of x · y (HPCG's ComputeDotProduct_ref before its MPI_Allreduce). */
export function dotPart(x: Vec, y: Vec): number {
  const xv = x.data, yv = y.data;
  const nx = x.g.nx;
  let s = 0.0;
  for (const base of x.lines) {
    if (x === y) for (let i = base; i < base + nx; i++) s += xv[i]! * xv[i]!;
    else for (let i = base; i < base + nx; i++) s += xv[i]! * yv[i]!;
  }
  return s;
}

/** w = alpha x + beta y (HPCG's ComputeWAXPBY_ref, with its special cases). */
export function waxpby(alpha: number, x: Vec, beta: number, y: Vec, w: Vec): void {
  const xv = x.data, yv = y.data, wv = w.data;
  const nx = x.g.nx;
  for (const base of x.lines) {
    const end = base + nx;
    if (alpha === 1.0) for (let i = base; i < end; i++) wv[i] = xv[i]! + beta * yv[i]!;
    else if (beta === 1.0) for (let i = base; i < end; i++) wv[i] = alpha * xv[i]! + yv[i]!;
    else for (let i = base; i < end; i++) wv[i] = alpha * xv[i]! + beta * yv[i]!;
  }
}

/** Sets the owned points of `v` to `value` (ghosts are left alone). */
export function fill(v: Vec, value: number): void {
  const d = v.data;
  v.forRows((i) => { d[i] = value; });
}

/** Copies the owned points of `from` into `to`. */
export function copy(from: Vec, to: Vec): void {
  const f = from.data, t = to.data;
  from.forRows((i) => { t[i] = f[i]!; });
}

/** The fine-grid index of each coarse point (HPCG's f2cOperator: fine point (2i, 2j, 2k)). */
export function fineOfCoarse(fine: Vec, coarse: Vec): Int32Array {
  const f2c = new Int32Array(coarse.g.nx * coarse.g.ny * coarse.g.nz);
  const { nx, ny, nz } = coarse.g;
  let n = 0;
  for (let iz = 0; iz < nz; iz++) for (let iy = 0; iy < ny; iy++) for (let ix = 0; ix < nx; ix++) f2c[n++] = fine.at(2 * ix, 2 * iy, 2 * iz);
  return f2c;
}

/** rc = rf - Axf at the injected points (HPCG's ComputeRestriction_ref). */
export function restrict(rf: Vec, axf: Vec, rc: Vec, f2c: Int32Array): void {
  const r = rf.data, a = axf.data, c = rc.data;
  rc.forRows((i, row) => { c[i] = r[f2c[row]!]! - a[f2c[row]!]!; });
}

/** xf += xc at the injected points (HPCG's ComputeProlongation_ref). */
export function prolong(xc: Vec, xf: Vec, f2c: Int32Array): void {
  const c = xc.data, f = xf.data;
  xc.forRows((i, row) => { f[f2c[row]!]! += c[i]!; });
}

/** HPCG's right-hand side: 26 minus the number of off-diagonal entries of the row (exact solution all ones). */
export function rhs(b: Vec): void {
  const g = b.g;
  const d = b.data;
  let row = 0;
  for (let iz = 0; iz < g.nz; iz++) for (let iy = 0; iy < g.ny; iy++) for (let ix = 0; ix < g.nx; ix++, row++) {
    const n = (ax: number, a0: number, ga: number) => (a0 + ax > 0 ? 1 : 0) + 1 + (a0 + ax < ga - 1 ? 1 : 0);
    const nnz = n(ix, g.gix0, g.gnx) * n(iy, g.giy0, g.gny) * n(iz, g.giz0, g.gnz);
    d[b.at(ix, iy, iz)] = 26.0 - (nnz - 1);
  }
}

/** Nonzeros of the operator on the whole grid of `g`'s level (for HPCG's flop count). */
export function globalNonzeros(g: Geometry): number {
  const line = (n: number) => 3 * n - 2;
  return line(g.gnx) * line(g.gny) * line(g.gnz);
}
