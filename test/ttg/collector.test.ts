/**
 * make_collector in one process: what arrives on an edge, read by the main program after the
 * fence; the last value of a key wins; held against a consumer that writes the same object; phases
 * with clear(); bad options. Its MPI side is test/mpi/collector.test.ts.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';

import { expectTtgError, fence, thrown } from '../helpers.js';

describe('make_collector', () => {
  before(async () => {
    await ttg.initialize();
  });

  it('keeps what arrives on an edge for the main program: get, has, size, keys, values, entries, iteration; tuple keys', async () => {
    const go = new ttg.Edge<[number, string], number>('col-go');
    const res = new ttg.Edge<[number, string], number>('col-res');
    const sq = ttg.make_tt((k: [number, string], v: number, out) => out.send(0, k, v * v), [go], [res], { name: 'COL-SQ' });
    const got = ttg.make_collector(res, { name: 'COL' });
    ttg.make_graph_executable(sq, got);
    for (let i = 0; i < 5; i++) sq.invoke([i, 'a'], i);
    await fence();
    expect(got.size).to.equal(5);
    expect(got.get([3, 'a'])).to.equal(9);
    expect([got.has([4, 'a']), got.has([5, 'a'])]).to.deep.equal([true, false]);
    expect(got.get([7, 'b'])).to.equal(undefined);
    expect(new Set(got.values())).to.deep.equal(new Set([0, 1, 4, 9, 16]));
    expect(new Map(got.entries().map(([k, v]) => [k.join(), v]))).to.deep.equal(new Map([['0,a', 0], ['1,a', 1], ['2,a', 4], ['3,a', 9], ['4,a', 16]]));
    expect([...got].length).to.equal(5);
    expect(got.keys().map((k) => k[0]).sort()).to.deep.equal([0, 1, 2, 3, 4]);
    // a later value for a key replaces it; clear() starts the next phase empty
    sq.invoke([3, 'a'], 10);
    await fence();
    expect([got.get([3, 'a']), got.size]).to.deep.equal([100, 5]);
    got.clear();
    sq.invoke([1, 'a'], 2);
    await fence();
    expect(got.entries()).to.deep.equal([[[1, 'a'], 4]]);
  });

  it('holds what it collected: a task that consumes the same object writes its own copy', async () => {
    const go = new ttg.Edge<number, void>('col-h-go');
    const res = new ttg.Edge<number, Float64Array>('col-h-res');
    const src = ttg.make_tt((k: number, _g: void, out) => out.send(0, k, Float64Array.of(1, 2)), [go], [res], { name: 'COL-H-SRC' });
    // the collector first: its task runs (and ends) before the writer's
    const got = ttg.make_collector(res, { name: 'COL-H' });
    const writer = ttg.make_tt((_k: number, a: Float64Array) => { a.fill(-1); }, [res], [], { name: 'COL-H-W', consume: [0] });
    ttg.make_graph_executable(src, writer, got);
    src.invoke(0);
    await fence();
    expect([...got.get(0)!]).to.deep.equal([1, 2]);
    got.clear();
  });

  it("bad options are E_INVALID_ARGUMENT naming the collector; on: 'all' and a rank work on one rank", async () => {
    const e = new ttg.Edge<number, number>('col-bad');
    expectTtgError(thrown(() => ttg.make_collector(e, { on: 'some' as never, name: 'COL-B' })), 'E_INVALID_ARGUMENT', ["'owner', 'all' or a rank", 'some', "TT 'COL-B'"]);
    expectTtgError(thrown(() => ttg.make_collector(e, { on: 1, name: 'COL-B1' })), 'E_INVALID_ARGUMENT', ['[0, 1)', "TT 'COL-B1'"]);
    expectTtgError(thrown(() => ttg.make_collector(e, { on: 'all', procmap: () => 0, name: 'COL-B2' })), 'E_INVALID_ARGUMENT', ['procmap', "on: 'owner'"]);
    expectTtgError(thrown(() => ttg.make_collector({} as never)), 'E_INVALID_ARGUMENT', ['needs a ttg.Edge']);
    for (const on of ['all', 0] as const) {
      const go = new ttg.Edge<number, number>(`col-on-${on}`);
      const res = new ttg.Edge<number, number>(`col-on-res-${on}`);
      const t = ttg.make_tt((k: number, v: number, out) => out.send(0, k, v + 1), [go], [res], { name: `COL-ON-${on}` });
      const got = ttg.make_collector(res, { on, name: `COL-ON-C-${on}` });
      ttg.make_graph_executable(t, got);
      t.invoke(1, 1);
      t.invoke(2, 2);
      await fence();
      expect(got.entries().sort()).to.deep.equal([[1, 2], [2, 3]]);
    }
  });
});
