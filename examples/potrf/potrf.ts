/**
 * The tiled Cholesky factorization (lower, right-looking) as a template task graph, built from
 * one small factory per kernel and wired in `make_cholesky`, as in C++ TTG's POTRF example.
 *
 *   INIT(i,j) ─▶ POTRF(k) ─▶ TRSM(m,k) ─▶ SYRK(m,k) ─▶ SYRK(m,k+1) … ─▶ POTRF(m)
 *                   │            ├──────▶ GEMM(m,n,k) ─▶ GEMM(m,n,k+1) … ─▶ TRSM(m,n)
 *                   ▼            ▼
 *                RESULT(k,k)  RESULT(m,k)
 *
 * Every kernel task is a device task: `input(...)`, enqueue the kernel on the stream it got,
 * `kernel()`, yielded by a generator body or awaited by an async one (`form`, see
 * common/device-body.ts); the same body runs on the host pool, an emulated device or CUDA. Tasks run on the rank owning the tile they write (2D block-cyclic) with
 * DPLASMA's priorities, and device hints spread tile rows over devices.
 */
import * as ttg from 'ttg';
import { owner, type Layout } from './matrix.js';
import { deviceBody, type BodyForm } from '../common/device-body.js';
import { Tile } from '../common/tile.js';

type K2 = [number, number];
type K3 = [number, number, number];

/** The edges of the factorization. */
export interface Edges {
  initPotrf: ttg.Edge<number, Tile>;
  initTrsm: ttg.Edge<K2, Tile>;
  initSyrk: ttg.Edge<K2, Tile>;
  initGemm: ttg.Edge<K3, Tile>;
  syrkPotrf: ttg.Edge<number, Tile>;
  potrfTrsm: ttg.Edge<K2, Tile>;
  gemmTrsm: ttg.Edge<K2, Tile>;
  trsmSyrk: ttg.Edge<K2, Tile>;
  syrkSyrk: ttg.Edge<K2, Tile>;
  trsmGemmRow: ttg.Edge<K3, Tile>;
  trsmGemmCol: ttg.Edge<K3, Tile>;
  gemmGemm: ttg.Edge<K3, Tile>;
  result: ttg.Edge<K2, Tile>;
}

function makeEdges(): Edges {
  return {
    initPotrf: new ttg.Edge('init→potrf'), initTrsm: new ttg.Edge('init→trsm'), initSyrk: new ttg.Edge('init→syrk'),
    initGemm: new ttg.Edge('init→gemm'), syrkPotrf: new ttg.Edge('syrk→potrf'), potrfTrsm: new ttg.Edge('potrf→trsm'),
    gemmTrsm: new ttg.Edge('gemm→trsm'), trsmSyrk: new ttg.Edge('trsm→syrk'), syrkSyrk: new ttg.Edge('syrk→syrk'),
    trsmGemmRow: new ttg.Edge('trsm→gemm(A)'), trsmGemmCol: new ttg.Edge('trsm→gemm(B)'), gemmGemm: new ttg.Edge('gemm→gemm'),
    result: new ttg.Edge('result'),
  };
}

const cube = (x: number) => x * x * x;

/** INIT(i,j): feeds a generated tile to the first task that updates it. */
function make_init(l: Layout, e: Edges, world: ttg.World | undefined) {
  const tt = ttg.make_tt((key: K2, tile: Tile, out) => {
    const [i, j] = key;
    if (i === 0 && j === 0) out.send(0, 0, tile);
    else if (j === 0) out.send(1, [i, 0], tile);
    else if (i === j) out.send(2, [i, 0], tile);
    else out.send(3, [i, j, 0], tile);
  }, [new ttg.Edge<K2, Tile>('tiles')], [e.initPotrf, e.initTrsm, e.initSyrk, e.initGemm], { world, name: 'INIT' });
  tt.set_procmap(([i, j]) => owner(l, i, j));
  return tt;
}

/** POTRF(k): factors the diagonal tile. */
function make_potrf(l: Layout, e: Edges, form: BodyForm, world: ttg.World | undefined) {
  const tt = ttg.make_tt(deviceBody(form, (k: number, A: Tile, out: ttg.Out<[typeof e.result, typeof e.potrfTrsm]>) => {
    const info = new ttg.Buffer(new Int32Array(1));
    return {
      inputs: [A.buf, info], back: [info],
      enqueue: (stream) => ttg.device.kernels.dpotrf(stream, 'L', A.rows, A.buf, A.rows, info),
      after: () => {
        if (info.host[0] !== 0) throw new Error(`tile (${k},${k}) is not positive definite (LAPACK info ${info.host[0]})`);
        const below: K2[] = [];
        for (let m = k + 1; m < l.nt; m++) below.push([m, k]);
        out.send(0, [k, k], A);
        out.broadcast(1, below, A);
      },
    };
  }), [ttg.fuse(e.initPotrf, e.syrkPotrf)], [e.result, e.potrfTrsm], { world, name: 'POTRF', consume: [0] });
  tt.set_procmap((k) => owner(l, k, k));
  tt.set_priomap((k) => cube(l.nt - k));
  return tt;
}

