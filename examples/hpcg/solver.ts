/**
 * HPCG's algorithms (CG_ref, ComputeMG_ref, TestSymmetry) for one rank, written as generators:
 * each `yield` is where the reference communicates. `{ halo: v }` asks for v's ghost points from
 * the neighbouring ranks (its ExchangeHalo); `{ dot: part }` asks for the sum of every rank's part
 * (its MPI_Allreduce) and resumes with it. Whoever runs the generators supplies both: the task
 * graph (graph.ts), or the single-process simulation that checks it (simulate.ts). The kernels
 * come from the rank's `Kernels` (kernels.ts), JavaScript or native, and compute when called.
 */
import { coarsen, type Geometry } from './geometry.js';
import { jsKernels } from './kernels.js';
import { fineOfCoarse, rhs, Vec } from './vectors.js';

/** What a step waits for. */
export type Request = { halo: Vec } | { dot: number };
/** A rank's program: yields requests, is resumed with a dot product's sum (or nothing). */
export type Program<T> = Generator<Request, T, number | undefined>;

/** HPCG's kernels for one rank (vectors.ts says what each computes). */
export interface Kernels {
  spmv(x: Vec, y: Vec): void;
  symgs(r: Vec, x: Vec): void;
  waxpby(alpha: number, x: Vec, beta: number, y: Vec, w: Vec): void;
  /** This rank's part of x · y. */
  dot(x: Vec, y: Vec): number;
  restrict(rf: Vec, axf: Vec, rc: Vec, f2c: Int32Array): void;
  prolong(xc: Vec, xf: Vec, f2c: Int32Array): void;
  /** Sets the owned points of `v` to `value`. */
  fill(v: Vec, value: number): void;
  /** Copies the owned points of `from` into `to`. */
  copy(from: Vec, to: Vec): void;
}

/** Multigrid levels, as in HPCG. */
export const LEVELS = 4;

/** One rank's vectors at every level. */
export class RankData {
  readonly levels: Array<{ g: Geometry; x: Vec; r: Vec; axf: Vec; f2c: Int32Array | undefined }> = [];
  readonly b: Vec;
  readonly x: Vec;
  readonly r: Vec;
  readonly z: Vec;
  readonly p: Vec;
  readonly ap: Vec;

  /** `k`: the kernels this rank's programs run. */
  constructor(g: Geometry, readonly k: Kernels = jsKernels) {
    let level = g;
    for (let l = 0; l < LEVELS; l++) {
      this.levels.push({ g: level, x: new Vec(level), r: new Vec(level), axf: new Vec(level), f2c: undefined });
      if (l + 1 < LEVELS) level = coarsen(level);
    }
    for (let l = 0; l + 1 < LEVELS; l++) this.levels[l]!.f2c = fineOfCoarse(this.levels[l]!.x, this.levels[l + 1]!.x);
    [this.b, this.x, this.r, this.z, this.p, this.ap] = [0, 1, 2, 3, 4, 5].map(() => new Vec(g)) as [Vec, Vec, Vec, Vec, Vec, Vec];
    rhs(this.b);
  }
}

/** z = M⁻¹ r at level l: the V-cycle of HPCG's ComputeMG_ref (one pre- and one post-smoothing sweep). */
export function* mg(d: RankData, l: number, r: Vec, x: Vec): Program<void> {
  const { k } = d;
  k.fill(x, 0);
  const lv = d.levels[l]!;
  if (l + 1 < LEVELS) {
    const next = d.levels[l + 1]!;
    yield { halo: x };
    k.symgs(r, x);
    yield { halo: x };
    k.spmv(x, lv.axf);
    k.restrict(r, lv.axf, next.r, lv.f2c!);
    yield* mg(d, l + 1, next.r, next.x);
    k.prolong(next.x, x, lv.f2c!);
    yield { halo: x };
    k.symgs(r, x);
  } else {
    yield { halo: x };
    k.symgs(r, x);
  }
}

