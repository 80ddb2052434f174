/**
 * HPCG's geometry: the ranks as an npx x npy x npz grid (HPCG's ComputeOptimalShapeXYZ), each
 * owning an nx x ny x nz block of the global grid, and the coarser levels of the multigrid.
 */

/** One rank's block at one level. */
export interface Geometry {
  rank: number;
  size: number;
  npx: number; npy: number; npz: number;
  /** This rank's position in the process grid. */
  ipx: number; ipy: number; ipz: number;
  /** Local points per dimension. */
  nx: number; ny: number; nz: number;
  /** Global points per dimension. */
  gnx: number; gny: number; gnz: number;
  /** Global coordinates of the block's first point. */
  gix0: number; giy0: number; giz0: number;
}

function primeFactors(n: number): Map<number, number> {
  const f = new Map<number, number>();
  for (; n > 1 && n % 2 === 0; n /= 2) f.set(2, (f.get(2) ?? 0) + 1);
  const sq = Math.floor(Math.sqrt(n)) + 1;
  for (let d = 3; d <= sq; d += 2) {
    while (n % d === 0) {
      f.set(d, (f.get(d) ?? 0) + 1);
      n /= d;
    }
  }
  if (n > 1 || f.size === 0) f.set(n, (f.get(n) ?? 0) + 1);
  return f;
}

/** HPCG's process grid for `size` ranks (its ComputeOptimalShapeXYZ, prime-factor version). */
export function processGrid(size: number): [number, number, number] {
  const f = [...primeFactors(size)].sort((a, b) => a[0] - b[0]);
  const [x0, cx] = f[0]!;
  if (f.length === 1) {
    return [x0 ** (Math.floor(cx / 3) + (cx % 3 >= 1 ? 1 : 0)), x0 ** (Math.floor(cx / 3) + (cx % 3 >= 2 ? 1 : 0)), x0 ** Math.floor(cx / 3)];
  }
  const [y0, cy] = f[1]!;
  if (f.length === 2 && cx === 1 && cy === 1) return [x0, y0, 1];
  if (f.length === 2 && cx + cy === 3) return [x0, y0, cx === 2 ? x0 : y0];
  if (f.length === 3 && cx === 1 && cy === 1 && f[2]![1] === 1) return [x0, y0, f[2]![0]];
  // every split of the prime factors into three, the one of least surface; the first found of
  // equal ones, in the order of HPCG's MixedBaseCounter (the first prime's exponent counts fastest)
  const primes = f.map(([p]) => p);
  const counts = f.map(([, c]) => c);
  let best: [number, number, number] = [size, 1, 1];
  let least = 2 * size + 1;
  for (const e1 of exponents(counts)) {
    for (const e2 of exponents(counts.map((c, i) => c - e1[i]!))) {
      const a = product(primes, e1);
      const b = product(primes, e2);
      const c = size / a / b;
      const area = a * b + b * c + a * c;
      if (area < least) {
        least = area;
        best = [a, b, c];
      }
    }
  }
  return best;
}

/** Every non-zero exponent vector up to `max`, the first exponent counting fastest. */
function* exponents(max: number[]): Generator<number[]> {
  const cur = max.map(() => 0);
  for (;;) {
    let i = 0;
    for (; i < cur.length; i++) {
      if (++cur[i]! <= max[i]!) break;
      cur[i] = 0;
    }
    if (i === cur.length) return;
    yield cur.slice();
  }
}

function product(primes: number[], e: number[]): number {
  return primes.reduce((x, p, i) => x * p ** e[i]!, 1);
}

/** Rank `rank` of `size` with a local block of nx x ny x nz points. */
export function geometry(rank: number, size: number, nx: number, ny: number, nz: number): Geometry {
  const [npx, npy, npz] = processGrid(size);
  const ipz = Math.floor(rank / (npx * npy));
  const ipy = Math.floor((rank - ipz * npx * npy) / npx);
  const ipx = rank % npx;
  return {
    rank, size, npx, npy, npz, ipx, ipy, ipz, nx, ny, nz,
    gnx: npx * nx, gny: npy * ny, gnz: npz * nz, gix0: ipx * nx, giy0: ipy * ny, giz0: ipz * nz,
  };
}

/** The next coarser level: every dimension halved (HPCG's GenerateCoarseProblem). */
export function coarsen(g: Geometry): Geometry {
  return geometry(g.rank, g.size, g.nx / 2, g.ny / 2, g.nz / 2);
}

/** The rank at process-grid position (px, py, pz), or -1 outside the grid. */
export function rankAt(g: Geometry, px: number, py: number, pz: number): number {
  if (px < 0 || py < 0 || pz < 0 || px >= g.npx || py >= g.npy || pz >= g.npz) return -1;
  return pz * g.npx * g.npy + py * g.npx + px;
}
