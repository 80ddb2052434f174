/**
 * SequencedKeysConstraint: manual release windows (ordinal 0 open from the start, or another
 * start), release from inside bodies, auto mode (one ordinal after another, lower late arrivals
 * first, C++ TTG's order for a reversed broadcast), stop()/start() in both modes, phases reusing a
 * constraint, a constraint shared by TTs, a mapper given to add_constraint overriding the
 * constraint's own, and held tasks reported by fence without blocking it.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';
import { expectHealthy, expectTtgError, fence, mine, thrown, tick } from '../helpers.js';

type K2 = [number, number];

/**
 * An async body whose tasks start, then wait until the test calls `finish(key)`, so that what
 * runs "while a task is active" is exact rather than a matter of timing. Keys not listed in
 * `waitFor` finish at once.
 */
class Gated {
  readonly started: number[] = [];
  private readonly waiting = new Map<number, () => void>();

  constructor(private readonly waitFor: ReadonlySet<number> | 'all' = 'all') {}

  readonly body = async (k: number): Promise<void> => {
    this.started.push(k);
    if (this.waitFor !== 'all' && !this.waitFor.has(k)) return;
    await new Promise<void>((resolve) => this.waiting.set(k, resolve));
  };

  /** Lets task `k` end, then gives the runtime a turn to start what that opens. */
  async finish(k: number): Promise<void> {
    const resolve = this.waiting.get(k);
    if (resolve === undefined) throw new Error(`task ${k} is not waiting (started: ${this.started.join(',')})`);
    this.waiting.delete(k);
    resolve();
    await tick();
  }
}

/** Ordinals of the keys in the order their tasks started. */
function ordinalsOf(keys: readonly K2[]): number[] {
  return keys.map((k) => k[1]);
}

