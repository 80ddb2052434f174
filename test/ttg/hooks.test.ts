/**
 * Per-TT hooks: set_procmap (and its range errors, E_PROCMAP_RANGE), set_priomap, set_devicehint.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';
import { expectHealthy, expectTtgError, fence, rejection, thrown } from '../helpers.js';

describe('TT hooks', () => {
  before(async () => {
    await ttg.initialize();
  });

  it('set_procmap returning 0 runs every task on this (only) rank, and the procmap is consulted', async () => {
    const e0 = new ttg.Edge<number, number>('hk-pm-a');
    const e1 = new ttg.Edge<number, number>('hk-pm-b');
    const asked: number[] = [];
    const ran: Array<[number, number, number]> = [];
    const tt = ttg.make_tt((k: number, a: number, b: number) => {
      ran.push([k, a, b]);
    }, [e0, e1], [], { name: 'hk-pm' });
    expect(tt.set_procmap((k) => {
      asked.push(k);
      return 0;
    })).to.equal(tt); // chainable
    ttg.make_graph_executable(tt);
    tt.invoke(1, 10, 11);
    tt.invoke(2, 20, 21);
    await fence();
    expect(ran).to.have.deep.members([[1, 10, 11], [2, 20, 21]]);
    expect(asked).to.include.members([1, 2]);
  });

  describe('a procmap result outside [0, size) or not an integer (E_PROCMAP_RANGE)', () => {
    const results: Array<[string, unknown]> = [
      ['the world size (1)', 1],
      ['a negative rank', -1],
      ['a fraction', 0.5],
      ['NaN', NaN],
      ['a numeric string', '0'],
      ['undefined', undefined],
    ];
    for (const [what, result] of results) {
      it(`${what}: invoke throws E_PROCMAP_RANGE naming the TT and the key`, () => {
        const e = new ttg.Edge<number, number>(`hk-range-${what}`);
        const tt = ttg.make_tt((_k: number) => {}, [e], [], { name: `hk-range-${what}` })
          .set_procmap((() => result) as unknown as (k: number) => number);
        ttg.make_graph_executable(tt);
        const err = expectTtgError(thrown(() => tt.invoke(42, 0)), 'E_PROCMAP_RANGE', [`'hk-range-${what}'`, 'key 42']);
        expect(err.key).to.equal(42);
      });
    }

    it('from a send inside a body the fence rejects with E_PROCMAP_RANGE', async () => {
      const go = new ttg.Edge<number, number>('hk-rbody-go');
      const e = new ttg.Edge<number, number>('hk-rbody-e');
      const src = ttg.make_tt((k: number, _v: number, out) => out.send(0, k + 1, 0), [go], [e], { name: 'hk-rbody-src' });
      const dst = ttg.make_tt(() => {}, [e], [], { name: 'hk-rbody-dst' }).set_procmap(() => 7);
      ttg.make_graph_executable(src, dst);
      src.invoke(1, 0);
      expectTtgError(await rejection(fence()), 'E_PROCMAP_RANGE', ["'hk-rbody-dst'", 'key 2', '7']);
    });

    it('the process keeps working after procmap errors', async () => {
      await expectHealthy('hk');
    });
  });

  it('set_priomap stores the priority function (higher runs first)', async () => {
    const e = new ttg.Edge<string, number>('hk-prio');
    const order: string[] = [];
    const tt = ttg.make_tt((k: string) => { order.push(k); }, [e], [], { name: 'hk-prio' });
    expect(tt.set_priomap((k) => k.length)).to.equal(tt);
    ttg.make_graph_executable(tt);
    for (const k of ['a', 'ccc', 'bb', 'dddd']) tt.invoke(k, 0);
    await fence();
    expect(order).to.deep.equal(['dddd', 'ccc', 'bb', 'a']);
  });

  it('set_devicehint is stored: tt.devicehint(key) returns the hint of that key', () => {
    const e = new ttg.Edge<[number, number], number>('hk-dev');
    const tt = ttg.make_tt((_k: [number, number]) => {}, [e], [], { name: 'hk-dev' });
    expect(tt.devicehint([1, 2])).to.equal(undefined);
    expect(tt.set_devicehint((k) => (k[0] + k[1]) % 3)).to.equal(tt);
    expect(tt.devicehint([1, 2])).to.equal(0);
    expect(tt.devicehint([1, 3])).to.equal(1);
    expect(tt.devicehint([4, 4])).to.equal(2);
  });

  it('hooks that are not functions are rejected (E_INVALID_ARGUMENT naming the TT)', () => {
    const e = new ttg.Edge<number, number>('hk-notfn');
    const tt = ttg.make_tt(() => {}, [e], [], { name: 'hk-notfn' });
    const loose = tt as unknown as Record<'set_procmap' | 'set_priomap' | 'set_devicehint', (f: unknown) => unknown>;
    for (const hook of ['set_procmap', 'set_priomap', 'set_devicehint'] as const) {
      expectTtgError(thrown(() => loose[hook](3)), 'E_INVALID_ARGUMENT', ["'hk-notfn'"]);
    }
  });
});