/** TRSM(m,k): A(m,k) = A(m,k) L(k,k)^-T. */
function make_trsm(l: Layout, e: Edges, form: BodyForm, world: ttg.World | undefined) {
  type Outs = [typeof e.result, typeof e.trsmSyrk, typeof e.trsmGemmRow, typeof e.trsmGemmCol];
  const tt = ttg.make_tt(deviceBody(form, (key: K2, L: Tile, A: Tile, out: ttg.Out<Outs>) => ({
    inputs: [L.buf, A.buf], back: [],
    enqueue: (stream) => ttg.device.kernels.dtrsm(stream, 'R', 'L', 'T', 'N', A.rows, A.cols, 1.0, L.buf, L.rows, A.buf, A.rows),
    after: () => {
      const [m, k] = key;
      const row: K3[] = [];
      const col: K3[] = [];
      for (let n = k + 1; n < m; n++) row.push([m, n, k]);
      for (let p = m + 1; p < l.nt; p++) col.push([p, m, k]);
      out.send(0, key, A);
      out.send(1, key, A);
      out.broadcast([2, 3], [row, col], A);
    },
  })), [e.potrfTrsm, ttg.fuse(e.initTrsm, e.gemmTrsm)], [e.result, e.trsmSyrk, e.trsmGemmRow, e.trsmGemmCol],
  { world, name: 'TRSM', consume: [1] });
  tt.set_procmap(([m, k]) => owner(l, m, k));
  tt.set_priomap(([m, k]) => cube(l.nt - m) + 3 * (2 * l.nt - k - m - 1) * (m - k));
  return tt;
}

/** SYRK(m,k): A(m,m) -= A(m,k) A(m,k)^T. */
function make_syrk(l: Layout, e: Edges, form: BodyForm, world: ttg.World | undefined) {
  const tt = ttg.make_tt(deviceBody(form, ([m, k]: K2, A: Tile, C: Tile, out: ttg.Out<[typeof e.syrkPotrf, typeof e.syrkSyrk]>) => ({
    inputs: [A.buf, C.buf], back: [],
    enqueue: (stream) => ttg.device.kernels.dsyrk(stream, 'L', 'N', C.rows, A.cols, -1.0, A.buf, A.rows, 1.0, C.buf, C.rows),
    after: () => {
      if (k + 1 === m) out.send(0, m, C);
      else out.send(1, [m, k + 1], C);
    },
  })), [e.trsmSyrk, ttg.fuse(e.initSyrk, e.syrkSyrk)], [e.syrkPotrf, e.syrkSyrk], { world, name: 'SYRK', consume: [1] });
  tt.set_procmap(([m]) => owner(l, m, m));
  tt.set_priomap(([m, k]) => cube(l.nt - m) + 3 * (m - k));
  return tt;
}

/** GEMM(m,n,k): A(m,n) -= A(m,k) A(n,k)^T. */
function make_gemm(l: Layout, e: Edges, form: BodyForm, world: ttg.World | undefined) {
  const tt = ttg.make_tt(deviceBody(form, ([m, n, k]: K3, A: Tile, B: Tile, C: Tile, out: ttg.Out<[typeof e.gemmTrsm, typeof e.gemmGemm]>) => ({
    inputs: [A.buf, B.buf, C.buf], back: [],
    enqueue: (stream) => ttg.device.kernels.dgemm(stream, 'N', 'T', C.rows, C.cols, A.cols, -1.0, A.buf, A.rows, B.buf, B.rows, 1.0, C.buf, C.rows),
    after: () => {
      if (k + 1 === n) out.send(0, [m, n], C);
      else out.send(1, [m, n, k + 1], C);
    },
  })), [e.trsmGemmRow, e.trsmGemmCol, ttg.fuse(e.initGemm, e.gemmGemm)], [e.gemmTrsm, e.gemmGemm], { world, name: 'GEMM', consume: [2] });
  tt.set_procmap(([m, n]) => owner(l, m, n));
  tt.set_priomap(([m, n, k]) => cube(l.nt - m) + 3 * (2 * l.nt - m - n - 3) * (m - n) + 6 * (m - k));
  return tt;
}

/**
 * The wired factorization; `onResult` receives every final tile of L on its owner rank. `form`:
 * the kernel tasks' bodies are generators yielding their device steps, or async functions
 * awaiting them.
 */
export function make_cholesky(l: Layout, onResult: (i: number, j: number, tile: Tile) => void, form: BodyForm = 'generator', world?: ttg.World) {
  const e = makeEdges();
  const init = make_init(l, e, world);
  const potrf = make_potrf(l, e, form, world);
  const trsm = make_trsm(l, e, form, world);
  const syrk = make_syrk(l, e, form, world);
  const gemm = make_gemm(l, e, form, world);
  const result = ttg.make_tt((key: K2, tile: Tile) => onResult(key[0], key[1], tile), [e.result], [], { world, name: 'RESULT' });
  result.set_procmap(([i, j]) => owner(l, i, j));
  const devices = ttg.device.num_devices();
  if (devices > 1) {
    potrf.set_devicehint((k) => k % devices);
    trsm.set_devicehint(([m]) => m % devices);
    syrk.set_devicehint(([m]) => m % devices);
    gemm.set_devicehint(([m]) => m % devices);
  }
  ttg.make_graph_executable(init, potrf, trsm, syrk, gemm, result);
  return { init, tts: [init, potrf, trsm, syrk, gemm, result] as const };
}
