/**
 * SequencedKeysConstraint: manual release windows, release from inside bodies, auto mode (one
 * ordinal after another), a mapper given to add_constraint overriding the constraint's own, and
 * held tasks reported by fence without blocking it.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';
import { expectHealthy, expectTtgError, fence, mine, thrown, tick } from './helpers.js';

type K2 = [number, number];

describe('SequencedKeysConstraint', () => {
  before(async () => {
    await ttg.initialize();
  });

  it('manual mode: nothing above the released ordinal runs; release(n) runs the held tasks in ordinal order', async () => {
    const e = new ttg.Edge<K2, number>('con-man-e');
    const ran: string[] = [];
    const c = new ttg.SequencedKeysConstraint<K2>((k) => k[0]);
    const tt = ttg.make_tt((k: K2) => {
      ran.push(k.join(','));
    }, [e], [], { name: 'con-man' }).add_constraint(c);
    ttg.make_graph_executable(tt);
    for (const k of [[2, 0], [0, 0], [1, 0], [0, 1], [3, 0], [1, 1]] as K2[]) tt.invoke(k, 0);
    let report = await fence();
    expect(ran).to.deep.equal([]);
    expect(mine(report, 'con-man').held.map((h) => [h.ordinal, JSON.stringify(h.key)]).sort()).to.deep.equal([
      [0, '[0,0]'], [0, '[0,1]'], [1, '[1,0]'], [1, '[1,1]'], [2, '[2,0]'], [3, '[3,0]'],
    ]);
    c.release(1);
    report = await fence();
    expect(ran).to.deep.equal(['0,0', '0,1', '1,0', '1,1']);
    expect(mine(report, 'con-man').held.map((h) => h.ordinal).sort((x, y) => x - y)).to.deep.equal([2, 3]);
    // within the window new tasks run at once; beyond it they are held
    tt.invoke([1, 5], 0);
    tt.invoke([2, 5], 0);
    report = await fence();
    expect(ran).to.deep.equal(['0,0', '0,1', '1,0', '1,1', '1,5']);
    expect(mine(report, 'con-man').held).to.have.length(3);
    c.release(3);
    report = await fence();
    expect(ran.slice(5)).to.deep.equal(['2,0', '2,5', '3,0']);
    expect(mine(report, 'con-man').held).to.deep.equal([]);
  });

  it('release from inside a body drives a sequence one ordinal at a time', async () => {
    const e = new ttg.Edge<number, number>('con-body-e');
    const next = new ttg.Edge<number, void>('con-body-next');
    const ran: number[] = [];
    const c = new ttg.SequencedKeysConstraint<number>((k) => k);
    const work = ttg.make_tt((k: number, _v: number, out) => {
      ran.push(k);
      out.sendk(0, k);
    }, [e], [next], { name: 'con-body-work' }).add_constraint(c);
    const ctl = ttg.make_tt((k: number) => {
      c.release(k + 1);
    }, [next], [], { name: 'con-body-ctl' });
    ttg.make_graph_executable(work, ctl);
    for (const k of [4, 2, 0, 3, 1]) work.invoke(k, 0);
    await fence();
    expect(ran).to.deep.equal([]);
    c.release(0);
    const report = await fence();
    expect(ran).to.deep.equal([0, 1, 2, 3, 4]);
    expect(mine(report, 'con-body').held).to.deep.equal([]);
  });

  it('auto mode: ordinals run strictly one after another even when invoked out of order', async () => {
    const e = new ttg.Edge<K2, number>('con-auto-e');
    const events: Array<[string, number]> = [];
    const c = new ttg.SequencedKeysConstraint<K2>((k) => k[0], { auto: true });
    const tt = ttg.make_tt(async (k: K2) => {
      events.push(['start', k[0]]);
      await tick(1 + (k[1] % 2));
      events.push(['end', k[0]]);
    }, [e], [], { name: 'con-auto' }).add_constraint(c);
    ttg.make_graph_executable(tt);
    // ordinal 0 first (it opens the sequence), then the others out of order, two tasks each
    for (const k of [[0, 0], [0, 1], [3, 0], [1, 0], [3, 1], [2, 0], [1, 1], [2, 1]] as K2[]) tt.invoke(k, 0);
    const report = await fence();
    const starts = events.filter((ev) => ev[0] === 'start').map((ev) => ev[1]);
    expect(starts).to.deep.equal([0, 0, 1, 1, 2, 2, 3, 3]);
    // no task of ordinal n starts before every task of a lower ordinal has ended
    events.forEach(([what, ord], i) => {
      if (what !== 'start') return;
      const endedBefore = events.slice(0, i).filter((ev) => ev[0] === 'end' && ev[1] < ord).length;
      expect(endedBefore, `start of ordinal ${ord} at event ${i}`).to.equal(2 * ord);
    });
    expect(events).to.have.length(16);
    expect(mine(report, 'con-auto').held).to.deep.equal([]);
  });

  it('auto mode: a later ordinal that arrives while the current one runs waits for it', async () => {
    const e = new ttg.Edge<number, number>('con-auto2-e');
    const events: string[] = [];
    const c = new ttg.SequencedKeysConstraint<number>((k) => k, { auto: true });
    const tt = ttg.make_tt(async (k: number) => {
      events.push(`start ${k}`);
      await tick(2);
      events.push(`end ${k}`);
    }, [e], [], { name: 'con-auto2' }).add_constraint(c);
    ttg.make_graph_executable(tt);
    tt.invoke(10, 0);
    await tick(0);
    tt.invoke(11, 0);
    tt.invoke(12, 0);
    await fence();
    expect(events).to.deep.equal(['start 10', 'end 10', 'start 11', 'end 11', 'start 12', 'end 12']);
  });

  it('add_constraint(c, mapper) uses the given mapper instead of the constraint\'s own', async () => {
    const e = new ttg.Edge<number, number>('con-map-e');
    const ran: number[] = [];
    const c = new ttg.SequencedKeysConstraint<number>((k) => k);
    const tt = ttg.make_tt((k: number) => {
      ran.push(k);
    }, [e], [], { name: 'con-map' }).add_constraint(c, (k) => -k);
    ttg.make_graph_executable(tt);
    for (const k of [1, 2, 3]) tt.invoke(k, 0);
    let report = await fence();
    expect(mine(report, 'con-map').held.map((h) => h.ordinal).sort((x, y) => x - y)).to.deep.equal([-3, -2, -1]);
    c.release(-2); // with the constraint's own mapper this would release nothing
    report = await fence();
    expect(ran).to.deep.equal([3, 2]);
    c.release(-1);
    await fence();
    expect(ran).to.deep.equal([3, 2, 1]);
  });

  it('one constraint shared by two TTs orders the tasks of both', async () => {
    const ea = new ttg.Edge<number, number>('con-shared-a');
    const eb = new ttg.Edge<number, number>('con-shared-b');
    const ran: string[] = [];
    const c = new ttg.SequencedKeysConstraint<number>((k) => k);
    const a = ttg.make_tt((k: number) => { ran.push(`a${k}`); }, [ea], [], { name: 'con-shared-a' }).add_constraint(c);
    const b = ttg.make_tt((k: number) => { ran.push(`b${k}`); }, [eb], [], { name: 'con-shared-b' }).add_constraint(c);
    ttg.make_graph_executable(a, b);
    a.invoke(2, 0);
    b.invoke(1, 0);
    a.invoke(0, 0);
    b.invoke(2, 0);
    await fence();
    expect(ran).to.deep.equal([]);
    c.release(2);
    const report = await fence();
    expect(ran).to.deep.equal(['a0', 'b1', 'a2', 'b2']);
    expect(mine(report, 'con-shared').held).to.deep.equal([]);
  });

  it('tasks never released are reported in report.held and do not block the fence', async () => {
    const e = new ttg.Edge<number, number>('con-held-e');
    const ran: number[] = [];
    const c = new ttg.SequencedKeysConstraint<number>((k) => k * 10);
    const tt = ttg.make_tt((k: number) => { ran.push(k); }, [e], [], { name: 'con-held' }).add_constraint(c);
    ttg.make_graph_executable(tt);
    c.release(10);
    for (const k of [0, 1, 2, 3]) tt.invoke(k, 0);
    const report = await fence();
    expect(ran).to.deep.equal([0, 1]);
    expect(mine(report, 'con-held').held.sort((x, y) => x.ordinal - y.ordinal)).to.deep.equal([
      { tt: 'con-held', key: 2, ordinal: 20 },
      { tt: 'con-held', key: 3, ordinal: 30 },
    ]);
    // a strict fence counts held tasks as unfinished work
    const strict = await ttg.fence({ strict: true, quiet: true }).then(() => undefined, (err: unknown) => err);
    expectTtgError(strict, 'E_INCOMPLETE');
    c.release(Infinity); // leave nothing behind for other tests
    await fence();
    expect(ran).to.deep.equal([0, 1, 2, 3]);
  });

  it('a constraint without any mapper cannot be added (E_INVALID_ARGUMENT)', () => {
    const e = new ttg.Edge<number, number>('con-nomap-e');
    const tt = ttg.make_tt(() => {}, [e], [], { name: 'con-nomap' });
    const c = new ttg.SequencedKeysConstraint<unknown>();
    expectTtgError(thrown(() => tt.add_constraint(c)), 'E_INVALID_ARGUMENT', ["'con-nomap'"]);
  });

  it('the process keeps working after constraint errors, and no task is left held', async () => {
    await expectHealthy('con');
    const report = await fence();
    expect(mine(report, 'con-').held).to.deep.equal([]);
  });
});