describe('SequencedKeysConstraint', () => {
  before(async () => {
    await ttg.initialize();
  });

  it('manual mode: ordinal 0 is open from the start; nothing above the released ordinal runs; release(n) runs the held tasks in ordinal order', async () => {
    const e = new ttg.Edge<K2, number>('con-man-e');
    const ran: string[] = [];
    const c = new ttg.SequencedKeysConstraint<K2>((k) => k[0]);
    const tt = ttg.make_tt((k: K2) => {
      ran.push(k.join(','));
    }, [e], [], { name: 'con-man' }).add_constraint(c);
    ttg.make_graph_executable(tt);
    for (const k of [[2, 0], [0, 0], [1, 0], [0, 1], [3, 0], [1, 1], [-1, 0]] as K2[]) tt.invoke(k, 0);
    let report = await fence();
    // as in C++ TTG, whose default ordinal type starts at 0: ordinal 0 (and below) needs no release
    expect(ran).to.deep.equal(['0,0', '0,1', '-1,0']);
    expect(c.released).to.equal(0);
    expect(mine(report, 'con-man').held.map((h) => [h.ordinal, JSON.stringify(h.key)]).sort()).to.deep.equal([
      [1, '[1,0]'], [1, '[1,1]'], [2, '[2,0]'], [3, '[3,0]'],
    ]);
    c.release(1);
    report = await fence();
    expect(ran.slice(3)).to.deep.equal(['1,0', '1,1']);
    ran.splice(2, 1); // drop '-1,0': the checks below look at ordinals 0 and up
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
    // ordinal k + 1: ordinal 0 would be open from the start
    const c = new ttg.SequencedKeysConstraint<number>((k) => k + 1);
    const work = ttg.make_tt((k: number, _v: number, out) => {
      ran.push(k);
      out.sendk(0, k);
    }, [e], [next], { name: 'con-body-work' }).add_constraint(c);
    const ctl = ttg.make_tt((k: number) => {
      c.release(k + 2);
    }, [next], [], { name: 'con-body-ctl' });
    ttg.make_graph_executable(work, ctl);
    for (const k of [4, 2, 0, 3, 1]) work.invoke(k, 0);
    await fence();
    expect(ran).to.deep.equal([]);
    c.release(1);
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
    const c = new ttg.SequencedKeysConstraint<number>((k) => k, { start: -Infinity });
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
    expect(ran).to.deep.equal(['a0']);
    c.release(2);
    const report = await fence();
    expect(ran).to.deep.equal(['a0', 'b1', 'a2', 'b2']);
    expect(mine(report, 'con-shared').held).to.deep.equal([]);
  });

  it('manual mode with a start option: negative ordinals up to the start run at once, the rest on release', async () => {
    const e = new ttg.Edge<number, number>('con-start-e');
    const ran: number[] = [];
    const c = new ttg.SequencedKeysConstraint<number>((k) => k, { start: -3 });
    const tt = ttg.make_tt((k: number) => { ran.push(k); }, [e], [], { name: 'con-start' }).add_constraint(c);
    const shut = new ttg.SequencedKeysConstraint<number>((k) => k, { start: -Infinity });
    const e2 = new ttg.Edge<number, number>('con-start-e2');
    const tt2 = ttg.make_tt((k: number) => { ran.push(100 + k); }, [e2], [], { name: 'con-start-shut' }).add_constraint(shut);
    ttg.make_graph_executable(tt, tt2);
    for (const k of [-1, -5, -3, 0, -4]) tt.invoke(k, 0);
    tt2.invoke(-1e9, 0);
    let report = await fence();
    expect(ran).to.deep.equal([-5, -3, -4]);
    expect(c.released).to.equal(-3);
    expect(mine(report, 'con-start').held.map((h) => h.ordinal).sort((x, y) => x - y)).to.deep.equal([-1e9, -1, 0]);
    c.release(-1);
    shut.release(-1e9);
    report = await fence();
    expect(ran.slice(3)).to.deep.equal([-1, 100 - 1e9]);
    c.release(0);
    await fence();
    expect(ran.slice(5)).to.deep.equal([0]);
    expect(thrown(() => new ttg.SequencedKeysConstraint<number>(undefined, { start: Number.NaN }))).to.be.instanceOf(ttg.TtgError);
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

  it('manual mode: stop() holds even open ordinals; releases while stopped take effect at start()', async () => {
    const e = new ttg.Edge<number, number>('con-mstop-e');
    const ran: number[] = [];
    const c = new ttg.SequencedKeysConstraint<number>((k) => k);
    const tt = ttg.make_tt((k: number) => { ran.push(k); }, [e], [], { name: 'con-mstop' }).add_constraint(c);
    ttg.make_graph_executable(tt);
    c.stop();
    tt.invoke(0, 0);
    c.release(2);
    tt.invoke(1, 0);
    tt.invoke(3, 0);
    let report = await fence();
    expect(ran).to.deep.equal([]);
    expect(c.released).to.equal(2);
    expect(mine(report, 'con-mstop').held.map((h) => h.ordinal).sort()).to.deep.equal([0, 1, 3]);
    c.start();
    tt.invoke(2, 0);
    report = await fence();
    expect(ran).to.deep.equal([0, 1, 2]);
    expect(mine(report, 'con-mstop').held.map((h) => h.ordinal)).to.deep.equal([3]);
    c.start(); // not stopped: nothing happens
    c.release(3);
    await fence();
    expect(ran).to.deep.equal([0, 1, 2, 3]);
  });

  it('manual mode: start() after stop() with no release opens the lowest held ordinal (as C++ TTG does)', async () => {
    const e = new ttg.Edge<number, number>('con-mfirst-e');
    const ran: number[] = [];
    const c = new ttg.SequencedKeysConstraint<number>((k) => k);
    const tt = ttg.make_tt((k: number) => { ran.push(k); }, [e], [], { name: 'con-mfirst' }).add_constraint(c);
    ttg.make_graph_executable(tt);
    c.stop();
    for (const k of [5, 3, 7]) tt.invoke(k, 0);
    await fence();
    expect(ran).to.deep.equal([]);
    c.start();
    await fence();
    expect(ran).to.deep.equal([3]);
    expect(c.released).to.equal(3);
    c.release(7);
    await fence();
    expect(ran).to.deep.equal([3, 5, 7]);
  });

  it('manual mode: releasing an ordinal below the current one never narrows the window, stopped or not', async () => {
    const e = new ttg.Edge<number, number>('con-below-e');
    const ran: number[] = [];
    const c = new ttg.SequencedKeysConstraint<number>((k) => k);
    const tt = ttg.make_tt((k: number) => { ran.push(k); }, [e], [], { name: 'con-below' }).add_constraint(c);
    ttg.make_graph_executable(tt);
    c.release(3);
    c.release(1);
    expect(c.released).to.equal(3);
    tt.invoke(2, 0);
    await fence();
    expect(ran).to.deep.equal([2]);
    // C++ TTG would take 1 as the current ordinal here (a release while stopped is stored as is)
    c.stop();
    c.release(1);
    c.start();
    expect(c.released).to.equal(3);
    tt.invoke(3, 0);
    tt.invoke(4, 0);
    const report = await fence();
    expect(ran).to.deep.equal([2, 3]);
    expect(mine(report, 'con-below').held.map((h) => h.ordinal)).to.deep.equal([4]);
    c.release(4);
    await fence();
    expect(ran).to.deep.equal([2, 3, 4]);
  });

  it('manual mode: release(n) opens every held ordinal up to n, not only the lowest', async () => {
    const e = new ttg.Edge<number, number>('con-upto-e');
    const ran: number[] = [];
    const c = new ttg.SequencedKeysConstraint<number>((k) => k);
    const tt = ttg.make_tt((k: number) => { ran.push(k); }, [e], [], { name: 'con-upto' }).add_constraint(c);
    ttg.make_graph_executable(tt);
    for (const k of [3, 2, 6]) tt.invoke(k, 0);
    c.release(5);
    tt.invoke(4, 0); // C++ TTG would hold this one: its release(5) leaves the current ordinal at 2
    const report = await fence();
    expect(ran).to.deep.equal([2, 3, 4]);
    expect(c.released).to.equal(5);
    expect(mine(report, 'con-upto').held.map((h) => h.ordinal)).to.deep.equal([6]);
    c.release(6);
    await fence();
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

  it('manual mode across fences: releases accumulate; a later phase needs releases only above them', async () => {
    const e = new ttg.Edge<number, number>('con-mphase-e');
    const ran: number[] = [];
    const c = new ttg.SequencedKeysConstraint<number>((k) => k);
    const tt = ttg.make_tt((k: number) => { ran.push(k); }, [e], [], { name: 'con-mphase' }).add_constraint(c);
    ttg.make_graph_executable(tt);
    for (const k of [2, 1, 0]) tt.invoke(k, 0);
    await fence();
    expect(ran).to.deep.equal([0]);
    c.release(2);
    await fence();
    expect(ran).to.deep.equal([0, 1, 2]);
    for (const k of [4, 0, 3]) tt.invoke(k, 0);
    let report = await fence();
    expect(ran.slice(3)).to.deep.equal([0]);
    expect(mine(report, 'con-mphase').held.map((h) => h.ordinal).sort()).to.deep.equal([3, 4]);
    c.release(4);
    report = await fence();
    expect(ran.slice(4)).to.deep.equal([3, 4]);
    expect(mine(report, 'con-mphase').held).to.deep.equal([]);
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
