/**
 * The live dashboard's counts per TT (src/observe/dashboard/summary.ts) are kept where tasks change state, not
 * walked per summary: at many points of runs (inside bodies, between and after fences) they must
 * equal a full walk of the ready queue, the pending tasks and the constraints' held tasks (what the
 * summary used to build each time) — through phases, failed runs, split worlds, constraints that
 * hold, stop and reopen, reducing inputs that end at the fence, and a dashboard attached while
 * tasks are queued. One process.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';

import { Assembly } from '../../src/ttg/run/assembly.js';
import { collectReport } from '../../src/ttg/phase/fence-report.js';
import { ReadyQueue } from '../../src/ttg/run/ready-queue.js';
import { defaultRuntime } from '../../src/ttg/runtime/runtime.js';
import { Summarizer } from '../../src/observe/dashboard/summary.js';
import { fence, rejection } from '../helpers.js';

type Row = [name: string, ready: number, waiting: number, held: number];

/** Ready, waiting and held per TT name by walking every task, as summaries did before. */
function walked(): Row[] {
  const by = new Map<string, [number, number, number]>();
  const of = (n: string): [number, number, number] => by.get(n) ?? by.set(n, [0, 0, 0]).get(n)!;
  for (const w of defaultRuntime().worlds()) {
    for (const t of w.scheduler.queuedTasks()) of(t.tt.name)[0]++;
    const r = collectReport(w);
    for (const t of r.incomplete) of(t.tt)[1]++;
    for (const h of r.held) of(h.tt)[2]++;
  }
  return [...by].map(([n, c]): Row => [n, ...c]).sort();
}

/** The same from a summary. */
function kept(s: Summarizer): Row[] {
  const tts = s.take([]).tts;
  return Object.keys(tts).map((n): Row => [n, tts[n]![1], tts[n]![2], tts[n]![3]]).filter((r) => r[1] + r[2] + r[3] > 0).sort();
}

/** `kept(s)` equals `walked()` here; counts the comparisons made. */
let points = 0;
function same(s: Summarizer, where: string): void {
  expect(kept(s), where).to.deep.equal(walked());
  points++;
}

/** This test's rows (`prefix`), for exact figures. */
function rows(s: Summarizer, prefix: string): Row[] {
  return kept(s).filter((r) => r[0].startsWith(prefix));
}

