/**
 * make_tt: the SPEC §2 example, invoke supplying all inputs, the four body forms and how
 * generator bodies are driven (the `co_await` of C++ TTG).
 */
import { expect } from 'chai';
import * as ttg from 'ttg';
import { expectHealthy, expectTtgError, fence, mine, thrown, tick } from '../helpers.js';

describe('make_tt', () => {
  before(async () => {
    await ttg.initialize();
  });

  it('runs the SPEC §2 example: B feeds both terminals of C, which runs once with both values', async () => {
    const toB = new ttg.Edge<number, number>('mt-toB');
    const b2c0 = new ttg.Edge<number, number>('mt-b2c0');
    const b2c1 = new ttg.Edge<number, number>('mt-b2c1');
    const bRuns: number[] = [];
    const cRuns: Array<[number, number, number]> = [];
    const tb = ttg.make_tt((k: number, a: number, out) => {
      bRuns.push(k);
      if (k === 0) out.send(0, 0, a);
      if (k === 1) out.send(1, 0, a);
    }, [toB], [b2c0, b2c1], { name: 'mt-B' });
    const tc = ttg.make_tt((k: number, i0: number, i1: number) => {
      cRuns.push([k, i0, i1]);
    }, [b2c0, b2c1], [], { name: 'mt-C' });
    ttg.make_graph_executable(tb, tc);
    const world = tb.get_world();
    if (world.rank === 0) {
      tb.invoke(0, 0.0);
      tb.invoke(1, 1.0);
    }
    ttg.execute();
    const report = await fence();
    expect(bRuns.sort()).to.deep.equal([0, 1]);
    expect(cRuns).to.deep.equal([[0, 0.0, 1.0]]);
    expect(mine(report, 'mt-').incomplete).to.deep.equal([]);
  });

  it('invoke supplies every input of a task at once, in terminal order', async () => {
    const a = new ttg.Edge<string, number>('mt-in-a');
    const b = new ttg.Edge<string, string>('mt-in-b');
    const c = new ttg.Edge<string, boolean>('mt-in-c');
    const runs: unknown[] = [];
    const t = ttg.make_tt((k: string, x: number, y: string, z: boolean) => {
      runs.push([k, x, y, z]);
    }, [a, b, c], [], { name: 'mt-invoke3' });
    ttg.make_graph_executable(t);
    t.invoke('first', 1, 'one', true);
    t.invoke('second', 2, 'two', false);
    await fence();
    expect(runs).to.have.deep.members([['first', 1, 'one', true], ['second', 2, 'two', false]]);
    expect(runs).to.have.length(2);
  });

  it('invoke() of a TT with no inputs runs its body with the key and out', async () => {
    const e = new ttg.Edge<number, string>('mt-noin-out');
    const got: string[] = [];
    const src = ttg.make_tt((k: number, out) => {
      out.send(0, k * 10, `from ${k}`);
    }, [], [e], { name: 'mt-noin' });
    const sink = ttg.make_tt((k: number, v: string) => {
      got.push(`${k}=${v}`);
    }, [e], [], { name: 'mt-noin-sink' });
    ttg.make_graph_executable(src, sink);
    src.invoke(3);
    src.invoke(4);
    await fence();
    expect(got.sort()).to.deep.equal(['30=from 3', '40=from 4']);
  });

  it('invoke() of a keyless TT whose inputs are all control edges runs it with key and inputs undefined; invoke(key) for a keyed one', async () => {
    const a = new ttg.Edge<void, void>('mt-ctl-a');
    const b = new ttg.Edge<void, void>('mt-ctl-b');
    const kc = new ttg.Edge<number, void>('mt-ctl-k');
    const runs: unknown[][] = [];
    const keyless = ttg.make_tt((k: void, x: void, y: void) => { runs.push(['keyless', k, x, y]); }, [a, b], [], { name: 'mt-ctl' });
    const keyed = ttg.make_tt((k: number, c: void) => { runs.push(['keyed', k, c]); }, [kc], [], { name: 'mt-ctl-keyed' });
    const bare = ttg.make_tt((k: void) => { runs.push(['bare', k]); }, [], [], { name: 'mt-ctl-bare' });
    ttg.make_graph_executable(keyless, keyed, bare);
    keyless.invoke();
    keyed.invoke(7);
    keyed.invoke(8, undefined);
    bare.invoke();
    await fence();
    expect(runs).to.deep.equal([
      ['keyless', undefined, undefined, undefined], ['keyed', 7, undefined], ['keyed', 8, undefined], ['bare', undefined],
    ]);
    // a partial list is still a mistake: the runtime cannot tell control inputs from data inputs
    const loose = keyless as unknown as { invoke(...args: unknown[]): void };
    expectTtgError(thrown(() => loose.invoke(undefined, undefined)), 'E_ARITY', ["'mt-ctl'", '2', 'got 1', 'control edge']);
  });

  describe('the four body forms', () => {
    // Each form receives (key, input, out), may send, and completes before the fence resolves.
    const forms = {
      plain: (log: string[]) => (k: number, v: number, out: ttg.Out<readonly [ttg.Edge<number, number>]>) => {
        log.push(`body ${k}`);
        out.send(0, k, v + 1);
      },
      async: (log: string[]) => async (k: number, v: number, out: ttg.Out<readonly [ttg.Edge<number, number>]>) => {
        log.push(`body ${k}`);
        await tick(1);
        out.send(0, k, v + 1);
      },
      generator: (log: string[]) => function* (k: number, v: number, out: ttg.Out<readonly [ttg.Edge<number, number>]>) {
        log.push(`body ${k}`);
        const w = (yield Promise.resolve(v + 1)) as number;
        out.send(0, k, w);
      },
      asyncGenerator: (log: string[]) => async function* (k: number, v: number, out: ttg.Out<readonly [ttg.Edge<number, number>]>) {
        log.push(`body ${k}`);
        await tick(1);
        const w = (yield Promise.resolve(v + 1)) as number;
        out.send(0, k, w);
      },
    };
    for (const [form, make] of Object.entries(forms)) {
      it(`runs a ${form} body once per key and its sends arrive`, async () => {
        const e0 = new ttg.Edge<number, number>(`mt-${form}-in`);
        const e1 = new ttg.Edge<number, number>(`mt-${form}-out`);
        const log: string[] = [];
        const got: string[] = [];
        const t = ttg.make_tt(make(log), [e0], [e1], { name: `mt-${form}` });
        const sink = ttg.make_tt((k: number, v: number) => {
          got.push(`${k}->${v}`);
        }, [e1], [], { name: `mt-${form}-sink` });
        ttg.make_graph_executable(t, sink);
        for (let k = 0; k < 4; k++) t.invoke(k, k * 100);
        await fence();
        expect(log.sort()).to.deep.equal(['body 0', 'body 1', 'body 2', 'body 3']);
        expect(got.sort()).to.deep.equal(['0->1', '1->101', '2->201', '3->301']);
      });
    }
  });

  describe('generator bodies', () => {
    for (const form of ['function*', 'async function*'] as const) {
      it(`${form}: each yielded promise's resolved value comes back as the value of the yield`, async () => {
        const e = new ttg.Edge<number, number>(`mt-gen-${form}`);
        const seen: unknown[] = [];
        const delayed = (x: number) => new Promise<number>((r) => setTimeout(() => r(x), 2));
        const body = form === 'function*'
          ? function* (k: number, v: number) {
            const a = (yield Promise.resolve(v + 1)) as number;
            const b = (yield delayed(a * 2)) as number;
            seen.push([k, a, b]);
          }
          : async function* (k: number, v: number) {
            const a = (yield Promise.resolve(v + 1)) as number;
            const b = (yield delayed(a * 2)) as number;
            seen.push([k, a, b]);
          };
        const t = ttg.make_tt(body, [e], [], { name: `mt-gen-${form}` });
        ttg.make_graph_executable(t);
        t.invoke(1, 10);
        t.invoke(2, 20);
        await fence();
        expect(seen).to.have.deep.members([[1, 11, 22], [2, 21, 42]]);
      });

      it(`${form}: a rejected yielded promise is thrown into the generator and can be caught there`, async () => {
        const e = new ttg.Edge<number, number>(`mt-genrej-${form}`);
        const caught: unknown[] = [];
        const boom = new Error('yielded rejection');
        const body = form === 'function*'
          ? function* (k: number) {
            try {
              yield Promise.reject(boom);
              caught.push('not thrown');
            } catch (err) {
              caught.push(err);
            }
            const after = (yield Promise.resolve(k)) as number;
            caught.push(after);
          }
          : async function* (k: number) {
            try {
              yield Promise.reject(boom);
              caught.push('not thrown');
            } catch (err) {
              caught.push(err);
            }
            const after = (yield Promise.resolve(k)) as number;
            caught.push(after);
          };
        const t = ttg.make_tt(body, [e], [], { name: `mt-genrej-${form}` });
        ttg.make_graph_executable(t);
        t.invoke(7, 0);
        const report = await fence();
        expect(caught).to.have.length(2);
        expect(caught[0]).to.equal(boom);
        expect(caught[1]).to.equal(7);
        expect(mine(report, 'mt-genrej').incomplete).to.deep.equal([]);
      });

      it(`${form}: yielding a plain (non-promise) value gives it back unchanged`, async () => {
        const e = new ttg.Edge<number, number>(`mt-genplain-${form}`);
        const obj = { marker: 'same object' };
        const seen: unknown[] = [];
        const body = form === 'function*'
          ? function* () {
            seen.push(yield 42);
            seen.push(yield obj);
            seen.push(yield 'text');
            seen.push(yield undefined);
          }
          : async function* () {
            seen.push(yield 42);
            seen.push(yield obj);
            seen.push(yield 'text');
            seen.push(yield undefined);
          };
        const t = ttg.make_tt(body, [e], [], { name: `mt-genplain-${form}` });
        ttg.make_graph_executable(t);
        t.invoke(1, 0);
        await fence();
        expect(seen).to.have.length(4);
        expect(seen[0]).to.equal(42);
        expect(seen[1]).to.equal(obj);
        expect(seen[2]).to.equal('text');
        expect(seen[3]).to.equal(undefined);
      });
    }
  });

  it('uses the given name, and gives unnamed TTs distinct names', () => {
    const e1 = new ttg.Edge<number, number>('mt-name1');
    const e2 = new ttg.Edge<number, number>('mt-name2');
    const e3 = new ttg.Edge<number, number>('mt-name3');
    const named = ttg.make_tt(() => {}, [e1], [], { name: 'mt-named' });
    const u1 = ttg.make_tt(() => {}, [e2], []);
    const u2 = ttg.make_tt(() => {}, [e3], []);
    expect(named.name).to.equal('mt-named');
    expect(u1.name).to.be.a('string').and.not.equal('');
    expect(u1.name).to.not.equal(u2.name);
  });

  it('rejects a body that is not a function and inputs that are not edges (E_INVALID_ARGUMENT)', () => {
    const e = new ttg.Edge<number, number>('mt-badargs');
    const loose = ttg.make_tt as unknown as (b: unknown, i: unknown, o: unknown, opt?: unknown) => unknown;
    expectTtgError(thrown(() => loose(42, [e], [], { name: 'mt-notfn' })), 'E_INVALID_ARGUMENT', ['mt-notfn']);
    expectTtgError(thrown(() => loose(() => {}, [{}], [], { name: 'mt-notedge' })), 'E_INVALID_ARGUMENT', ['mt-notedge']);
  });

  it('consume: an input index out of range is rejected at make_tt (E_TERMINAL_RANGE)', () => {
    const e = new ttg.Edge<number, number>('mt-consume-range');
    const err = expectTtgError(thrown(() => ttg.make_tt(() => {}, [e], [], { name: 'mt-consume-range', consume: [3] })),
      'E_TERMINAL_RANGE', ["'mt-consume-range'", 'terminal 3']);
    expect(err.terminal).to.equal(3);
  });

  it('the process keeps working after make_tt argument errors', async () => {
    await expectHealthy('mt');
  });
});