/** x · y over every rank: this rank's part, summed by whoever runs the program. */
function* globalDot(k: Kernels, x: Vec, y: Vec): Program<number> {
  return (yield { dot: k.dot(x, y) })!;
}

/** What a CG run ends with. */
export interface CgResult { iterations: number; normr: number; normr0: number }

/** HPCG's CG_ref from x = 0: `maxIter` iterations at most, stopping once normr / normr0 <= tolerance. */
export function* cg(d: RankData, maxIter: number, tolerance: number, precondition: boolean): Program<CgResult> {
  const { b, x, r, z, p, ap, k } = d;
  const dot = (u: Vec, v: Vec) => globalDot(k, u, v);
  k.fill(x, 0);
  k.copy(x, p);
  yield { halo: p };
  k.spmv(p, ap);
  k.waxpby(1.0, b, -1.0, ap, r);
  let normr = Math.sqrt(yield* dot(r, r));
  const normr0 = normr;
  let rtz = 0;
  let iterations = 0;
  for (let it = 1; it <= maxIter && normr / normr0 > tolerance; it++) {
    if (precondition) yield* mg(d, 0, r, z);
    else k.waxpby(1.0, r, 0.0, r, z);
    if (it === 1) {
      k.copy(z, p);
      rtz = yield* dot(r, z);
    } else {
      const oldrtz = rtz;
      rtz = yield* dot(r, z);
      k.waxpby(1.0, z, rtz / oldrtz, p, p);
    }
    yield { halo: p };
    k.spmv(p, ap);
    const alpha = rtz / (yield* dot(p, ap));
    k.waxpby(1.0, x, alpha, p, x);
    k.waxpby(1.0, r, -alpha, ap, r);
    normr = Math.sqrt(yield* dot(r, r));
    iterations = it;
  }
  return { iterations, normr, normr0 };
}

/** Departures from symmetry, scaled as HPCG's TestSymmetry scales them (each should be <= 1). */
export interface Symmetry { spmv: number; mg: number }

/** HPCG's TestSymmetry of A and of the preconditioner, with reproducible pseudo-random vectors. */
export function* symmetry(d: RankData): Program<Symmetry> {
  const { k } = d;
  const dot = (u: Vec, v: Vec) => globalDot(k, u, v);
  const g = d.levels[0]!.g;
  const xv = new Vec(g), yv = new Vec(g), zv = new Vec(g);
  randomFill(xv, 1);
  randomFill(yv, 2);
  const aNorm = 2 * 26.0;
  const yNorm2 = yield* dot(yv, yv);
  yield { halo: yv };
  k.spmv(yv, zv);
  const xtAy = yield* dot(xv, zv);
  const xNorm2 = yield* dot(xv, xv);
  yield { halo: xv };
  k.spmv(xv, zv);
  const ytAx = yield* dot(yv, zv);
  const scale = (xNorm2 * aNorm * yNorm2 + yNorm2 * aNorm * xNorm2) * Number.EPSILON;
  yield* mg(d, 0, yv, zv);
  const xtMy = yield* dot(xv, zv);
  yield* mg(d, 0, xv, zv);
  const ytMx = yield* dot(yv, zv);
  return { spmv: Math.abs(xtAy - ytAx) / scale, mg: Math.abs(xtMy - ytMx) / scale };
}

/** Values in [0, 1) from the global index of each point and a seed, the same at any rank count. */
function randomFill(v: Vec, seed: number): void {
  const g = v.g;
  for (let iz = 0; iz < g.nz; iz++) for (let iy = 0; iy < g.ny; iy++) for (let ix = 0; ix < g.nx; ix++) {
    let h = (((g.giz0 + iz) * g.gny + g.giy0 + iy) * g.gnx + g.gix0 + ix) * 2654435761 + seed * 40503;
    h = Math.imul(h ^ (h >>> 15), 2246822507);
    h = Math.imul(h ^ (h >>> 13), 3266489909);
    v.data[v.at(ix, iy, iz)] = ((h ^ (h >>> 16)) >>> 0) / 4294967296;
  }
}
