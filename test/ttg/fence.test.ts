/**
 * ttg.fence(): resolves with a report at quiescence, reports (without blocking on) tasks that miss
 * inputs, rejects in strict mode, and can be called any number of times, also after a rejection.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';
import { expectHealthy, expectTtgError, fence, mine, rejection, tick, within } from '../helpers.js';

describe('fence', () => {
  before(async () => {
    await ttg.initialize();
  });

  function join(id: string) {
    const ina = new ttg.Edge<number, number>(`${id}-ina`);
    const inb = new ttg.Edge<number, number>(`${id}-inb`);
    const a = new ttg.Edge<number, number>(`${id}-a`);
    const b = new ttg.Edge<number, number>(`${id}-b`);
    const runs: Array<[number, number, number]> = [];
    const fa = ttg.make_tt((k: number, v: number, out) => out.send(0, k, v), [ina], [a], { name: `${id}-fa` });
    const fb = ttg.make_tt((k: number, v: number, out) => out.send(0, k, v), [inb], [b], { name: `${id}-fb` });
    const j = ttg.make_tt((k: number, x: number, y: number) => {
      runs.push([k, x, y]);
    }, [a, b], [], { name: `${id}-J` });
    ttg.make_graph_executable(fa, fb, j);
    return { fa, fb, j, runs };
  }

  it('resolves with a report once all work is done, waiting for async bodies', async () => {
    const e = new ttg.Edge<number, number>('fn-async');
    const done: number[] = [];
    const tt = ttg.make_tt(async (k: number) => {
      await tick(15);
      done.push(k);
    }, [e], [], { name: 'fn-async' });
    ttg.make_graph_executable(tt);
    tt.invoke(1, 0);
    tt.invoke(2, 0);
    const report = await fence();
    expect(done.sort()).to.deep.equal([1, 2]);
    expect(report.incomplete).to.be.an('array');
    expect(report.held).to.be.an('array');
    expect(mine(report, 'fn-').incomplete).to.deep.equal([]);
  });

  it('reports tasks missing inputs (TT, key, missing terminals) without blocking, and they complete later', async () => {
    const g = join('fn-miss');
    g.fa.invoke(1, 10);
    g.fa.invoke(2, 20);
    g.fb.invoke(3, 30);
    let report = await within(ttg.fence({ quiet: true }), 3000, 'fence with incomplete tasks');
    const waiting = mine(report, 'fn-miss').incomplete.sort((x, y) => (x.key as number) - (y.key as number));
    expect(waiting).to.deep.equal([
      { tt: 'fn-miss-J', key: 1, missing: [1], edges: ['fn-miss-b'], arrived: [''] },
      { tt: 'fn-miss-J', key: 2, missing: [1], edges: ['fn-miss-b'], arrived: [''] },
      { tt: 'fn-miss-J', key: 3, missing: [0], edges: ['fn-miss-a'], arrived: [''] },
    ]);
    expect(g.runs).to.deep.equal([]);
    g.fb.invoke(1, 11);
    g.fb.invoke(2, 21);
    g.fa.invoke(3, 31);
    report = await fence();
    expect(g.runs).to.have.deep.members([[1, 10, 11], [2, 20, 21], [3, 31, 30]]);
    expect(mine(report, 'fn-miss').incomplete).to.deep.equal([]);
  });

  it('fence({ strict: true }) rejects with E_INCOMPLETE naming the waiting TT; the tasks survive it', async () => {
    const g = join('fn-strict');
    g.fa.invoke(7, 1);
    const err = expectTtgError(await rejection(ttg.fence({ strict: true, quiet: true })), 'E_INCOMPLETE', ['fn-strict-J']);
    expect(err.message).to.include('7');
    g.fb.invoke(7, 2);
    const report = await fence({ strict: true });
    expect(g.runs).to.deep.equal([[7, 1, 2]]);
    expect(mine(report, 'fn-strict').incomplete).to.deep.equal([]);
  });

  it('several fences in a row, and concurrent fences, all resolve', async () => {
    await fence();
    await fence();
    await fence();
    const e = new ttg.Edge<number, number>('fn-conc');
    const done: number[] = [];
    const tt = ttg.make_tt(async (k: number) => {
      await tick(5);
      done.push(k);
    }, [e], [], { name: 'fn-conc' });
    ttg.make_graph_executable(tt);
    tt.invoke(1, 0);
    const seenAtResolve = await Promise.all([fence().then(() => done.length), fence().then(() => done.length)]);
    expect(seenAtResolve).to.deep.equal([1, 1]);
  });

  it('invokes after a fence, then a second fence, work (the same graph runs again)', async () => {
    const go = new ttg.Edge<number, number>('fn-again-go');
    const e = new ttg.Edge<number, number>('fn-again-e');
    const got: number[] = [];
    const src = ttg.make_tt((k: number, v: number, out) => out.send(0, k, v + 1), [go], [e], { name: 'fn-again-src' });
    const dst = ttg.make_tt((_k: number, v: number) => { got.push(v); }, [e], [], { name: 'fn-again-dst' });
    ttg.make_graph_executable(src, dst);
    src.invoke(1, 1);
    ttg.execute();
    await fence();
    expect(got).to.deep.equal([2]);
    src.invoke(2, 10);
    src.invoke(3, 20);
    ttg.execute();
    await fence();
    expect(got).to.deep.equal([2, 11, 21]);
  });

  it('after a fence that rejected, a new graph builds and runs, and so does the old one', async () => {
    const go = new ttg.Edge<number, number>('fn-rej-go');
    const e = new ttg.Edge<number, number>('fn-rej-e');
    const got: number[] = [];
    const src = ttg.make_tt((k: number, v: number, out) => {
      if (v < 0) throw new Error('negative');
      out.send(0, k, v);
    }, [go], [e], { name: 'fn-rej-src' });
    const dst = ttg.make_tt((_k: number, v: number) => { got.push(v); }, [e], [], { name: 'fn-rej-dst' });
    ttg.make_graph_executable(src, dst);
    src.invoke(1, -1);
    expectTtgError(await rejection(fence()), 'E_TASK_FAILED', ["'fn-rej-src'"]);
    // the error was reported once: the next fence is clean
    await fence();
    await expectHealthy('fn');
    src.invoke(2, 5);
    await fence();
    expect(got).to.deep.equal([5]);
  });

  it('work invoked from a promise callback of a body while the fence settles is waited for, never a spurious rejection', async () => {
    // The body queues a promise callback that invokes another TT. The callback runs after the
    // scheduler went idle but before the fence's continuation: the fence must either wait for
    // that work or resolve; it must not reject (and every rejection must be a TtgError anyway).
    const go = new ttg.Edge<number, number>('fn-late-go');
    const e = new ttg.Edge<number, number>('fn-late-e');
    const ran: string[] = [];
    const late = ttg.make_tt((k: number) => { ran.push(`late ${k}`); }, [e], [], { name: 'fn-late' });
    const first = ttg.make_tt((k: number) => {
      ran.push(`first ${k}`);
      void Promise.resolve().then(() => late.invoke(k, 0));
    }, [go], [], { name: 'fn-late-first' });
    ttg.make_graph_executable(first, late);
    first.invoke(1, 0);
    const outcome = await fence().then(() => 'resolved', (err: unknown) => err);
    expect(outcome, `fence rejected with ${String(outcome)}`).to.equal('resolved');
    await fence();
    expect(ran).to.deep.equal(['first 1', 'late 1']);
  });

  it('a fence rejects with the first error of the run', async () => {
    const e = new ttg.Edge<number, number>('fn-first');
    const tt = ttg.make_tt(async (k: number, delay: number) => {
      await tick(delay);
      throw new Error(`failure ${k}`);
    }, [e], [], { name: 'fn-first' });
    ttg.make_graph_executable(tt);
    tt.invoke(1, 40);
    tt.invoke(2, 1);
    const err = expectTtgError(await rejection(fence()), 'E_TASK_FAILED', ['failure 2']);
    expect(err.key).to.equal(2);
    await expectHealthy('fn');
  });
});
