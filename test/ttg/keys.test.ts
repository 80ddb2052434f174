/**
 * Task keys: structural identity (equal keys are the same task, whatever object carries them) and
 * invalid keys (E_BAD_KEY). Identity is observed through a two-input join: the two halves of a
 * task meet only if their keys are the same task.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';
import { expectHealthy, expectTtgError, fence, mine, rejection, thrown } from '../helpers.js';

/** A key that defines its own identity; `hash()` is deliberately weak so that unequal keys collide. */
class PairKey {
  constructor(readonly a: number, readonly b: number) {}
  hash(): number {
    return (this.a + this.b) % 3;
  }
  equals(other: unknown): boolean {
    return other instanceof PairKey && other.a === this.a && other.b === this.b;
  }
}

interface Send { t: 0 | 1; key: unknown; v: string }

let joins = 0;

/**
 * A feeder TT that sends values on terminal 0 or 1 of a join TT, as told by the list it is invoked
 * with; the join records every task that runs.
 */
function makeJoin() {
  const id = `key-j${joins++}`;
  const plan = new ttg.Edge<number, Send[]>(`${id}-plan`);
  const a = new ttg.Edge<unknown, string>(`${id}-a`);
  const b = new ttg.Edge<unknown, string>(`${id}-b`);
  const runs: Array<{ key: unknown; a: string; b: string }> = [];
  const feeder = ttg.make_tt((_k: number, sends: Send[], out) => {
    for (const s of sends) out.send(s.t, s.key, s.v);
  }, [plan], [a, b], { name: `${id}-feed` });
  const join = ttg.make_tt((key: unknown, va: string, vb: string) => {
    runs.push({ key, a: va, b: vb });
  }, [a, b], [], { name: `${id}-join` });
  ttg.make_graph_executable(feeder, join);
  let n = 0;
  return {
    id,
    runs,
    join,
    async feed(...sends: Send[]): Promise<ttg.FenceReport> {
      feeder.invoke(n++, sends);
      return fence();
    },
  };
}

const both = (key1: unknown, key2: unknown, tag: string): Send[] => [{ t: 0, key: key1, v: `${tag}-a` }, { t: 1, key: key2, v: `${tag}-b` }];

