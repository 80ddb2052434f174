/**
 * Where everything runs, and what this rank must count. C(i,j) lives on a 2D block-cyclic
 * P x Q grid; GEMM(i,j,k) runs on the owner of C(i,j), or, with `ksplit` S > 1, the k range is cut
 * into S segments and segment s runs s ranks further on (then the partial C's meet in a reducing
 * input on the owner). A(i,k) starts on the grid rank of (i,k), B(k,j) on that of (k,j).
 * Every rank computes the same plan; the per-rank counters drive memory accounting and the
 * release of the k window.
 */
import { squareGrid } from '../common/grid.js';
import { chainOf, type Structure } from './sparse.js';

/** Placement and per-rank work of one product. */
export class Plan {
  /** Process grid. */
  readonly P: number;
  readonly Q: number;
  /** Number of tiles of M, K and N. */
  readonly mt: number;
  readonly kt: number;
  readonly nt: number;
  /** chains[i * nt + j]: the k's that contribute to C(i,j), ascending. */
  readonly chains: Int32Array[];
  /** Multiplies of each k on this rank. */
  readonly perK: Int32Array;
  /** Local multiplies using A(i,k) (`[i * kt + k]`) and B(k,j) (`[k * nt + j]`) on this rank. */
  readonly usesA: Int32Array;
  readonly usesB: Int32Array;
  /** Multiplies on this rank. */
  localGemms = 0;

  constructor(readonly s: Structure, readonly rank: number, readonly size: number, readonly ksplit = 1) {
    [this.Q, this.P] = squareGrid(size);
    this.mt = s.rows.count;
    this.kt = s.inner.count;
    this.nt = s.cols.count;
    this.ksplit = Math.max(1, Math.min(ksplit, this.kt));
    this.chains = [];
    this.perK = new Int32Array(this.kt);
    this.usesA = new Int32Array(this.mt * this.kt);
    this.usesB = new Int32Array(this.kt * this.nt);
    for (let i = 0; i < this.mt; i++) {
      for (let j = 0; j < this.nt; j++) {
        const ks = Int32Array.from(chainOf(s, i, j));
        this.chains.push(ks);
        for (const k of ks) {
          if (this.gemmRank(i, j, k) !== rank) continue;
          this.perK[k]!++;
          this.usesA[i * this.kt + k]!++;
          this.usesB[k * this.nt + j]!++;
          this.localGemms++;
        }
      }
    }
  }

  /** Owner of C(i,j) (2D block-cyclic). */
  cOwner(i: number, j: number): number {
    return (i % this.P) * this.Q + (j % this.Q);
  }

  /** Where A(i,k) is generated and broadcast from. */
  aOwner(i: number, k: number): number {
    return (i % this.P) * this.Q + (k % this.Q);
  }

  /** Where B(k,j) is generated and broadcast from. */
  bOwner(k: number, j: number): number {
    return (k % this.P) * this.Q + (j % this.Q);
  }

  /** The k segment of `k` (0 unless ksplit > 1). */
  segment(k: number): number {
    return Math.floor((k * this.ksplit) / this.kt);
  }

  /** The rank of C(i,j)'s segment `seg`. */
  segmentRank(i: number, j: number, seg: number): number {
    return (this.cOwner(i, j) + seg) % this.size;
  }

  /** The rank that runs GEMM(i,j,k). */
  gemmRank(i: number, j: number, k: number): number {
    return this.segmentRank(i, j, this.segment(k));
  }

  /** The k's of C(i,j)'s chain. */
  chain(i: number, j: number): Int32Array {
    return this.chains[i * this.nt + j]!;
  }

  /** The next k after `k` in C(i,j)'s chain within the same segment, or -1 at a segment's end. */
  next(i: number, j: number, k: number): number {
    const ks = this.chain(i, j);
    let lo = 0;
    let hi = ks.length - 1;
    while (lo < hi) { // first index with ks[idx] >= k
      const mid = (lo + hi) >> 1;
      if (ks[mid]! < k) lo = mid + 1;
      else hi = mid;
    }
    const nk = lo + 1 < ks.length ? ks[lo + 1]! : -1;
    return nk >= 0 && this.segment(nk) === this.segment(k) ? nk : -1;
  }

  /** The non-empty segments of C(i,j)'s chain, each with its first k. */
  segments(i: number, j: number): Array<{ seg: number; first: number }> {
    const out: Array<{ seg: number; first: number }> = [];
    for (const k of this.chain(i, j)) {
      const seg = this.segment(k);
      if (out.length === 0 || out[out.length - 1]!.seg !== seg) out.push({ seg, first: k });
    }
    return out;
  }
}
