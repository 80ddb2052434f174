/**
 * Hostile regression tests, in one process, for promises the README makes about values and phases
 * that `make_allreduce` and the hang watchdog can break:
 *
 *   - copy-on-write: a value handed to the all-reduce and to a consuming task must reach the fold
 *     unchanged (the all-reduce wraps each partial in an `[i, v]` pair, and only the pair was
 *     counted as a holder). What copy-on-write counts is the object handed to a send, not objects
 *     nested in it (README, Inputs): a user's own wrapper is not covered, the all-reduce's pair is.
 *   - a failed phase leaves nothing behind: the all-reduce's per-key plan (how many partials each
 *     rank folds) must not outlive a phase that failed, or the next phase folds with stale counts.
 *   - a task abandoned by `E_HANG` belongs to the dead phase: when its awaited promise settles later,
 *     its sends must not land in the next phase's tasks.
 *
 * The mpirun side of the first two is test/mpi/hostile-core.test.ts.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';

import { expectTtgError, fence, mine, rejection, tick, within } from '../helpers.js';

/** Adds 1000 to every element: a consumer's in-place write that nobody else may see. */
function scribble(v: Float64Array): void {
  for (let j = 0; j < v.length; j++) v[j] = v[j]! + 1000;
}

describe('hostile: make_allreduce and copy-on-write', () => {
  before(async () => {
    await ttg.initialize();
  });

  it('a partial also sent to a consumer that writes it in place is folded as it was sent', async () => {
    const go = new ttg.Edge<number, number>('hc-cow-go');
    const parts = new ttg.Edge<[number, number], Float64Array>('hc-cow-parts');
    const results = new ttg.Edge<number, Float64Array>('hc-cow-results');
    const toConsumer = new ttg.Edge<number, Float64Array>('hc-cow-consumer');
    const got: number[][] = [];
    // SRC[0] makes partial 0 and hands the same array to the consumer; SRC[1] makes partial 1
    const src = ttg.make_tt((i: number, _x: number, out) => {
      const v = i === 0 ? Float64Array.of(1, 2) : Float64Array.of(10, 20);
      out.send(0, [0, i], v);
      if (i === 0) out.send(1, 0, v);
    }, [go], [parts, toConsumer], { name: 'hc-cow-SRC' });
    const ar = ttg.make_allreduce(parts, results, { op: 'sum', contributions: () => 2, deliver: (k: number) => [k], name: 'hc-cow-AR' });
    const sink = ttg.make_tt((_k: number, v: Float64Array) => { got.push([...v]); }, [results], [], { name: 'hc-cow-SINK' });
    const consumer = ttg.make_tt((_k: number, v: Float64Array) => scribble(v), [toConsumer], [], { name: 'hc-cow-MUT', consume: [0] });
    ttg.make_graph_executable(src, ar, sink, consumer);
    src.invoke(0, 0);
    src.invoke(1, 0);
    const report = await fence();
    expect(got).to.deep.equal([[11, 22]]);
    expect(mine(report, 'hc-cow').incomplete).to.deep.equal([]);
  });
});

describe('hostile: make_allreduce after a failed phase', () => {
  before(async () => {
    await ttg.initialize();
  });

  it('a phase that failed mid-reduction leaves no plan behind: the next phase folds all of its partials', async () => {
    const parts = new ttg.Edge<[number, number], number>('hc-plan-parts');
    const results = new ttg.Edge<number, number>('hc-plan-results');
    let n = 4; // read by contributions(): the next phase has more partials per key
    const got: number[] = [];
    const ar = ttg.make_allreduce(parts, results, { op: 'sum', contributions: () => n, deliver: (k: number) => [k], name: 'hc-plan-AR' });
    const sink = ttg.make_tt((_k: number, v: number) => { got.push(v); }, [results], [], { name: 'hc-plan-SINK' });
    const boom = ttg.make_tt((_k: number, _x: number) => { throw new Error('phase 1 fails'); }, [new ttg.Edge<number, number>('hc-plan-boom')], [], { name: 'hc-plan-BOOM' });
    ttg.make_graph_executable(ar, sink, boom);

    // phase 1: one partial of key 0 reaches the all-reduce (its plan is made), then a task throws
    ar.in(0).send([0, 0], 100);
    boom.invoke(0, 0);
    ttg.execute();
    expectTtgError(await rejection(fence()), 'E_TASK_FAILED', ['hc-plan-BOOM']);

    // phase 2: five partials 1..5 of the same key
    n = 5;
    for (let i = 0; i < n; i++) ar.in(0).send([0, i], i + 1);
    ttg.execute();
    const report = await fence();
    expect(got, 'results of key 0').to.deep.equal([15]);
    expect(mine(report, 'hc-plan').incomplete, 'partials left waiting').to.deep.equal([]);
  });
});

describe('hostile: a task abandoned by E_HANG', () => {
  let saved: string | undefined;
  before(async () => {
    await ttg.initialize();
  });
  beforeEach(() => {
    saved = process.env['TTG_HANG_TIMEOUT'];
  });
  afterEach(() => {
    if (saved === undefined) delete process.env['TTG_HANG_TIMEOUT'];
    else process.env['TTG_HANG_TIMEOUT'] = saved;
  });

  it('cannot send into the next phase once its fence rejected', async () => {
    const toA = new ttg.Edge<number, number>('hc-hang-go');
    const aToB = new ttg.Edge<number, string>('hc-hang-a2b');
    const mainToB = new ttg.Edge<number, string>('hc-hang-main2b');
    // settles only when the test says so, i.e. after the hang fence has rejected: no timing race
    let wake!: () => void;
    const asleep = new Promise<void>((resolve) => { wake = resolve; });
    let lateSend = 'not attempted';
    const a = ttg.make_tt(async (k: number, _x: number, out) => {
      await asleep;
      try {
        out.send(0, k, `late send of phase-1 task A[${k}]`);
        lateSend = 'returned';
      } catch (e) {
        lateSend = `threw ${String(e)}`; // throwing is an acceptable way to refuse it
      }
    }, [toA], [aToB], { name: 'hc-hang-A' });
    const ran: Array<[string, string]> = [];
    const b = ttg.make_tt((_k: number, x: string, y: string) => { ran.push([x, y]); }, [aToB, mainToB], [], { name: 'hc-hang-B' });
    ttg.make_graph_executable(a, b);

    // phase 1: A[0] never finishes within the hang timeout
    process.env['TTG_HANG_TIMEOUT'] = '0.3';
    a.invoke(0, 0);
    ttg.execute();
    const quietErr = console.error;
    console.error = () => {}; // the hang report is expected; keep the test output readable
    let e: unknown;
    try {
      e = await within(rejection(ttg.fence({ quiet: true })), 10_000, 'hung fence');
    } finally {
      console.error = quietErr;
    }
    expectTtgError(e, 'E_HANG', ['hc-hang-A[0]']);
    if (saved === undefined) delete process.env['TTG_HANG_TIMEOUT'];
    else process.env['TTG_HANG_TIMEOUT'] = saved;

    // phase 2: B[0] gets its second input, then the abandoned A[0] wakes up, then B[0] gets its first
    b.in(1).send(0, 'phase-2 value 1');
    ttg.execute();
    wake();
    await tick(50);
    b.in(0).send(0, 'phase-2 value 0');
    const report = await fence();
    expect(lateSend, 'the abandoned task reached its send').to.not.equal('not attempted');
    expect(ran).to.deep.equal([['phase-2 value 0', 'phase-2 value 1']]);
    expect(mine(report, 'hc-hang').incomplete).to.deep.equal([]);
  });
});