describe('the dashboard\'s counts per TT are kept as tasks change state, and equal a full walk', () => {
  let s: Summarizer;
  let world: ttg.World;
  before(async () => {
    world = await ttg.initialize();
  });
  beforeEach(() => {
    s = new Summarizer(defaultRuntime());
  });
  afterEach(() => {
    s.stop();
  });

  it('a summary looks at no task: with 20,000 waiting, 5,000 queued and 2,000 held it walks none of them', async () => {
    const c = new ttg.SequencedKeysConstraint<number>((k) => k, { start: -1 });
    const pair = ttg.make_tt((_k: number, _x: number, _y: number) => {}, [new ttg.Edge<number, number>('dw-x'), new ttg.Edge<number, number>('dw-y')], [], { name: 'DW-PAIR' });
    const held = ttg.make_tt((_k: number, _x: number) => {}, [new ttg.Edge<number, number>('dw-h')], [], { name: 'DW-HELD' });
    held.add_constraint(c);
    ttg.make_graph_executable(pair, held);
    for (let k = 0; k < 20_000; k++) pair.in(0).send(k, k);
    for (let k = 0; k < 5_000; k++) pair.invoke(-1 - k, k, k);
    for (let k = 0; k < 2_000; k++) held.invoke(k, k);
    const walks: string[] = [];
    const spies: Array<[object, string]> = [[Assembly.prototype, 'pendingTasks'], [ReadyQueue.prototype, 'items'], [ttg.SequencedKeysConstraint.prototype, 'heldTasks']];
    const originals = spies.map(([proto, name]) => (proto as Record<string, Function>)[name]!);
    spies.forEach(([proto, name], i) => {
      (proto as Record<string, Function>)[name] = function (this: unknown, ...a: unknown[]) {
        walks.push(name);
        return originals[i]!.apply(this, a);
      };
    });
    let r;
    try {
      r = s.take([]);
    } finally {
      spies.forEach(([proto, name], i) => { (proto as Record<string, Function>)[name] = originals[i]!; });
    }
    expect(walks).to.deep.equal([]);
    expect(r.tts['DW-PAIR']).to.deep.equal([0, 5_000, 20_000, 0]);
    expect(r.tts['DW-HELD']).to.deep.equal([0, 0, 0, 2_000]);
    same(s, 'many');
    c.release(2_000);
    for (let k = 0; k < 20_000; k++) pair.in(1).send(k, k);
    await fence();
    expect(s.take([]).tts['DW-PAIR']![0]).to.equal(25_000);
  });

  it('a TT whose making threw after it took its id (no assembly) is skipped, not read', () => {
    const e = new ttg.Edge<number, number>('dm-e');
    // one parameter too many: E_ARITY, thrown by the constructor after the TT took its id
    const body = ((_k: number, _a: number, _o: unknown, _x: unknown) => {}) as unknown as (k: number, a: number) => void;
    expect(() => ttg.make_tt(body, [e], [], { name: 'DM-HALF' })).to.throw(/E_ARITY/);
    expect(() => same(s, 'with a half-made TT')).to.not.throw();
    expect(s.take([]).tts['DM-HALF']).to.equal(undefined);
  });

  it('through three phases: tasks waiting for a late input, chains, priorities; inside bodies and at each fence', async () => {
    const N = 400;
    const next = new ttg.Edge<number, void>('dc-next');
    const a = new ttg.Edge<number, number>('dc-a');
    const b = new ttg.Edge<number, number>('dc-b');
    let sum = 0;
    let at = 0;
    const chain = ttg.make_tt((k: number, _n: void, out) => {
      if (++at % 37 === 0) same(s, `chain ${k}`);
      out.send(1, k, k);
      if (k + 1 < N) out.sendk(0, k + 1);
    }, [next], [next, a], { name: 'DC-CHAIN' });
    const join = ttg.make_tt((k: number, x: number, y: number) => {
      if (++at % 41 === 0) same(s, `join ${k}`);
      sum += x + y;
    }, [a, b], [], { name: 'DC-JOIN' });
    join.set_priomap((k) => k % 3);
    ttg.make_graph_executable(chain, join);
    for (let phase = 1; phase <= 3; phase++) {
      sum = 0;
      chain.invoke(0);
      same(s, `phase ${phase}, invoked`);
      await fence();
      same(s, `phase ${phase}, after the chain`);
      expect(rows(s, 'DC-')).to.deep.equal([['DC-JOIN', 0, N, 0]]);
      for (let k = 0; k < N; k++) join.in(1).send(k, phase);
      same(s, `phase ${phase}, late inputs sent`);
      expect(rows(s, 'DC-')).to.deep.equal([['DC-JOIN', N, 0, 0]]);
      await fence();
      same(s, `phase ${phase}, done`);
      expect(rows(s, 'DC-')).to.deep.equal([]);
      expect(sum).to.equal((N * (N - 1)) / 2 + N * phase);
    }
    expect(points).to.be.above(40);
  });

  it('a failed run: its queued, waiting and held tasks are dropped from the counts as from the walk', async () => {
    const c = new ttg.SequencedKeysConstraint<number>((k) => k);
    c.stop();
    const one = ttg.make_tt((_k: number, _x: number) => {}, [new ttg.Edge<number, number>('df-one')], [], { name: 'DF-ONE' });
    const pair = ttg.make_tt((_k: number, _x: number, _y: number) => {}, [new ttg.Edge<number, number>('df-x'), new ttg.Edge<number, number>('df-y')], [], { name: 'DF-PAIR' });
    const held = ttg.make_tt((_k: number, _x: number) => {}, [new ttg.Edge<number, number>('df-held')], [], { name: 'DF-HELD' });
    held.add_constraint(c);
    const boom = ttg.make_tt(() => {
      same(s, 'inside the failing task');
      expect(rows(s, 'DF-')).to.deep.equal([['DF-HELD', 0, 0, 5], ['DF-ONE', 50, 0, 0], ['DF-PAIR', 0, 20, 0]]);
      throw new Error('planted');
    }, [new ttg.Edge<number, number>('df-go')], [], { name: 'DF-BOOM' });
    boom.set_priomap(() => 1);
    ttg.make_graph_executable(one, pair, held, boom);
    for (let k = 0; k < 50; k++) one.invoke(k, k);
    for (let k = 0; k < 20; k++) pair.in(0).send(k, k);
    for (let k = 0; k < 5; k++) held.invoke(k, k);
    boom.invoke(0, 0);
    same(s, 'all queued');
    expect(rows(s, 'DF-')).to.deep.equal([['DF-BOOM', 1, 0, 0], ['DF-HELD', 0, 0, 5], ['DF-ONE', 50, 0, 0], ['DF-PAIR', 0, 20, 0]]);
    expect(await rejection(fence())).to.have.property('code', 'E_TASK_FAILED');
    same(s, 'after the failed fence');
    expect(rows(s, 'DF-')).to.deep.equal([]);
    // the next run counts from zero again
    c.start();
    for (let k = 0; k < 7; k++) pair.in(0).send(k, k);
    same(s, 'the next run');
    expect(rows(s, 'DF-')).to.deep.equal([['DF-PAIR', 0, 7, 0]]);
    for (let k = 0; k < 7; k++) pair.in(1).send(k, k);
    await fence();
    same(s, 'the next run, done');
    expect(s.take([]).tts['DF-PAIR']![0]).to.equal(7);
  });

  it('constraints: held until released, stopped and started, two constraints in a row, auto mode', async () => {
    const manual = new ttg.SequencedKeysConstraint<number>((k) => k % 10);
    const second = new ttg.SequencedKeysConstraint<number>((k) => Math.floor(k / 10));
    const auto = new ttg.SequencedKeysConstraint<number>((k) => k, { auto: true });
    let ran = 0;
    const m = ttg.make_tt((k: number, _x: number) => {
      ran++;
      if (ran % 3 === 0) same(s, `manual ${k}`);
    }, [new ttg.Edge<number, number>('dk-m')], [], { name: 'DK-M' });
    m.add_constraint(manual);
    m.add_constraint(second);
    const au = ttg.make_tt((k: number, _x: number) => { if (k % 4 === 0) same(s, `auto ${k}`); }, [new ttg.Edge<number, number>('dk-a')], [], { name: 'DK-AUTO' });
    au.add_constraint(auto);
    ttg.make_graph_executable(m, au);
    // keys 0..29: ordinal k % 10 in the first constraint, k / 10 in the second
    for (let k = 0; k < 30; k++) m.invoke(k, k);
    same(s, 'invoked');
    await fence();
    same(s, 'first fence');
    // ordinal 0 of the first (keys 0, 10, 20), then 0 of the second: key 0 ran; 10 and 20 wait in the second
    expect(ran).to.equal(1);
    expect(rows(s, 'DK-M')).to.deep.equal([['DK-M', 0, 0, 29]]);
    manual.release(4);
    same(s, 'released 4');
    await fence();
    expect(ran).to.equal(5);
    expect(rows(s, 'DK-M')).to.deep.equal([['DK-M', 0, 0, 25]]);
    manual.stop();
    manual.release(9);
    second.release(1);
    same(s, 'stopped, released');
    await fence();
    expect(ran).to.equal(10);
    expect(rows(s, 'DK-M')).to.deep.equal([['DK-M', 0, 0, 20]]);
    manual.start();
    same(s, 'started');
    second.release(2);
    await fence();
    same(s, 'all released');
    expect(ran).to.equal(30);
    expect(rows(s, 'DK-')).to.deep.equal([]);
    // auto, arriving in reverse: the first runs as nothing else does, ordinal 0 is open, the rest
    // are held and opened one by one as the ones before end
    for (let k = 40; k >= 0; k--) au.invoke(k, k);
    same(s, 'auto invoked');
    expect(rows(s, 'DK-AUTO')).to.deep.equal([['DK-AUTO', 2, 0, 39]]);
    await fence();
    same(s, 'auto done');
    expect(s.take([]).tts['DK-AUTO']![0]).to.equal(41);
  });

  it("reducing inputs ended by the fence ('fence'): waiting until the fence, then run inside it", async () => {
    const vals = new ttg.Edge<number, number>('dr-vals');
    const totals = new Map<number, number>();
    const red = ttg.make_tt((k: number, total: number) => {
      same(s, `reduced ${k}`);
      totals.set(k, total);
    }, [vals], [], { name: 'DR-SUM' }).set_input_reducer(0, (x, y) => x + y, 'fence');
    ttg.make_graph_executable(red);
    for (let phase = 1; phase <= 2; phase++) {
      totals.clear();
      for (let i = 0; i < 60; i++) red.in(0).send(i % 12, i * phase);
      same(s, `phase ${phase}, sent`);
      expect(rows(s, 'DR-')).to.deep.equal([['DR-SUM', 0, 12, 0]]);
      await fence();
      same(s, `phase ${phase}, fenced`);
      expect(rows(s, 'DR-')).to.deep.equal([]);
      expect(totals.size).to.equal(12);
      expect(totals.get(0)).to.equal((0 + 12 + 24 + 36 + 48) * phase);
    }
  });

  it('split worlds: their tasks count on the rank, waiting, queued and held', async () => {
    const sub = await world.split(0);
    expect(sub).to.not.equal(undefined);
    const c = new ttg.SequencedKeysConstraint<number>((k) => k, { start: -1 });
    const pair = ttg.make_tt((k: number, _x: number, _y: number) => { if (k % 5 === 0) same(s, `split ${k}`); },
      [new ttg.Edge<number, number>('ds-x'), new ttg.Edge<number, number>('ds-y')], [], { name: 'DS-PAIR', world: sub! });
    const held = ttg.make_tt((_k: number, _x: number) => {}, [new ttg.Edge<number, number>('ds-h')], [], { name: 'DS-HELD', world: sub! });
    held.add_constraint(c);
    ttg.make_graph_executable(pair);
    ttg.make_graph_executable(held);
    for (let k = 0; k < 25; k++) pair.in(0).send(k, k);
    for (let k = 0; k < 10; k++) pair.in(1).send(k, k);
    for (let k = 0; k < 4; k++) held.invoke(k, k);
    same(s, 'split, sent');
    expect(rows(s, 'DS-')).to.deep.equal([['DS-HELD', 0, 0, 4], ['DS-PAIR', 10, 15, 0]]);
    await sub!.fence({ quiet: true });
    same(s, 'split, fenced');
    expect(rows(s, 'DS-')).to.deep.equal([['DS-HELD', 0, 0, 4], ['DS-PAIR', 0, 15, 0]]);
    c.release(3);
    for (let k = 10; k < 25; k++) pair.in(1).send(k, k);
    await sub!.fence({ quiet: true });
    same(s, 'split, done');
    expect(rows(s, 'DS-')).to.deep.equal([]);
    expect(s.take([]).tts['DS-PAIR']![0]).to.equal(25);
  });

  it('attached and detached from inside a body, with tasks queued behind it: the counts switch when the drain ends, exact', async () => {
    s.stop();
    const go = new ttg.Edge<number, number>('db-go');
    let inner: Summarizer | undefined;
    let mid: Array<[string, number, number, number]> = [];
    const tt = ttg.make_tt((k: number, _x: number) => {
      if (k === 0) inner = new Summarizer(defaultRuntime());
      if (k === 20) mid = kept(inner!);
      if (k === 30) inner!.stop();
      if (k === 31) inner = new Summarizer(defaultRuntime());
    }, [go], [], { name: 'DB-BODY' });
    ttg.make_graph_executable(tt);
    for (let k = 0; k < 50; k++) tt.invoke(k, k);
    await fence();
    // inside the drain, the queue was not counting yet: the summary read no ready task
    expect(mid.filter((r) => r[0] === 'DB-BODY')).to.deep.equal([]);
    expect(tt.queued).to.equal(0);
    s = inner!;
    same(s, 'after the drain');
    for (let k = 100; k < 110; k++) tt.invoke(k, k);
    same(s, 'ten queued');
    expect(rows(s, 'DB-')).to.deep.equal([['DB-BODY', 10, 0, 0]]);
    await fence();
    same(s, 'done');
  });

  it('attached while tasks are queued, detached, attached again: the queued counts stay exact; ready and running per rank', async () => {
    s.stop();
    const go = new ttg.Edge<number, number>('da-go');
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => { release = r; });
    const slow = ttg.make_tt(async (_k: number, _x: number) => { await gate; }, [go], [], { name: 'DA-ASYNC' });
    ttg.make_graph_executable(slow);
    for (let k = 0; k < 30; k++) slow.invoke(k, k);
    // queued now (the drain is a microtask away): a summarizer attached here counts them
    s = new Summarizer(defaultRuntime());
    same(s, 'attached with 30 queued');
    expect(rows(s, 'DA-')).to.deep.equal([['DA-ASYNC', 30, 0, 0]]);
    const first = s.take([]);
    expect(first.ready).to.equal(30);
    s.stop();
    expect(slow.queued).to.equal(0);
    s = new Summarizer(defaultRuntime());
    same(s, 'attached again');
    // every body started and awaits the gate: running, no longer ready
    await new Promise((r) => setTimeout(r, 20));
    same(s, 'bodies awaiting');
    const mid = s.take([]);
    expect(mid.tts['DA-ASYNC']).to.equal(undefined);
    expect(mid.ready).to.equal(0);
    expect(mid.running).to.equal(30);
    release();
    await fence();
    same(s, 'done');
    const end = s.take([]);
    expect(end.running).to.equal(0);
    expect(end.tts['DA-ASYNC']![0]).to.equal(30);
  });
});
