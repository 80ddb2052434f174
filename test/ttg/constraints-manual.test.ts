/**
 * SequencedKeysConstraint with manual release windows (ordinal 0 open from the start, or another
 * start), release from inside bodies, stop()/start(), phases reusing a constraint, a constraint
 * shared by TTs, a mapper given to add_constraint overriding the constraint's own, and held tasks
 * reported by fence without blocking it.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';
import { expectHealthy, expectTtgError, fence, mine, thrown } from '../helpers.js';
import type { K2 } from './constraint-gate.js';

describe('SequencedKeysConstraint, manual mode and what both modes share', () => {
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


  it('reset() starts a manual window again for a second batch after a fence; refused while tasks are held', async () => {
    const e = new ttg.Edge<number, number>('con-reset-e');
    const WINDOW = 4;
    const c = new ttg.SequencedKeysConstraint<number>((k) => k, { start: WINDOW - 1 });
    let inFlight = 0;
    let peak = 0;
    const tt = ttg.make_tt(async (k: number) => {
      peak = Math.max(peak, ++inFlight);
      await new Promise((r) => setTimeout(r, 1));
      inFlight--;
      c.release(k + WINDOW);
    }, [e], [], { name: 'con-reset' }).add_constraint(c);
    ttg.make_graph_executable(tt);
    const batch = async (): Promise<number> => {
      peak = 0;
      for (let k = 0; k < 40; k++) tt.invoke(k, 0);
      await fence();
      return peak;
    };
    expect(await batch()).to.equal(WINDOW);
    expect(c.released).to.equal(39 + WINDOW);
    c.reset();
    expect(c.released).to.equal(WINDOW - 1);
    expect(await batch()).to.equal(WINDOW);
    // a start of its own for the next batch; tasks still held refuse a reset
    c.reset(-1);
    tt.invoke(0, 0);
    const report = await fence();
    expect(mine(report, 'con-reset').held.map((h) => h.ordinal)).to.deep.equal([0]);
    expectTtgError(thrown(() => c.reset()), 'E_INVALID_ARGUMENT', ['reset()', 'holds 1']);
    expectTtgError(thrown(() => c.reset(Number.NaN)), 'E_INVALID_ARGUMENT', ['reset(start)', 'NaN']);
    c.release(0);
    await fence();
    c.stop();
    c.reset();
    expect(c.stopped).to.equal(false);
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
