/**
 * The sssp example end to end: hand-made graphs with known distances (disconnected pieces,
 * self-loops, parallel and zero-weight edges, a symmetric pattern file), generated graphs at
 * several bucket widths, both schedules and both layouts, on 1, 2 and 3 ranks; --check compares
 * every distance with Dijkstra bit for bit; bad options and bad files leave with status 2 and
 * say what is wrong.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';

const MAIN = fileURLToPath(new URL('../../examples/sssp/main.js', import.meta.url));

interface SsspJson {
  example: string; graph: string; vertices: number; edges: number; ranks: number; layout: string; schedule: string;
  delta: number | null; source: number; seconds: number; phases: number; relaxations: number; improvements: number;
  reached: number; farthest: number; ok: boolean | null;
}

function run(np: number, args: string[]): SsspJson {
  const all = [...args, '--check', '--json'];
  const r = np === 1 ? spawnSync(process.execPath, [MAIN, ...all], { encoding: 'utf8', timeout: 120_000 }) : mpirun(np, MAIN, all);
  expect(r.status, r.stderr).to.equal(0);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as SsspJson;
}

/** A Matrix Market file of 1-based (row, column, weight) entries, `symmetry` as its banner's last word. */
function mtx(dir: string, name: string, n: number, entries: Array<[number, number, number?]>, field = 'real', symmetry = ''): string {
  const file = join(dir, name);
  const lines = entries.map(([i, j, w]) => (w === undefined ? `${i} ${j}` : `${i} ${j} ${w}`));
  writeFileSync(file, `%%MatrixMarket matrix coordinate ${field} ${symmetry}\n% made by sssp.test.ts\n${n} ${n} ${entries.length}\n${lines.join('\n')}\n`);
  return file;
}

