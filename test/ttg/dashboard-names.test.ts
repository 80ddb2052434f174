/**
 * TT and edge names that are members of `Object.prototype` (`__proto__`, `constructor`...) in the
 * live dashboard's counts (src/observe/dashboard/summary.ts) and in rank 0's merge of the ranks' summaries
 * (src/observe/dashboard/dashboard-state.ts, summary-read.ts): each is a name like any other, with its own
 * exact counts, and nothing reaches `Object.prototype` — also from a summary that another rank
 * sent malformed or hostile. One process; the same at 2 ranks over HTTP: test/mpi/dashboard-names.test.ts.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';

import { defaultRuntime } from '../../src/ttg/runtime/runtime.js';
import { Summarizer } from '../../src/observe/dashboard/summary.js';
import { DashboardState } from '../../src/observe/dashboard/dashboard-state.js';
import { fence } from '../helpers.js';

/** Names that a plain object would not keep as its own keys. */
const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', '__defineGetter__', 'valueOf'];

/** `Object.prototype` as the language made it. */
function pristine(): void {
  expect(Object.keys(Object.prototype)).to.deep.equal([]);
  expect(Object.getOwnPropertyNames(Object.prototype).filter((n) => /^\d/.test(n))).to.deep.equal([]);
  expect([10, 20][2]).to.equal(undefined);
  expect(({} as { polluted?: unknown }).polluted).to.equal(undefined);
  expect(Object.getPrototypeOf({})).to.equal(Object.prototype);
}

/** `o[k]` when `k` is `o`'s own key, else undefined (never an inherited member). */
function own(o: object, k: string): unknown {
  return Object.hasOwn(o, k) ? (o as Record<string, unknown>)[k] : undefined;
}

describe('TTs and edges named like members of Object.prototype, in the dashboard', () => {
  before(async () => {
    await ttg.initialize();
  });

  it('each keeps its own exact counts (run, ready, waiting, held) in a summary and in rank 0\'s state, and Object.prototype stays untouched', async () => {
    const s = new Summarizer(defaultRuntime());
    const state = new DashboardState(1);
    let sum = 0;
    try {
      const c = new ttg.SequencedKeysConstraint<number>((k) => (k >= 100 ? 1 : 0));
      const tts = NAMES.map((name, j) => {
        const tt = ttg.make_tt((k: number, x: number, y: number) => { sum += k + x + y; },
          [new ttg.Edge<number, number>(name), new ttg.Edge<number, number>(NAMES[(j + 1) % NAMES.length]!)], [], { name });
        tt.add_constraint(c);
        return tt;
      });
      ttg.make_graph_executable(...tts);
      // TT j: j + 1 ready, j + 2 waiting for their second input, 3 held by the constraint
      tts.forEach((tt, j) => {
        for (let k = 0; k < j + 1; k++) tt.invoke(k, 1, 2);
        for (let k = 50; k < 52 + j; k++) tt.in(0).send(k, 1);
        for (let k = 100; k < 103; k++) tt.invoke(k, 1, 2);
      });
      const r = s.take([]);
      pristine();
      expect(Object.getPrototypeOf(r.tts)).to.equal(null);
      NAMES.forEach((name, j) => expect(own(r.tts, name), name).to.deep.equal([0, j + 1, j + 2, 3]));
      // through JSON, as it travels to rank 0, and rank 0's merged state as the page reads it
      state.receive(0, JSON.stringify(r));
      pristine();
      const page = JSON.parse(state.json()) as { ranks: Array<{ tts: object; ready: number }> };
      NAMES.forEach((name, j) => expect(own(page.ranks[0]!.tts, name), name).to.deep.equal([0, j + 1, j + 2, 3]));
      expect(page.ranks[0]!.ready).to.be.at.least(21);
      c.release(1);
      tts.forEach((tt, j) => { for (let k = 50; k < 52 + j; k++) tt.in(1).send(k, 2); });
      await fence();
      const done = s.take([]);
      pristine();
      NAMES.forEach((name, j) => expect(own(done.tts, name), name).to.deep.equal([(j + 1) + (j + 2) + 3, 0, 0, 0]));
      // each task adds its key + 3: the user's own result is exact
      let want = 0;
      NAMES.forEach((_, j) => {
        for (let k = 0; k < j + 1; k++) want += k + 3;
        for (let k = 50; k < 52 + j; k++) want += k + 3;
        for (let k = 100; k < 103; k++) want += k + 3;
      });
      expect(sum).to.equal(want);
    } finally {
      s.stop();
    }
    pristine();
  });

  it('rank 0 reads a malformed or hostile summary without throwing or polluting: what is no summary is dropped, odd fields become zeros', () => {
    const state = new DashboardState(2);
    const hostile = [
      'not json', '[1, 2]', 'null', '"a string"', '{}',
      '{"tts": {"__proto__": [5, 6, 7, 8], "constructor": "x", "toString": null, "valueOf": [1, "2", {}, 4]}, "traffic": 5, "errors": [null, {"code": {"__proto__": 1}}], "devices": "none", "slices": [[1, "a", null], 7], "fence": [1], "every": -3}',
      '{"__proto__": {"polluted": 1}, "tts": {"hasOwnProperty": [1, 1, 1, 1]}, "traffic": {"messages": [1e400, "x"], "bytes": {"__proto__": [9]}}}',
      '{"tts": {"__defineGetter__": [1, 2, 3, 4, 5, 6]}, "devices": [{"place": 3, "streams": "x"}, null], "errors": [{"message": "m", "at": "now"}]}',
    ];
    for (const json of hostile) expect(() => state.receive(1, json), json).to.not.throw();
    expect(() => state.receive(1, 42 as unknown as string)).to.not.throw();
    expect(() => state.receive(2, '{}'), 'a rank outside the world').to.not.throw();
    expect(() => state.receive(-1, '{}')).to.not.throw();
    pristine();
    const page = JSON.parse(state.json()) as { ranks: Array<{ rank: number; tts: object; traffic: { messages: number[]; bytes: number[] }; devices: unknown[] }>; errors: unknown[] };
    expect(page.ranks.map((r) => r.rank)).to.deep.equal([1]);
    const last = page.ranks[0]!;
    expect(Object.keys(last.tts)).to.deep.equal(['__defineGetter__']);
    expect(own(last.tts, '__defineGetter__')).to.deep.equal([1, 2, 3, 4]);
    expect(last.traffic).to.deep.equal({ messages: [0, 0], bytes: [0, 0] });
    expect(last.devices).to.deep.equal([{ place: '', used: 0, capacity: 0, pinned: 0, evictions: 0, h2d: 0, d2h: 0, kernels: 0, busyMs: 0, streams: [] }]);
    expect(page.errors).to.deep.equal([
      { code: '', tt: '', key: '', rank: 0, message: '', at: 0 },
      { code: '', tt: '', key: '', rank: 0, message: 'm', at: 0 },
    ]);
    // the one before: its hostile TT names are names, with numbers
    state.receive(1, hostile[5]!);
    const fifth = (JSON.parse(state.json()) as typeof page).ranks[0]!;
    expect(Object.keys(fifth.tts).sort()).to.deep.equal(['__proto__', 'constructor', 'toString', 'valueOf']);
    expect(own(fifth.tts, '__proto__')).to.deep.equal([5, 6, 7, 8]);
    expect(own(fifth.tts, 'constructor')).to.deep.equal([0, 0, 0, 0]);
    expect(own(fifth.tts, 'valueOf')).to.deep.equal([1, 0, 0, 4]);
    pristine();
  });
});
