/**
 * Reducing inputs whose streams end at the fence (`set_input_reducer(i, fn, 'fence')`) in one
 * process: a per-category sum of unknown size, chained reductions ending at one fence, a task
 * still missing a plain input, several phases; their MPI side is test/mpi/fence-streams.test.ts.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';

import { expectTtgError, fence, mine, thrown } from '../helpers.js';

describe("reducing inputs that end at the fence ('fence')", () => {
  before(async () => {
    await ttg.initialize();
  });

  it('a per-category sum over values of unknown number: each category runs once, after the rest is done, in every phase', async () => {
    const items = new ttg.Edge<number, [string, number]>('fs-items');
    const byCat = new ttg.Edge<string, number>('fs-bycat');
    const totals = new Map<string, number>();
    const read = ttg.make_tt((_k: number, [cat, v]: [string, number], out) => out.send(0, cat, v), [items], [byCat], { name: 'FS-READ' });
    const sum = ttg.make_tt((cat: string, total: number) => {
      expect(totals.has(cat), `${cat} ran twice`).to.equal(false);
      totals.set(cat, total);
    }, [byCat], [], { name: 'FS-SUM' }).set_input_reducer(0, (a, b) => a + b, 'fence');
    ttg.make_graph_executable(read, sum);
    for (let phase = 1; phase <= 3; phase++) {
      totals.clear();
      const want = new Map<string, number>();
      for (let i = 0; i < 300; i++) {
        const cat = `c${(i * 7 + phase) % 13}`;
        want.set(cat, (want.get(cat) ?? 0) + i * phase);
        read.invoke(i, [cat, i * phase]);
      }
      const report = await fence();
      expect(mine(report, 'FS').incomplete).to.deep.equal([]);
      expect(totals).to.deep.equal(want);
    }
  });

  it('chained: what one fence-ended reduction sends feeds another, all within one fence; a task missing a plain input stays reported', async () => {
    const a = new ttg.Edge<number, number>('fs-a');
    const b = new ttg.Edge<string, number>('fs-b');
    const other = new ttg.Edge<string, number>('fs-other');
    const got: Array<[string, number, number | undefined]> = [];
    const first = ttg.make_tt((k: number, total: number, out) => out.send(0, k % 2 === 0 ? 'even' : 'odd', total), [a], [b], { name: 'FS-FIRST' })
      .set_input_reducer(0, (x, y) => x + y, 'fence');
    const second = ttg.make_tt((k: string, total: number, o: number | undefined) => { got.push([k, total, o]); }, [b, other], [], { name: 'FS-SECOND' })
      .set_input_reducer(0, (x, y) => x + y, 'fence');
    ttg.make_graph_executable(first, second);
    for (let k = 0; k < 6; k++) for (let v = 1; v <= 3; v++) first.in(0).send(k, v * 10 + k);
    second.in(1).send('even', -1);
    let report = await fence({ quiet: true });
    // 'odd' still waits for its plain input: reported, with what its stream holds
    expect(got).to.deep.equal([['even', 3 * 60 + 3 * (0 + 2 + 4), -1]]);
    expect(mine(report, 'FS-').incomplete.map((t) => [t.tt, t.key, t.missing])).to.deep.equal([['FS-SECOND', 'odd', [1]]]);
    second.in(1).send('odd', -2);
    report = await fence();
    expect(got[1]).to.deep.equal(['odd', 3 * 60 + 3 * (1 + 3 + 5), -2]);
    expect(mine(report, 'FS-').incomplete).to.deep.equal([]);
  });

  it('a cycle of fence-ended reductions ends before the reduction it feeds: nothing it sends is lost', async () => {
    // A [k] and B [k] feed each other once (round 0 → 1), and both feed C [0]
    const toA = new ttg.Edge<number, [number, number]>('fs-cyc-a');
    const toB = new ttg.Edge<number, [number, number]>('fs-cyc-b');
    const toC = new ttg.Edge<number, number>('fs-cyc-c');
    const sum = (x: [number, number], y: [number, number]): [number, number] => [Math.max(x[0], y[0]), x[1] + y[1]];
    let c: number | undefined;
    let cRuns = 0;
    const a = ttg.make_tt((k: number, v: [number, number], out) => {
      out.send(1, 0, v[1]);
      if (v[0] === 0) out.send(0, k, [1, v[1] * 10]);
    }, [toA], [toB, toC], { name: 'FS-CYC-A' }).set_input_reducer(0, sum, 'fence');
    const b = ttg.make_tt((k: number, v: [number, number], out) => {
      out.send(1, 0, v[1]);
      if (v[0] === 0) out.send(0, k + 100, [1, v[1] * 10]);
    }, [toB], [toA, toC], { name: 'FS-CYC-B' }).set_input_reducer(0, sum, 'fence');
    const cc = ttg.make_tt((_k: number, v: number) => { c = v; cRuns++; }, [toC], [], { name: 'FS-CYC-C' }).set_input_reducer(0, (x, y) => x + y, 'fence');
    ttg.make_graph_executable(a, b, cc);
    a.in(0).send(1, [0, 1]);
    a.in(0).send(1, [0, 2]);
    b.in(0).send(2, [0, 5]);
    await fence();
    // A[1] = 3 → B[1] gets 30; B[2] = 5 → A[102] gets 50; then B[1] (30) and A[102] (50) feed C too
    expect([c, cRuns]).to.deep.equal([3 + 5 + 30 + 50, 1]);
  });

  it("finalize_argstream still ends a stream early; a count other than a number, a function or 'fence' is E_INVALID_ARGUMENT", async () => {
    const e = new ttg.Edge<number, number>('fs-early');
    const runs: number[] = [];
    const tt = ttg.make_tt((_k: number, v: number) => { runs.push(v); }, [e], [], { name: 'FS-EARLY' }).set_input_reducer(0, (x, y) => x + y, 'fence');
    ttg.make_graph_executable(tt);
    tt.in(0).send(1, 5);
    tt.in(0).send(1, 6);
    tt.finalize_argstream(0, 1);
    tt.in(0).send(1, 7);
    await fence();
    expect(runs).to.deep.equal([11, 7]);
    expectTtgError(thrown(() => tt.set_input_reducer(0, (x, y) => x + y, 'end' as never)), 'E_INVALID_ARGUMENT', ['count', "'fence'", 'end']);
  });
});