describe('keys', () => {
  before(async () => {
    await ttg.initialize();
  });

  it('numbers and strings: equal values are the same task', async () => {
    const j = makeJoin();
    const report = await j.feed(...both(5, 5, 'n'), ...both('abc', 'abc', 's'), ...both(2 ** 53 - 1, 2 ** 53 - 1, 'big'), ...both(-3.25, -3.25, 'neg'));
    expect(j.runs.map((r) => `${r.a}/${r.b}`).sort()).to.deep.equal(['big-a/big-b', 'n-a/n-b', 'neg-a/neg-b', 's-a/s-b']);
    expect(mine(report, j.id).incomplete).to.deep.equal([]);
  });

  it('-0 and 0 are the same task (also inside tuples and objects)', async () => {
    const j = makeJoin();
    const report = await j.feed(...both(-0, 0, 'top'), ...both([-0, 1], [0, 1], 'tup'), ...both([-0, 1.5], [0, 1.5], 'ftup'), ...both({ x: -0 }, { x: 0 }, 'obj'));
    expect(j.runs.map((r) => r.a).sort()).to.deep.equal(['ftup-a', 'obj-a', 'top-a', 'tup-a']);
    expect(mine(report, j.id).incomplete).to.deep.equal([]);
  });

  it('the number 1 and the string "1" are different tasks (also inside tuples and objects)', async () => {
    const j = makeJoin();
    let report = await j.feed(
      { t: 0, key: 1, v: 'num' }, { t: 1, key: '1', v: 'str' },
      { t: 0, key: [1, 2], v: 'numtup' }, { t: 1, key: ['1', 2], v: 'strtup' },
      { t: 0, key: { i: 1 }, v: 'numobj' }, { t: 1, key: { i: '1' }, v: 'strobj' },
    );
    expect(j.runs).to.deep.equal([]);
    const waiting = mine(report, j.id).incomplete;
    expect(waiting).to.have.length(6);
    // complete each of the six tasks separately: each runs once with its own halves
    report = await j.feed(
      { t: 1, key: 1, v: 'num2' }, { t: 0, key: '1', v: 'str2' },
      { t: 1, key: [1, 2], v: 'numtup2' }, { t: 0, key: ['1', 2], v: 'strtup2' },
      { t: 1, key: { i: 1 }, v: 'numobj2' }, { t: 0, key: { i: '1' }, v: 'strobj2' },
    );
    expect(j.runs.map((r) => `${r.a}/${r.b}`).sort()).to.deep.equal([
      'num/num2', 'numobj/numobj2', 'numtup/numtup2', 'str2/str', 'strobj2/strobj', 'strtup2/strtup',
    ]);
    expect(mine(report, j.id).incomplete).to.deep.equal([]);
  });

  it('tuples [i, j] and [i, j, k]: equal contents are the same task, different contents are not', async () => {
    const j = makeJoin();
    let report = await j.feed(
      ...both([1, 2], [1, 2], 't2'),
      ...both([1, 2, 3], [1, 2, 3], 't3'),
      { t: 0, key: [2, 1], v: 'swapped' }, { t: 1, key: [1, 2, 0], v: 'longer' },
    );
    expect(j.runs.map((r) => `${r.a}/${r.b}`).sort()).to.deep.equal(['t2-a/t2-b', 't3-a/t3-b']);
    expect(mine(report, j.id).incomplete.map((t) => JSON.stringify(t.key)).sort()).to.deep.equal(['[1,2,0]', '[2,1]']);
    report = await j.feed({ t: 1, key: [2, 1], v: 'swapped-b' }, { t: 0, key: [1, 2, 0], v: 'longer-a' });
    expect(j.runs).to.have.length(4);
    expect(mine(report, j.id).incomplete).to.deep.equal([]);
  });

  it('tuples with large, negative, float or string elements (off the packed fast path) keep structural identity', async () => {
    const j = makeJoin();
    const keys: Array<() => unknown[]> = [
      () => [-1, 2], () => [1, -2, 3], () => [1.5, 2], () => [2 ** 40, 3], () => [0x4000000, 0],
      () => [0, 0x4000000], () => [0x20000, 1, 2], () => [1, 2, 0x20000], () => [1, 2, 3, 4], () => ['x', 2],
      () => [1], () => [], () => [[1, 2], [3]],
    ];
    let report = await j.feed(...keys.flatMap((mk, i) => both(mk(), mk(), `k${i}`)));
    expect(j.runs).to.have.length(keys.length);
    expect(j.runs.every((r) => r.a.replace('-a', '') === r.b.replace('-b', ''))).to.equal(true);
    expect(mine(report, j.id).incomplete).to.deep.equal([]);
    // neighbours of those keys are different tasks: none of them joins another one
    report = await j.feed(
      { t: 0, key: [-1, 3], v: 'n1' }, { t: 1, key: [1.5, 2.5], v: 'n2' }, { t: 0, key: [2 ** 40, 4], v: 'n3' },
      { t: 1, key: [0x4000000, 1], v: 'n4' },
    );
    expect(j.runs).to.have.length(keys.length);
    expect(mine(report, j.id).incomplete).to.have.length(4);
    await j.feed({ t: 1, key: [-1, 3], v: 'm1' }, { t: 0, key: [1.5, 2.5], v: 'm2' }, { t: 1, key: [2 ** 40, 4], v: 'm3' },
      { t: 0, key: [0x4000000, 1], v: 'm4' });
    expect(j.runs).to.have.length(keys.length + 4);
  });

  it('plain objects: property order does not matter ({i:1,j:2} is the task {j:2,i:1})', async () => {
    const j = makeJoin();
    const report = await j.feed(
      ...both({ i: 1, j: 2 }, { j: 2, i: 1 }, 'flat'),
      ...both({ a: { x: 1, y: [1, 2] }, b: 'z' }, { b: 'z', a: { y: [1, 2], x: 1 } }, 'nested'),
    );
    expect(j.runs.map((r) => r.a).sort()).to.deep.equal(['flat-a', 'nested-a']);
    expect(mine(report, j.id).incomplete).to.deep.equal([]);
  });

  it('objects with hash()/equals(): equal keys join, colliding but unequal keys stay apart', async () => {
    const j = makeJoin();
    // PairKey(1, 2), (2, 1), (0, 3) and (3, 0) all hash to 0 but only equal pairs are equal
    let report = await j.feed(
      ...both(new PairKey(1, 2), new PairKey(1, 2), 'eq'),
      { t: 0, key: new PairKey(2, 1), v: 'c1' },
      { t: 1, key: new PairKey(0, 3), v: 'c2' },
      { t: 0, key: new PairKey(3, 0), v: 'c3' },
    );
    expect(j.runs.map((r) => `${r.a}/${r.b}`)).to.deep.equal(['eq-a/eq-b']);
    expect(j.runs[0]!.key).to.be.instanceOf(PairKey);
    const waiting = mine(report, j.id).incomplete;
    expect(waiting).to.have.length(3);
    expect(waiting.map((t) => t.missing[0]).sort()).to.deep.equal([0, 1, 1]);
    report = await j.feed(
      { t: 1, key: new PairKey(2, 1), v: 'd1' },
      { t: 0, key: new PairKey(0, 3), v: 'd2' },
      { t: 1, key: new PairKey(3, 0), v: 'd3' },
    );
    expect(j.runs.map((r) => `${r.a}/${r.b}`).sort()).to.deep.equal(['c1/d1', 'c3/d3', 'd2/c2', 'eq-a/eq-b']);
    expect(mine(report, j.id).incomplete).to.deep.equal([]);
  });

  it('a moderately nested key (10 levels) is fine', async () => {
    const j = makeJoin();
    const nest = () => {
      let k: unknown = 1;
      for (let i = 0; i < 10; i++) k = { k, i };
      return k;
    };
    await j.feed(...both(nest(), nest(), 'deep'));
    expect(j.runs.map((r) => r.a)).to.deep.equal(['deep-a']);
  });

  describe('bad keys (E_BAD_KEY)', () => {
    const cyclic = (): unknown => {
      const o: Record<string, unknown> = { a: 1 };
      o.self = o;
      return o;
    };
    const tooDeep = (): unknown => {
      let k: unknown = 0;
      for (let i = 0; i < 100; i++) k = [k];
      return k;
    };
    const bad: Array<[string, () => unknown, string]> = [
      ['NaN', () => NaN, 'NaN'],
      ['NaN inside a tuple', () => [1, NaN], '[1,"NaN"]'],
      ['a function', () => function namedFn() {}, 'namedFn'],
      ['a symbol', () => Symbol('sym'), 'Symbol(sym)'],
      ['a Map instance', () => new Map([[1, 2]]), 'Map'],
      ['a cyclic object', cyclic, '[cycle]'],
      ['a key nested too deep', tooDeep, '[[[['],
    ];
    const oneInput = new ttg.Edge<unknown, number>('key-bad-one');
    const twoA = new ttg.Edge<unknown, number>('key-bad-two-a');
    const twoB = new ttg.Edge<unknown, number>('key-bad-two-b');
    let one: ttg.TT<unknown, readonly [ttg.Edge<unknown, number>], readonly []>;
    let two: ttg.TT<unknown, readonly [ttg.Edge<unknown, number>, ttg.Edge<unknown, number>], readonly []>;
    before(() => {
      one = ttg.make_tt((_k: unknown, _v: number) => {}, [oneInput], [], { name: 'key-bad-one' });
      two = ttg.make_tt((_k: unknown, _a: number, _b: number) => {}, [twoA, twoB], [], { name: 'key-bad-two' });
      ttg.make_graph_executable(one, two);
    });

    for (const [what, make, shown] of bad) {
      it(`invoke with ${what} throws E_BAD_KEY naming the TT and the key (one and two inputs)`, () => {
        const e1 = expectTtgError(thrown(() => one.invoke(make(), 1)), 'E_BAD_KEY', ["'key-bad-one'", shown]);
        expect(e1.tt).to.equal('key-bad-one');
        const e2 = expectTtgError(thrown(() => two.invoke(make(), 1, 2)), 'E_BAD_KEY', ["'key-bad-two'", shown]);
        expect(e2.tt).to.equal('key-bad-two');
      });
    }

    it('a bad key sent from inside a body rejects the fence with E_BAD_KEY naming the receiving TT and terminal', async () => {
      const go = new ttg.Edge<number, number>('key-badsend-go');
      const e = new ttg.Edge<unknown, number>('key-badsend-e');
      const src = ttg.make_tt((_k: number, _v: number, out) => {
        out.send(0, new Map(), 1);
      }, [go], [e], { name: 'key-badsend-src' });
      const a = new ttg.Edge<unknown, number>('key-badsend-other');
      const dst = ttg.make_tt(() => {}, [a, e], [], { name: 'key-badsend-dst' });
      ttg.make_graph_executable(src, dst);
      src.invoke(0, 0);
      const err = expectTtgError(await rejection(fence()), 'E_BAD_KEY', ["'key-badsend-dst'", 'terminal 1', 'Map']);
      expect(err.terminal).to.equal(1);
    });

    it('the process keeps working after bad keys', async () => {
      await expectHealthy('key');
      // and the TTs that saw bad keys still accept good ones
      one.invoke(1, 1);
      two.invoke([1, 2], 1, 2);
      const report = await fence();
      expect(mine(report, 'key-bad').incomplete).to.deep.equal([]);
    });
  });
});
