/**
 * Fuzzing the public API with bad inputs (wrong types, NaN and cyclic keys, values and callbacks
 * of the wrong kind, procmap results out of range, terminals out of range): every failure is a
 * `TtgError` — thrown synchronously or as the fence's rejection, never a TypeError, a hang or a
 * crash — and the process keeps working after each one.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';

import { expectHealthy, fence, rejection, rng } from '../helpers.js';


const cyclic: Record<string, unknown> = { a: 1 };
cyclic['self'] = cyclic;
class NoHash { constructor(readonly x = 1) {} }
const BAD_KEYS: unknown[] = [NaN, [1, NaN], cyclic, [cyclic], () => 1, Symbol('k'), new NoHash(), { f: () => 1 }, [1, [2, Symbol('s')]], [undefined, 1], new Date(0)];
const BAD_THINGS: unknown[] = [null, undefined, 0, -1, 1.5, NaN, 'x', {}, [], () => {}, Symbol('s'), 10n, new Map()];
const BAD_RANKS: unknown[] = [-1, 1, 0.5, NaN, '0', null, undefined, 2 ** 40, Infinity, {}];

let n = 0;

/** Runs `f` and the fence after it; every failure must be a TtgError. Returns how it failed. */
async function expectTtgFailure(what: string, f: () => void): Promise<string> {
  try {
    f();
  } catch (e) {
    expect(e, `${what}: threw ${String(e)}`).to.be.instanceOf(ttg.TtgError);
    await fence().catch(() => undefined);
    return (e as ttg.TtgError).code;
  }
  const e = await rejection(fence());
  expect(e, `${what}: fence rejected with ${String(e)}`).to.be.instanceOf(ttg.TtgError);
  return (e as ttg.TtgError).code;
}

function pipe(tag: string) {
  const id = `fuzz-${tag}-${n++}`;
  const a = new ttg.Edge<unknown, unknown>(`${id}-a`);
  const b = new ttg.Edge<unknown, unknown>(`${id}-b`);
  const got: unknown[] = [];
  const p = ttg.make_tt((k: unknown, v: unknown, out) => out.send(0, k, v), [a], [b], { name: `${id}-P` });
  const c = ttg.make_tt((k: unknown) => { got.push(k); }, [b], [], { name: `${id}-C` });
  return { p, c, got, id };
}