describe('sssp example', function () {
  this.timeout(240_000);
  let dir: string;
  let tiny: string, pieces: string, loops: string, ring: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'ttg-sssp-'));
    // 1 -> 2 -> 3 -> 4 is the shortest way to 4 (1 + 2 + 1), not the direct 1 -> 4 (5); 5 is unreachable
    tiny = mtx(dir, 'tiny.mtx', 5, [[1, 2, 1], [1, 3, 4], [2, 3, 2], [3, 4, 1], [1, 4, 5], [5, 1, 1]]);
    // two directed rings of 40 (weights 1..40) and 10 isolated vertices: from vertex 0 only the first ring
    const rings: Array<[number, number, number]> = [];
    for (let i = 0; i < 40; i++) {
      rings.push([i + 1, ((i + 1) % 40) + 1, i + 1]);
      rings.push([41 + i, 41 + ((i + 1) % 40), 0.5]);
    }
    pieces = mtx(dir, 'pieces.mtx', 90, rings);
    // self-loops (one of weight 0), three parallel edges 1 -> 2 (the lightest counts), a zero-weight edge 2 -> 3
    loops = mtx(dir, 'loops.mtx', 4, [[1, 1, 0], [1, 1, 0.5], [1, 2, 3], [1, 2, 0.25], [1, 2, 2], [2, 2, 1], [2, 3, 0], [3, 4, 0.125], [4, 4, 7]]);
    // a symmetric pattern: an undirected path of 30 vertices, every edge 1
    ring = mtx(dir, 'path.mtx', 30, Array.from({ length: 29 }, (_, i): [number, number] => [i + 2, i + 1]), 'pattern', 'symmetric');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a tiny graph on one rank: the two-hop detour wins, the vertex without in-edges stays unreached', () => {
    const r = run(1, ['--mtx', tiny]);
    expect(r).to.include({ example: 'sssp', graph: 'mtx', vertices: 5, edges: 6, ranks: 1, reached: 4, farthest: 4, ok: true });
  });

  it('disconnected pieces on one rank: only the source\'s ring is reached, the rest is Infinity in both', () => {
    const r = run(1, ['--mtx', pieces, '--source', '3']);
    // from vertex 3 (0-based) around the first ring to vertex 2: weights 4 + 5 + ... + 40 + 1 + 2
    expect(r).to.include({ vertices: 90, edges: 80, reached: 40, farthest: (40 * 41) / 2 - 3, ok: true });
  });

  it('self-loops, parallel and zero-weight edges on one rank', () => {
    const r = run(1, ['--mtx', loops]);
    expect(r).to.include({ vertices: 4, edges: 9, reached: 4, farthest: 0.375, ok: true });
    expect(r.improvements).to.equal(4);
  });

  it('a symmetric pattern file: both directions, unit weights, from the middle', () => {
    const r = run(1, ['--mtx', ring, '--source', '10']);
    expect(r).to.include({ vertices: 30, edges: 58, reached: 30, farthest: 19, ok: true });
  });

  it('one vertex and its self-loops', () => {
    const r = run(1, ['--vertices', '1', '--degree', '3']);
    expect(r).to.include({ vertices: 1, edges: 3, reached: 1, farthest: 0, relaxations: 0, improvements: 1, ok: true });
  });

  for (const [delta, schedule] of [['0.001', 'phases'], ['0.3', 'phases'], ['Infinity', 'phases'], ['0.3', 'priorities']] as const) {
    it(`a random graph of 20,000 vertices with buckets of ${delta} on one rank, ${schedule}`, () => {
      const r = run(1, ['--vertices', '20000', '--degree', '5', '--seed', '7', '--delta', delta, '--schedule', schedule]);
      expect(r).to.include({ vertices: 20000, edges: 100000, schedule, ok: true });
      expect(r.reached).to.be.within(19000, 20000);
      // every reached vertex but the source came through a relaxation, and improved at least once
      expect(r.relaxations).to.be.at.least(r.reached - 1);
      expect(r.improvements).to.be.at.least(r.reached);
    });
  }

  it('a geometric graph on one rank, and the same distances at every bucket width', () => {
    const a = run(1, ['--graph', 'geometric', '--vertices', '5000', '--degree', '10']);
    const b = run(1, ['--graph', 'geometric', '--vertices', '5000', '--degree', '10', '--delta', 'Infinity']);
    expect(a).to.include({ graph: 'geometric', schedule: 'phases', ok: true });
    expect(b).to.include({ reached: a.reached, farthest: a.farthest, phases: 1, ok: true });
    expect(a.reached).to.be.greaterThan(4000);
    // a phase per bucket that got work (a far graph has many), one phase for the one bucket
    expect(a.phases).to.be.greaterThan(10);
    // Bellman-Ford's order (one bucket) relaxes more than a narrow bucket's
    expect(b.improvements).to.be.greaterThan(a.improvements);
  });

  for (const [np, more] of [[2, []], [2, ['--schedule', 'priorities']], [3, ['--layout', 'block']], [3, ['--schedule', 'priorities']]] as const) {
    it(`a random graph on ${np} ranks${more.length === 0 ? '' : ` ${more.join(' ')}`}: the same distances as Dijkstra's`, () => {
      const one = run(1, ['--vertices', '4000', '--degree', '4', '--seed', '3']);
      const r = run(np, ['--vertices', '4000', '--degree', '4', '--seed', '3', ...more]);
      expect(r).to.include({ ranks: np, vertices: 4000, edges: 16000, reached: one.reached, farthest: one.farthest, ok: true });
    });
  }

  it('a geometric graph on 2 ranks in blocks and the hand-made files on 3', () => {
    expect(run(2, ['--graph', 'geometric', '--vertices', '3000', '--degree', '10', '--source', '17', '--layout', 'block'])).to.include({ ranks: 2, layout: 'block', ok: true });
    expect(run(3, ['--mtx', pieces, '--source', '3'])).to.include({ ranks: 3, reached: 40, farthest: (40 * 41) / 2 - 3, ok: true });
    expect(run(3, ['--mtx', loops])).to.include({ ranks: 3, reached: 4, farthest: 0.375, ok: true });
  });

  it('--out writes every distance, Infinity where unreached', () => {
    const out = join(dir, 'dist.txt');
    run(1, ['--mtx', tiny, '--out', out]);
    const r = spawnSync('cat', [out], { encoding: 'utf8' });
    expect(r.stdout.trim().split('\n')).to.deep.equal(['0', '1', '3', '4', 'Infinity']);
  });

  it('rejects options and files it cannot run with status 2 and a message', () => {
    const bad = mtx(dir, 'negative.mtx', 3, [[1, 2, 1], [2, 3, -1]]);
    const wide = join(dir, 'wide.mtx');
    writeFileSync(wide, '%%MatrixMarket matrix coordinate real general\n2 3 1\n1 3 1\n');
    const cases: Array<[string[], RegExp]> = [
      [['--delta', '0'], /--delta must be positive/],
      [['--degree=-1'], /--degree must be a positive number/],
      [['--vertices', '0'], /--vertices must be a positive integer/],
      [['--graph', 'grid'], /--graph must be random or geometric/],
      [['--schedule', 'fifo'], /--schedule must be phases or priorities/],
      [['--layout', 'round'], /--layout must be cyclic or block/],
      [['--vertices', '5', '--source', '5'], /--source must be below --vertices/],
      [['--mtx', join(dir, 'missing.mtx')], /--mtx .*missing\.mtx/],
      [['--mtx', bad], /negative\.mtx:5: weight must be a finite number at least 0/],
      [['--mtx', wide], /square matrix, this one is 2 x 3/],
      [['--mtx', tiny, '--source', '5'], /--source must be below the graph's 5 vertices/],
    ];
    for (const [args, message] of cases) {
      const r = spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8' });
      expect(r.status, args.join(' ')).to.equal(2);
      expect(r.stderr, args.join(' ')).to.match(message);
    }
  });
});
