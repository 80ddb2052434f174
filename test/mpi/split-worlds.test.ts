/**
 * World.split: sub-worlds with runtimes of their own, in one process and under mpirun at 3 and 4
 * ranks (test/mpi/split-worlds.ts).
 */
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';
import * as ttg from 'ttg';

import { expectTtgError, rejection, within } from '../helpers.js';
import { rankResults } from './rank-results.js';

const SCRIPT = fileURLToPath(new URL('../mpi/split-worlds.js', import.meta.url));

interface Result {
  rank: number;
  color: number;
  [k: string]: unknown;
}

function results(np: number, mode: string): Result[] {
  return rankResults<Result>(np, SCRIPT, [mode], 180_000);
}

describe('World.split in one process', () => {
  it('a sub-world fences on its own while the default world still has a task running', async () => {
    const world = await ttg.initialize();
    const sub = (await world.split(0))!;
    expect([sub.rank, sub.size]).to.deep.equal([0, 1]);
    let release!: () => void;
    const slow = ttg.make_tt(async (_k: number) => {
      await new Promise<void>((r) => (release = r));
    }, [], [], { name: 'split-slow' });
    const seen: number[] = [];
    const e = new ttg.Edge<number, number>('split-chain');
    const chain = ttg.make_tt((k: number, v: number, o) => {
      seen.push(v);
      if (k < 99) o.send(0, k + 1, v + k);
    }, [e], [e], { world: sub, name: 'split-chain' });
    ttg.make_graph_executable(slow);
    ttg.make_graph_executable(chain);
    slow.invoke(1);
    ttg.execute();
    chain.invoke(0, 0);
    sub.execute();
    let defaultDone = false;
    const whole = ttg.fence({ quiet: true }).then(() => (defaultDone = true));
    await within(sub.fence(), 5000, 'the sub-world fence');
    expect(defaultDone).to.equal(false);
    expect(seen.length).to.equal(100);
    expect(seen[99]).to.equal((98 * 99) / 2);
    release();
    await within(whole, 5000, 'the default fence');
  });

  it('an error in a sub-world rejects its fence only; the next phase runs', async () => {
    const world = await ttg.initialize();
    const sub = (await world.split(3, 7))!;
    let phase = 0;
    const bad = ttg.make_tt((k: number) => {
      if (phase === 1 && k === 2) throw new Error('sub-world failure');
    }, [], [], { world: sub, name: 'split-bad' });
    const good = ttg.make_tt((_k: number) => {}, [], [], { name: 'split-good' });
    ttg.make_graph_executable(bad);
    ttg.make_graph_executable(good);
    for (phase = 1; phase <= 2; phase++) {
      for (let k = 0; k < 4; k++) {
        bad.invoke(k);
        good.invoke(k);
      }
      sub.execute();
      ttg.execute();
      if (phase === 1) expectTtgError(await rejection(sub.fence()), 'E_TASK_FAILED', ["'split-bad'", 'key 2', 'sub-world failure']);
      else await sub.fence();
      await ttg.fence();
    }
  });

  it('rejects bad colors and keys, a world that is not a World, and a negative color gives no world', async () => {
    const world = await ttg.initialize();
    expectTtgError(await rejection(world.split(1.5)), 'E_INVALID_ARGUMENT', ['integer color']);
    expectTtgError(await rejection(world.split(0, Number.NaN)), 'E_INVALID_ARGUMENT', ['integer key']);
    expect(await world.split(-1)).to.equal(undefined);
    let err: unknown;
    try {
      ttg.make_tt(() => {}, [], [], { world: {} as ttg.World, name: 'split-notworld' });
    } catch (e) {
      err = e;
    }
    expectTtgError(err, 'E_INVALID_ARGUMENT', ['ttg.World', 'split-notworld']);
  });
});

describe('World.split under mpirun', function () {
  this.timeout(240_000);
  for (const np of [3, 4]) {
    it(`${np} ranks split ${np === 4 ? '2+2' : '1+2'}: each half factors and checks its own POTRF three times while the default world runs a ring`, () => {
      const out = results(np, 'potrf');
      const half = Math.floor(np / 2);
      for (const r of out) {
        expect(r.color).to.equal(r.rank < half ? 0 : 1);
        expect(r['subSize']).to.equal(r.color === 0 ? half : np - half);
        expect(r['ringHops']).to.equal(50);
      }
      // the key reverses the order within a half: its last job rank is its rank 0, which reports
      for (const color of [0, 1]) {
        const members = out.filter((r) => r.color === color);
        const lead = members[members.length - 1]!;
        expect(lead['subRank']).to.equal(0);
        const res = lead['residuals'] as number[];
        expect(res).to.have.length(3);
        for (const x of res) expect(x).to.be.a('number').and.below(60).and.above(0);
      }
    });

    it(`${np} ranks: an error in one half rejects that half's fence on each of its ranks only, and its next phase runs`, () => {
      const out = results(np, 'error');
      for (const r of out) {
        const fences = r['fences'] as string[];
        expect(fences[1], `rank ${r.rank}`).to.equal('ok');
        if (r.color === 0) expect(fences[0]).to.equal('ok');
        else expect(fences[0]).to.include('E_TASK_FAILED').and.include("TT 'WORK1'").and.include('key 3').and.include('boom in half 1');
        expect(r['ringHops']).to.equal(20);
      }
      const ran0 = out.filter((r) => r.color === 0).reduce((a, r) => a + (r['ran'] as number), 0);
      expect(ran0).to.equal(16);
    });
  }

  it('4 ranks: a split of a split, a rank in no world, and an edge across worlds', () => {
    const out = results(4, 'nested');
    for (const r of out) {
      const inner = r['inner'] as { rank: number; size: number } | null;
      // within each half (reversed by key) the half's rank 0, the higher job rank, joins nothing
      if (r.rank % 2 === 1) expect(inner, `rank ${r.rank}`).to.equal(null);
      else {
        expect(inner).to.deep.equal({ rank: 0, size: 1 });
        expect(r['innerHops']).to.equal(10);
      }
      expect(r['cross']).to.include('E_INVALID_ARGUMENT').and.include('two worlds');
    }
  });
});