describe('fuzz: bad inputs to the public API', function () {
  this.timeout(60_000);
  before(async () => {
    await ttg.initialize();
  });

  it('bad keys to invoke and send are E_BAD_KEY', async () => {
    for (const [i, key] of BAD_KEYS.entries()) {
      const { p, c } = pipe('key');
      ttg.make_graph_executable(p, c);
      ttg.execute();
      expect(await expectTtgFailure(`invoke(bad key #${i})`, () => p.invoke(key, 1))).to.equal('E_BAD_KEY');
    }
    await expectHealthy('fuzz-key');
  });

  it('procmap results outside [0, size) are E_PROCMAP_RANGE', async () => {
    for (const r of BAD_RANKS) {
      const { p, c } = pipe('procmap');
      c.set_procmap(() => r as number);
      ttg.make_graph_executable(p, c);
      ttg.execute();
      expect(await expectTtgFailure(`procmap -> ${String(r)}`, () => p.invoke(1, 1))).to.equal('E_PROCMAP_RANGE');
    }
    await expectHealthy('fuzz-procmap');
  });

  it('random wrong-typed arguments to every entry point are TtgErrors', async () => {
    const rand = rng(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const calls: Array<[string, (x: unknown) => void]> = [
      ['Edge(name)', (x) => new ttg.Edge(x as string)],
      ['fuse(...)', (x) => ttg.fuse(x as ttg.Edge<number, number>)],
      ['make_tt(body)', (x) => ttg.make_tt(x as () => void, [], [])],
      ['make_tt(inputs)', (x) => ttg.make_tt(() => {}, x as [], [])],
      ['make_tt(outputs)', (x) => ttg.make_tt(() => {}, [], x as [])],
      ['make_tt(options)', (x) => ttg.make_tt(() => {}, [], [], x as ttg.TTOptions)],
      ['make_tt(consume)', (x) => ttg.make_tt((_k: number, _v: number) => {}, [new ttg.Edge<number, number>('fz')], [], { consume: [x as number] })],
      ['set_procmap', (x) => pipe('a').p.set_procmap(x as () => number)],
      ['set_priomap', (x) => pipe('b').p.set_priomap(x as () => number)],
      ['set_devicehint', (x) => pipe('c').p.set_devicehint(x as () => number)],
      ['set_input_reducer(fn)', (x) => pipe('d').c.set_input_reducer(0, x as () => unknown)],
      ['set_input_reducer(count)', (x) => pipe('e').c.set_input_reducer(0, (a: unknown) => a, x as number)],
      ['set_input_reducer(terminal)', (x) => pipe('f').c.set_input_reducer(x as 0, (a: unknown) => a)],
      ['set_argstream_size', (x) => { const q = pipe('g'); q.c.set_input_reducer(0, (a: unknown) => a); q.c.set_argstream_size(0, 1, x as number); }],
      ['make_graph_executable', (x) => ttg.make_graph_executable(x as ttg.TT)],
      ['SequencedKeysConstraint(mapper)', (x) => new ttg.SequencedKeysConstraint(x as () => number)],
      ['constraint.release', (x) => new ttg.SequencedKeysConstraint((k: number) => k).release(x as number)],
      ['add_constraint', (x) => pipe('h').p.add_constraint(x as ttg.SequencedKeysConstraint)],
      ['invoke arity', (x) => { const q = pipe('i'); ttg.make_graph_executable(q.p, q.c); (q.p.invoke as (...a: unknown[]) => void)(1, 1, x); }],
      ['invoke before executable', (x) => pipe('j').p.invoke(1, x)],
    ];
    let failures = 0;
    for (let i = 0; i < 200; i++) {
      const [what, call] = pick(calls);
      const x = pick(BAD_THINGS);
      try {
        call(x);
      } catch (e) {
        failures++;
        expect(e, `${what}(${typeof x}) threw ${String(e)}`).to.be.instanceOf(ttg.TtgError);
      }
    }
    expect(failures).to.be.greaterThan(100);
    await fence().catch((e: unknown) => expect(e).to.be.instanceOf(ttg.TtgError));
    await expectHealthy('fuzz-random');
  });

  it('bodies misusing `out` (terminal out of range, bad broadcast, bad stream sizes) reject the fence with TtgErrors', async () => {
    const misuse: Array<(out: ttg.Out<[ttg.Edge<number, number>]>) => void> = [
      (out) => (out.send as (i: number, k: unknown, v: unknown) => void)(5, 1, 1),
      (out) => (out.send as (i: unknown, k: unknown, v: unknown) => void)(-1, 1, 1),
      (out) => (out.broadcast as (i: unknown, k: unknown, v: unknown) => void)([0, 1], [[1]], 1),
      (out) => (out.broadcast as (i: unknown, k: unknown, v: unknown) => void)(0, [NaN], 1),
      (out) => out.send(0, NaN, 1),
      (out) => (out.set_argstream_size as (i: number, k: unknown, n: unknown) => void)(0, 1, -3),
      (out) => (out.finalize_argstream as (i: number, k: unknown) => void)(9, 1),
    ];
    for (const [i, f] of misuse.entries()) {
      const id = `fuzz-out-${i}`;
      const a = new ttg.Edge<number, number>(`${id}-a`);
      const b = new ttg.Edge<number, number>(`${id}-b`);
      const p = ttg.make_tt((_k: number, _v: number, out) => f(out as never), [a], [b], { name: `${id}-P` });
      const c = ttg.make_tt((_k: number, _v: number) => {}, [b], [], { name: `${id}-C` });
      ttg.make_graph_executable(p, c);
      ttg.execute();
      const code = await expectTtgFailure(id, () => p.invoke(1, 1));
      expect(code, id).to.not.equal('E_TASK_FAILED');
    }
    await expectHealthy('fuzz-out');
  });
});

/**
 * A randomized hostile mix, phase after phase: bodies that return or yield thenables calling back
 * twice or throwing, priomaps that throw for one key, auto constraints with thousands of held
 * ordinals, and values both read and consumed. A phase with a planted fault must reject with a
 * TtgError; every phase's values are checked, and the good phase after each one runs clean.
 */
describe('fuzz: a hostile mix over many phases', () => {
  before(async () => {
    await ttg.initialize();
  });

  /** A thenable that calls back twice: resolves with 1 now and 2 a moment later. */
  const twice = (): PromiseLike<number> => ({ then(res?: ((v: number) => unknown) | null) { res?.(1); setTimeout(() => res?.(2), 1); return this as never; } });
  /** A thenable whose `then` throws. */
  const throwing = (): PromiseLike<number> => ({ then() { throw new Error('then-boom'); } });

  /** One phase of `n` keys: returns the keys that ran and what the readers saw wrong. */
  async function phase(id: string, rand: () => number, fault: 'none' | 'then' | 'prio'): Promise<{ n: number; ran: number[]; wrong: number; rejected: string | undefined }> {
    const n = 50 + Math.floor(rand() * 3000);
    const go = new ttg.Edge<number, Float64Array>(`${id}-go`);
    const toR = new ttg.Edge<number, Float64Array>(`${id}-r`);
    const toC = new ttg.Edge<number, Float64Array>(`${id}-c`);
    const ran: number[] = [];
    let wrong = 0;
    const c = new ttg.SequencedKeysConstraint((k: number) => k, { auto: true });
    const src = ttg.make_tt(function* (k: number, v: Float64Array, out) {
      // a thenable that calls back twice must resume this generator once
      const x: unknown = yield (k % 7 === 0 ? twice() : Promise.resolve(1));
      if (x !== 1) wrong++;
      out.send(0, k, v);
      out.send(1, k, v);
      if (fault === 'then' && k === 3) yield throwing();
    }, [go], [toR, toC], { name: `${id}-SRC` }).add_constraint(c);
    if (fault === 'prio') src.set_priomap((k) => { if (k === n - 1) throw new Error('prio-boom'); return 0; });
    const reader = ttg.make_tt(async (k: number, v: Float64Array) => {
      await Promise.resolve();
      if (v[0] !== k || v[1] !== k) wrong++;
      ran.push(k);
    }, [toR], [], { name: `${id}-R` });
    const consumer = ttg.make_tt(function* (_k: number, v: Float64Array) {
      yield twice();
      v.fill(-1);
    }, [toC], [], { name: `${id}-C`, consume: [0] });
    ttg.make_graph_executable(src, reader, consumer);
    for (let k = n - 1; k >= 0; k--) src.invoke(k, Float64Array.of(k, k));
    ttg.execute();
    const rejected = await fence().then(() => undefined, (e: unknown) => (e instanceof ttg.TtgError ? e.code : `not a TtgError: ${String(e)}`));
    return { n, ran, wrong, rejected };
  }

  it('faults fail their phase with a TtgError; no value is torn; the next phase runs every task', async () => {
    const rand = rng(33);
    for (let p = 0; p < 8; p++) {
      const fault = (['none', 'then', 'prio'] as const)[Math.floor(rand() * 3)]!;
      const bad = await phase(`fuzz-mix-${p}`, rand, fault);
      expect(bad.wrong, `phase ${p} (${fault})`).to.equal(0);
      if (fault === 'none') expect(bad.rejected, `phase ${p}`).to.equal(undefined);
      else expect(bad.rejected, `phase ${p} (${fault})`).to.equal('E_TASK_FAILED');
      const good = await phase(`fuzz-mix-${p}-good`, rand, 'none');
      expect([good.rejected, good.wrong], `phase ${p}, the good one after`).to.deep.equal([undefined, 0]);
      expect(new Set(good.ran).size, `phase ${p}, the good one after: every task once`).to.equal(good.n);
      expect(good.ran.length, `phase ${p}, the good one after: every task once`).to.equal(good.n);
    }
    await expectHealthy('fuzz-mix');
  });
});
