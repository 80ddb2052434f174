/**
 * Control edges the runtime knows of (`new ttg.Edge(name, { control: true })`), as a plain
 * JavaScript program marks them: their inputs keep a body parameter (undefined), a value sent on
 * them is refused, `invoke(key)` without values needs every input to be one, and a body declaring
 * more parameters than (key, inputs, out) is E_ARITY.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';

import { expectTtgError, fence, rejection, thrown } from '../helpers.js';

/** Untyped views, as plain JavaScript calls these. */
type Loose = { invoke(key: unknown, ...values: unknown[]): void; in(i: number): { send(k: unknown, v: unknown): void; sendk(k: unknown): void } };
const loose = (tt: unknown): Loose => tt as Loose;
type AnyBody = (...a: unknown[]) => void;

describe('control edges marked { control: true }', () => {
  before(async () => {
    await ttg.initialize();
  });

  it('are marked; so is a fuse of control edges only; bad options are E_INVALID_ARGUMENT', () => {
    const c = new ttg.Edge<number, void>('ce-c', { control: true });
    const d = new ttg.Edge<number, void>('ce-d', { control: true });
    expect([c.control, new ttg.Edge('ce-plain').control, ttg.fuse(c, d).control, ttg.fuse(c, new ttg.Edge<number, void>('ce-x')).control]).to.deep.equal([true, false, true, false]);
    expectTtgError(thrown(() => new ttg.Edge('ce-bad', { control: 'yes' as never })), 'E_INVALID_ARGUMENT', ["Edge 'ce-bad' options", 'control?: boolean']);
    expectTtgError(thrown(() => new ttg.Edge('ce-bad2', null as never)), 'E_INVALID_ARGUMENT', ["Edge 'ce-bad2' options"]);
  });

  it('a control input takes its parameter (undefined); invoke(key) needs every input to be control, else E_ARITY naming the data input', async () => {
    const ctl = new ttg.Edge<number, void>('ce-ctl', { control: true });
    const data = new ttg.Edge<number, number>('ce-data');
    const done = new ttg.Edge<number, void>('ce-done', { control: true });
    const seen: unknown[][] = [];
    const mixed = ttg.make_tt(((k: number, c: unknown, v: number, out: { sendk(i: number, k: number): void }) => {
      seen.push(['mixed', k, c, v]);
      out.sendk(0, k);
    }) as AnyBody, [ctl, data], [done], { name: 'CE-MIXED' });
    const only = ttg.make_tt(((k: number, c: unknown, out: ttg.Out) => {
      seen.push(['only', k, c, typeof (out as { send?: unknown }).send]);
    }) as AnyBody, [done], [], { name: 'CE-ONLY' });
    ttg.make_graph_executable(mixed, only);
    expectTtgError(thrown(() => loose(mixed).invoke(1)), 'E_ARITY', ["TT 'CE-MIXED'", 'input #1', "edge 'ce-data'", 'key 1']);
    expectTtgError(thrown(() => loose(mixed).invoke(1, 7, 5)), 'E_INVALID_ARGUMENT', ["TT 'CE-MIXED'", "control edge 'ce-ctl'", 'value 0']);
    loose(mixed).invoke(2, undefined, 5);
    loose(only).invoke(9);
    await fence();
    expect(seen).to.have.deep.members([['mixed', 2, undefined, 5], ['only', 2, undefined, 'function'], ['only', 9, undefined, 'function']]);
  });

  it('a value sent on a control edge (send, broadcast, in(i).send) is E_INVALID_ARGUMENT naming the TT, terminal and edge; sendk is fine', async () => {
    const ctl = new ttg.Edge<number, void>('ce-out', { control: true });
    const go = new ttg.Edge<number, number>('ce-go');
    let ran = 0;
    const sink = ttg.make_tt(() => { ran++; }, [ctl], [], { name: 'CE-SINK' });
    const src = ttg.make_tt(((k: number, how: number, out: { send(i: number, k: number, v: unknown): void; sendk(i: number, k: number): void; broadcast(i: number, ks: number[], v: unknown): void }) => {
      if (how === 0) out.sendk(0, k);
      else if (how === 1) out.send(0, k, 42);
      else out.broadcast(0, [k, k + 1], 'x');
    }) as AnyBody, [go], [ctl], { name: 'CE-SRC' });
    ttg.make_graph_executable(src, sink);
    src.invoke(1, 0);
    await fence();
    expect(ran).to.equal(1);
    src.invoke(2, 1);
    expectTtgError(await rejection(fence()), 'E_INVALID_ARGUMENT', ["send on output terminal 0", "control edge 'ce-out'", "TT 'CE-SRC'", 'key 2']);
    src.invoke(3, 2);
    expectTtgError(await rejection(fence()), 'E_INVALID_ARGUMENT', ["control edge 'ce-out'", "TT 'CE-SRC'", 'key 3']);
    expectTtgError(thrown(() => loose(sink).in(0).send(5, 1)), 'E_INVALID_ARGUMENT', ['in(0).send()', "control edge 'ce-out'", "TT 'CE-SINK'"]);
    loose(sink).in(0).sendk(5);
    await fence();
    expect(ran).to.equal(2);
  });

  it('a body that declares more parameters than (key, one per input, out) is E_ARITY; unmarked void edges keep invoke(key)', async () => {
    const ctl = new ttg.Edge<number, void>('ce-ar', { control: true });
    expectTtgError(thrown(() => ttg.make_tt(((_k: unknown, _a: unknown, _b: unknown, _out: unknown) => {}) as AnyBody, [ctl], [], { name: 'CE-WIDE' })),
      'E_ARITY', ["TT 'CE-WIDE'", 'declares 4 parameters', '3 at most']);
    expect(() => ttg.make_tt(((_k: unknown, ..._rest: unknown[]) => {}) as AnyBody, [ctl], [], { name: 'CE-REST' })).to.not.throw();
    const unmarked = new ttg.Edge<number, void>('ce-unmarked');
    let n = 0;
    const tt = ttg.make_tt((_k: number, _c: void) => { n++; }, [unmarked], [], { name: 'CE-UNMARKED' });
    ttg.make_graph_executable(tt);
    tt.invoke(1);
    await fence();
    expect(n).to.equal(1);
  });
});
