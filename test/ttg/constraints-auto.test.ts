/**
 * SequencedKeysConstraint in auto mode: one ordinal after another, lower late arrivals first, C++
 * TTG's order for a reversed broadcast, stop()/start(), phases reusing a constraint, and a
 * constraint shared by two TTs.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';
import { fence, mine, tick } from '../helpers.js';
import { Gated, ordinalsOf, type K2 } from './constraint-gate.js';

describe('SequencedKeysConstraint, auto mode', () => {
  before(async () => {
    await ttg.initialize();
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


  it('auto mode, reversed broadcast: the first task runs alone, then each ordinal from the lowest (C++ TTG\'s order)', async () => {
    // keys (i, j) broadcast with i and j descending, ordinal j, as in C++ TTG's tests/unit/constraints.cc
    const go = new ttg.Edge<void, void>('con-rev-go');
    const e = new ttg.Edge<K2, number>('con-rev-e');
    const keys: K2[] = [];
    for (let i = 3; i > 0; i--) for (let j = 3; j > 0; j--) keys.push([i, j]);
    const ran: K2[] = [];
    const c = new ttg.SequencedKeysConstraint<K2>((k) => k[1], { auto: true });
    const bcast = ttg.make_tt((_k: void, _g: void, out) => { out.broadcast(0, keys, 0); }, [go], [e], { name: 'con-rev-bcast' });
    const tt = ttg.make_tt((k: K2) => { ran.push(k); }, [e], [], { name: 'con-rev' }).add_constraint(c);
    ttg.make_graph_executable(bcast, tt);
    bcast.invoke(undefined, undefined);
    const report = await fence();
    // (3,3) arrives first with nothing running or held, so it runs; it leaves the current ordinal at
    // 0, so everything after it is held and opens lowest ordinal first
    expect(ran).to.deep.equal([[3, 3], [3, 1], [2, 1], [1, 1], [3, 2], [2, 2], [1, 2], [2, 3], [1, 3]]);
    expect(mine(report, 'con-rev').held).to.deep.equal([]);
  });


  it('auto mode, reversed broadcast between stop() and start() (C++ TTG\'s test): every ordinal in turn from the lowest', async () => {
    const go = new ttg.Edge<void, void>('con-revss-go');
    const e = new ttg.Edge<K2, number>('con-revss-e');
    const keys: K2[] = [];
    for (let i = 3; i > 0; i--) for (let j = 3; j > 0; j--) keys.push([i, j]);
    const ran: K2[] = [];
    const c = new ttg.SequencedKeysConstraint<K2>((k) => k[1], { auto: true });
    const bcast = ttg.make_tt((_k: void, _g: void, out) => {
      out.broadcast(0, keys, 0);
      c.start();
    }, [go], [e], { name: 'con-revss-bcast' });
    const tt = ttg.make_tt((k: K2) => { ran.push(k); }, [e], [], { name: 'con-revss' }).add_constraint(c);
    ttg.make_graph_executable(bcast, tt);
    c.stop();
    expect(c.stopped).to.equal(true);
    bcast.invoke(undefined, undefined);
    await fence();
    expect(c.stopped).to.equal(false);
    expect(ordinalsOf(ran)).to.deep.equal([1, 1, 1, 2, 2, 2, 3, 3, 3]);
    expect(ran.filter((k) => k[1] === 1).map((k) => k[0])).to.deep.equal([3, 2, 1]); // arrival order within an ordinal
  });


  it('auto mode: while an ordinal runs, a lower one arriving runs at once and becomes current; higher ones, even one between, wait', async () => {
    const e = new ttg.Edge<number, number>('con-inter-e');
    const g = new Gated();
    const c = new ttg.SequencedKeysConstraint<number>((k) => k, { auto: true });
    const tt = ttg.make_tt(g.body, [e], [], { name: 'con-inter' }).add_constraint(c);
    ttg.make_graph_executable(tt);
    ttg.execute();
    tt.invoke(9, 0); // nothing runs or waits: runs
    tt.invoke(5, 0); // 9 runs: held
    await tick();
    expect(g.started).to.deep.equal([9]);
    await g.finish(9); // 5 opens
    expect(g.started).to.deep.equal([9, 5]);
    expect(c.released).to.equal(5);
    for (const k of [7, 6, 3, 4]) tt.invoke(k, 0);
    await tick();
    // 3 <= 5 runs at once and the current ordinal drops to 3, so 4 waits although 5 still runs
    expect(g.started).to.deep.equal([9, 5, 3]);
    expect(c.released).to.equal(3);
    expect(c.size).to.equal(3);
    await g.finish(5);
    expect(g.started).to.deep.equal([9, 5, 3]);
    await g.finish(3);
    expect(g.started).to.deep.equal([9, 5, 3, 4]);
    await g.finish(4);
    await g.finish(6);
    await g.finish(7);
    const report = await fence();
    expect(g.started).to.deep.equal([9, 5, 3, 4, 6, 7]);
    expect(mine(report, 'con-inter').held).to.deep.equal([]);
  });


  it('auto mode: stop() keeps tasks held (even at the current ordinal) after the running ones end; start() opens the lowest', async () => {
    const e = new ttg.Edge<number, number>('con-astop-e');
    const g = new Gated(new Set([1]));
    const c = new ttg.SequencedKeysConstraint<number>((k) => k, { auto: true });
    const tt = ttg.make_tt(g.body, [e], [], { name: 'con-astop' }).add_constraint(c);
    ttg.make_graph_executable(tt);
    ttg.execute();
    tt.invoke(1, 0);
    tt.invoke(3, 0);
    tt.invoke(2, 0);
    await tick();
    c.stop();
    await g.finish(1); // would open 2
    tt.invoke(0, 0); // at the current ordinal (0), but stopped
    let report = await fence();
    expect(g.started).to.deep.equal([1]);
    expect(mine(report, 'con-astop').held.map((h) => h.ordinal).sort()).to.deep.equal([0, 2, 3]);
    expect(mine(report, 'con-astop').held.every((h) => h.stopped === true)).to.equal(true);
    c.release(); // an auto release while stopped does nothing either
    report = await fence();
    expect(mine(report, 'con-astop').held).to.have.length(3);
    c.start();
    report = await fence();
    expect(g.started).to.deep.equal([1, 0, 2, 3]);
    expect(c.stopped).to.equal(false);
    expect(mine(report, 'con-astop').held).to.deep.equal([]);
  });


  it('auto mode: start() while a task still runs leaves a higher held ordinal waiting for it', async () => {
    const e = new ttg.Edge<number, number>('con-astart-e');
    const g = new Gated(new Set([1]));
    const c = new ttg.SequencedKeysConstraint<number>((k) => k, { auto: true });
    const tt = ttg.make_tt(g.body, [e], [], { name: 'con-astart' }).add_constraint(c);
    ttg.make_graph_executable(tt);
    ttg.execute();
    tt.invoke(1, 0);
    await tick();
    c.stop();
    tt.invoke(2, 0);
    c.start(); // C++ TTG would open 2 here, beside the running 1
    await tick();
    expect(g.started).to.deep.equal([1]);
    await g.finish(1);
    await fence();
    expect(g.started).to.deep.equal([1, 2]);
  });


  it('auto mode across fences: each phase starts like the first; the current ordinal carries over', async () => {
    const go = new ttg.Edge<number, void>('con-phase-go');
    const e = new ttg.Edge<number, number>('con-phase-e');
    const ran: number[] = [];
    const c = new ttg.SequencedKeysConstraint<number>((k) => k, { auto: true });
    const src = ttg.make_tt((k: number, _g: void, out) => {
      out.broadcast(0, [3 * k + 3, 3 * k + 2, 3 * k + 1], 0);
    }, [go], [e], { name: 'con-phase-src' });
    const tt = ttg.make_tt((k: number) => { ran.push(k); }, [e], [], { name: 'con-phase' }).add_constraint(c);
    ttg.make_graph_executable(src, tt);
    src.invoke(0, undefined);
    await fence();
    expect(ran).to.deep.equal([3, 1, 2]);
    src.invoke(1, undefined);
    await fence();
    expect(ran.slice(3)).to.deep.equal([6, 4, 5]);
    expect(c.released).to.equal(5);
    // at or below the current ordinal left by the last phase: each runs at once and lowers it
    tt.invoke(5, 0);
    tt.invoke(4, 0);
    tt.invoke(9, 0);
    const report = await fence();
    expect(ran.slice(6)).to.deep.equal([5, 4, 9]);
    expect(c.released).to.equal(9);
    expect(mine(report, 'con-phase').held).to.deep.equal([]);
  });


  it('auto mode, one constraint shared by two TTs: an ordinal opens only when the tasks of both have ended', async () => {
    const ea = new ttg.Edge<number, number>('con-ashared-a');
    const eb = new ttg.Edge<number, number>('con-ashared-b');
    const events: string[] = [];
    const c = new ttg.SequencedKeysConstraint<number>((k) => k, { auto: true });
    // a's tasks take longer than b's, so b's ending first must not open the next ordinal
    const body = (name: string, ms: number) => async (k: number) => {
      events.push(`start ${name}${k}`);
      await tick(ms);
      events.push(`end ${name}${k}`);
    };
    const a = ttg.make_tt(body('a', 20), [ea], [], { name: 'con-ashared-a' }).add_constraint(c);
    const b = ttg.make_tt(body('b', 0), [eb], [], { name: 'con-ashared-b' }).add_constraint(c);
    ttg.make_graph_executable(a, b);
    for (const k of [3, 2, 1]) {
      a.invoke(k, 0);
      b.invoke(k, 0);
    }
    await fence();
    const starts = events.filter((x) => x.startsWith('start')).map((x) => x.slice(6));
    expect(starts).to.deep.equal(['a3', 'a1', 'b1', 'a2', 'b2', 'b3']);
    const at = (x: string) => events.indexOf(x);
    expect(at('start a2')).to.be.greaterThan(at('end a1'));
    expect(at('start b3')).to.be.greaterThan(at('end a2'));
    expect(at('start a1')).to.be.greaterThan(at('end a3'));
  });
});
