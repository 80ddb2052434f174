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

// The operator's row is 26 on the diagonal (the 14th of its 27 entries) and -1 elsewhere; adding
// -1 * v is subtracting v and subtracting -1 * v is adding v, bit for bit, so the kernels below
// compute HPCG's sums exactly without multiplying by -1. Each row's 27 terms are written out in
// HPCG's order (z, then y, then x offsets from -1 to 1): V8 keeps the strides in registers, where a
// loop over an offset table reloads each offset and checks each access twice.

/** y = A x (HPCG's ComputeSPMV_ref); x's ghosts must be current. */
export function spmv(x: Vec, y: Vec): void {
  const xv = x.data, yv = y.data;
  const nx = x.g.nx, sy = x.sy, sz = x.sz;
  const lines = x.lines;
  for (let l = 0; l < lines.length; l++) {
    const base = lines[l]!;
    for (let i = base; i < base + nx; i++) {
      let s = 0.0;
      let p = i - sz - sy;
      s -= xv[p - 1]!; s -= xv[p]!; s -= xv[p + 1]!;
      p = i - sz;
      s -= xv[p - 1]!; s -= xv[p]!; s -= xv[p + 1]!;
      p = i - sz + sy;
      s -= xv[p - 1]!; s -= xv[p]!; s -= xv[p + 1]!;
      p = i - sy;
      s -= xv[p - 1]!; s -= xv[p]!; s -= xv[p + 1]!;
      s -= xv[i - 1]!; s += 26.0 * xv[i]!; s -= xv[i + 1]!;
      p = i + sy;
      s -= xv[p - 1]!; s -= xv[p]!; s -= xv[p + 1]!;
      p = i + sz - sy;
      s -= xv[p - 1]!; s -= xv[p]!; s -= xv[p + 1]!;
      p = i + sz;
      s -= xv[p - 1]!; s -= xv[p]!; s -= xv[p + 1]!;
      p = i + sz + sy;
      s -= xv[p - 1]!; s -= xv[p]!; s -= xv[p + 1]!;
      yv[i] = s;
    }
  }
}

/**
 * One symmetric Gauss-Seidel sweep for A x = r (HPCG's ComputeSYMGS_ref): rows forward, then
 * backward; each x_i from r_i and the current values around it, in HPCG's order. x's ghosts must
 * be current. One copy of the row for both passes, so V8 compiles it once, inside the loop.
 */
export function symgs(r: Vec, x: Vec): void {
  const xv = x.data, rv = r.data;
  const nx = x.g.nx, sy = x.sy, sz = x.sz;
  const lines = x.lines;
  const L = lines.length;
  for (let pass = 0; pass < 2; pass++) {
    const step = pass === 0 ? 1 : -1;
    for (let q = 0; q < L; q++) {
      const l = pass === 0 ? q : L - 1 - q;
      for (let n = 0, i = pass === 0 ? lines[l]! : lines[l]! + nx - 1; n < nx; n++, i += step) {
        let s = rv[i]!;
        let p = i - sz - sy;
        s += xv[p - 1]!; s += xv[p]!; s += xv[p + 1]!;
        p = i - sz;
        s += xv[p - 1]!; s += xv[p]!; s += xv[p + 1]!;
        p = i - sz + sy;
        s += xv[p - 1]!; s += xv[p]!; s += xv[p + 1]!;
        p = i - sy;
        s += xv[p - 1]!; s += xv[p]!; s += xv[p + 1]!;
        const d = xv[i]!;
        s += xv[i - 1]!; s -= 26.0 * d; s += xv[i + 1]!;
        p = i + sy;
        s += xv[p - 1]!; s += xv[p]!; s += xv[p + 1]!;
        p = i + sz - sy;
        s += xv[p - 1]!; s += xv[p]!; s += xv[p + 1]!;
        p = i + sz;
        s += xv[p - 1]!; s += xv[p]!; s += xv[p + 1]!;
        p = i + sz + sy;
        s += xv[p - 1]!; s += xv[p]!; s += xv[p + 1]!;
        s += d * 26.0;
        xv[i] = s / 26.0;
      }
    }
  }
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
