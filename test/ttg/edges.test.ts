/**
 * Edges and the `out` sends: fused edges and cycles (without stack growth), broadcast to one and to
 * several terminals, sendk on control edges, sendv to keyless TTs, one edge feeding several TTs.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';
import { expectTtgError, fence, mine, stackDepth, thrown } from '../helpers.js';

describe('edges and sends', () => {
  before(async () => {
    await ttg.initialize();
  });

  it('a cycle through a fused edge runs 100,000 iterations of a plain body with a flat stack', async () => {
    const N = 100_000;
    const start = new ttg.Edge<number, number>('ed-cyc-start');
    const loop = new ttg.Edge<number, number>('ed-cyc-loop');
    const done = new ttg.Edge<number, number>('ed-cyc-done');
    const depths: number[] = [];
    let iterations = 0;
    const result: Array<[number, number]> = [];
    const step = ttg.make_tt((k: number, v: number, out) => {
      iterations++;
      if (k % 10_000 === 1) depths.push(stackDepth());
      if (k < N) out.send(0, k + 1, v + 2);
      else out.send(1, k, v);
    }, [ttg.fuse(start, loop)], [loop, done], { name: 'ed-cyc-step' });
    const end = ttg.make_tt((k: number, v: number) => {
      result.push([k, v]);
    }, [done], [], { name: 'ed-cyc-end' });
    ttg.make_graph_executable(step, end);
    step.invoke(1, 0);
    ttg.execute();
    await fence();
    expect(iterations).to.equal(N);
    expect(result).to.deep.equal([[N, 2 * (N - 1)]]);
    expect(depths).to.have.length(10);
    // A body that ran its successor recursively would be thousands of frames deeper at the end.
    expect(Math.max(...depths) - Math.min(...depths)).to.be.below(20);
  });

  it('a cycle through a fused edge runs 10,000 iterations of an async body with a flat stack', async () => {
    const N = 10_000;
    const start = new ttg.Edge<number, number>('ed-acyc-start');
    const loop = new ttg.Edge<number, number>('ed-acyc-loop');
    const done = new ttg.Edge<number, number>('ed-acyc-done');
    const before: number[] = [];
    const after: number[] = [];
    let iterations = 0;
    let final = -1;
    const step = ttg.make_tt(async (k: number, v: number, out) => {
      iterations++;
      if (k % 1000 === 1) before.push(stackDepth());
      await null;
      if (k % 1000 === 1) after.push(stackDepth());
      if (k < N) out.send(0, k + 1, v + 1);
      else out.send(1, k, v);
    }, [ttg.fuse(start, loop)], [loop, done], { name: 'ed-acyc-step' });
    const end = ttg.make_tt((_k: number, v: number) => {
      final = v;
    }, [done], [], { name: 'ed-acyc-end' });
    ttg.make_graph_executable(step, end);
    step.invoke(1, 0);
    await fence();
    expect(iterations).to.equal(N);
    expect(final).to.equal(N - 1);
    expect(before).to.have.length(10);
    expect(Math.max(...before) - Math.min(...before)).to.be.below(20);
    expect(Math.max(...after) - Math.min(...after)).to.be.below(20);
  });

  it('fuse: values sent on any of the fused edges arrive at the same input', async () => {
    const a = new ttg.Edge<number, string>('ed-fuse-a');
    const b = new ttg.Edge<number, string>('ed-fuse-b');
    const c = new ttg.Edge<number, string>('ed-fuse-c');
    const go = new ttg.Edge<number, number>('ed-fuse-go');
    const got: string[] = [];
    const src = ttg.make_tt((k: number, _v: number, out) => {
      out.send(0, k, 'via a');
      out.send(1, k + 10, 'via b');
      out.send(2, k + 20, 'via c');
    }, [go], [a, b, c], { name: 'ed-fuse-src' });
    const dst = ttg.make_tt((k: number, v: string) => {
      got.push(`${k} ${v}`);
    }, [ttg.fuse(a, ttg.fuse(b, c))], [], { name: 'ed-fuse-dst' });
    ttg.make_graph_executable(src, dst);
    src.invoke(1, 0);
    await fence();
    expect(got.sort()).to.deep.equal(['1 via a', '11 via b', '21 via c']);
  });

  it('broadcast(i, keys, value) delivers the same value to every key of terminal i', async () => {
    const go = new ttg.Edge<number, number>('ed-bc1-go');
    const e = new ttg.Edge<[number, number], { payload: string }>('ed-bc1-e');
    const payload = { payload: 'shared' };
    const got: Array<[string, unknown]> = [];
    const src = ttg.make_tt((k: number, _v: number, out) => {
      out.broadcast(0, [[k, 0], [k, 1], [k, 2]], payload);
    }, [go], [e], { name: 'ed-bc1-src' });
    const dst = ttg.make_tt((k: [number, number], v: { payload: string }) => {
      got.push([k.join(','), v]);
    }, [e], [], { name: 'ed-bc1-dst' });
    ttg.make_graph_executable(src, dst);
    src.invoke(5, 0);
    await fence();
    expect(got.map((g) => g[0]).sort()).to.deep.equal(['5,0', '5,1', '5,2']);
    for (const [, v] of got) expect(v).to.equal(payload); // passed by reference
  });

  it('broadcast([0, 1], [keys0, keys1], value) reaches keys on two terminals (generators as key lists too)', async () => {
    const go = new ttg.Edge<number, number>('ed-bc2-go');
    const toA = new ttg.Edge<number, number[]>('ed-bc2-a');
    const toB = new ttg.Edge<string, number[]>('ed-bc2-b');
    const got: string[] = [];
    const value = [1, 2, 3];
    function* strKeys(n: number) {
      for (let i = 0; i < n; i++) yield `s${i}`;
    }
    const src = ttg.make_tt((_k: number, _v: number, out) => {
      out.broadcast([0, 1], [[0, 1, 2], strKeys(2)], value);
    }, [go], [toA, toB], { name: 'ed-bc2-src' });
    const ta = ttg.make_tt((k: number, v: number[]) => {
      got.push(`A${k}:${v === value ? 'same' : 'other'}`);
    }, [toA], [], { name: 'ed-bc2-A' });
    const tb = ttg.make_tt((k: string, v: number[]) => {
      got.push(`B${k}:${v === value ? 'same' : 'other'}`);
    }, [toB], [], { name: 'ed-bc2-B' });
    ttg.make_graph_executable(src, ta, tb);
    src.invoke(0, 0);
    await fence();
    expect(got.sort()).to.deep.equal(['A0:same', 'A1:same', 'A2:same', 'Bs0:same', 'Bs1:same']);
  });

  it('broadcast with mismatched terminal and key lists fails the task with E_INVALID_ARGUMENT', async () => {
    const go = new ttg.Edge<number, number>('ed-bcbad-go');
    const toA = new ttg.Edge<number, number>('ed-bcbad-a');
    const src = ttg.make_tt((_k: number, _v: number, out) => {
      const loose = out as unknown as { broadcast(i: unknown, k: unknown, v: unknown): void };
      loose.broadcast([0], [[1], [2]], 3);
    }, [go], [toA], { name: 'ed-bcbad-src' });
    const dst = ttg.make_tt(() => {}, [toA], [], { name: 'ed-bcbad-dst' });
    ttg.make_graph_executable(src, dst);
    src.invoke(0, 0);
    let err: unknown;
    try {
      await fence();
    } catch (e) {
      err = e;
    }
    expectTtgError(err, 'E_INVALID_ARGUMENT', ["'ed-bcbad-src'"]);
  });

  it('sendk on a control edge triggers the task with value undefined', async () => {
    const go = new ttg.Edge<number, number>('ed-ctl-go');
    const ctl = new ttg.Edge<number, void>('ed-ctl');
    const data = new ttg.Edge<number, string>('ed-ctl-data');
    const runs: unknown[] = [];
    const src = ttg.make_tt((k: number, _v: number, out) => {
      out.sendk(0, k);
      out.send(1, k, `data${k}`);
    }, [go], [ctl, data], { name: 'ed-ctl-src' });
    const dst = ttg.make_tt((k: number, c: void, d: string) => {
      runs.push([k, c, d]);
    }, [ctl, data], [], { name: 'ed-ctl-dst' });
    ttg.make_graph_executable(src, dst);
    src.invoke(1, 0);
    src.invoke(2, 0);
    const report = await fence();
    expect(runs).to.have.deep.members([[1, undefined, 'data1'], [2, undefined, 'data2']]);
    expect(runs).to.have.length(2);
    expect(mine(report, 'ed-ctl').incomplete).to.deep.equal([]);
  });

  it('sendv feeds a keyless TT: both inputs join on the key undefined', async () => {
    const go = new ttg.Edge<number, number>('ed-kl-go');
    const x = new ttg.Edge<void, number>('ed-kl-x');
    const y = new ttg.Edge<void, string>('ed-kl-y');
    const runs: unknown[][] = [];
    const src = ttg.make_tt((_k: number, v: number, out) => {
      out.sendv(0, v);
      out.sendv(1, `y${v}`);
    }, [go], [x, y], { name: 'ed-kl-src' });
    const keyless = ttg.make_tt((k: void, a: number, b: string) => {
      runs.push([k, a, b]);
    }, [x, y], [], { name: 'ed-kl-sink' });
    ttg.make_graph_executable(src, keyless);
    src.invoke(0, 42);
    const report = await fence();
    expect(runs).to.deep.equal([[undefined, 42, 'y42']]);
    expect(mine(report, 'ed-kl').incomplete).to.deep.equal([]);
    // a keyless TT can also be invoked directly with the key undefined
    keyless.invoke(undefined, 1, 'direct');
    await fence();
    expect(runs).to.deep.equal([[undefined, 42, 'y42'], [undefined, 1, 'direct']]);
  });

  it('one output edge feeding the inputs of two TTs delivers every send to both', async () => {
    const go = new ttg.Edge<number, number>('ed-fan-go');
    const e = new ttg.Edge<number, number>('ed-fan-e');
    const got: string[] = [];
    const src = ttg.make_tt((k: number, v: number, out) => out.send(0, k, v * 3), [go], [e], { name: 'ed-fan-src' });
    const a = ttg.make_tt((k: number, v: number) => { got.push(`a${k}=${v}`); }, [e], [], { name: 'ed-fan-a' });
    const b = ttg.make_tt((k: number, v: number) => { got.push(`b${k}=${v}`); }, [e], [], { name: 'ed-fan-b' });
    ttg.make_graph_executable(src, a, b);
    src.invoke(1, 1);
    src.invoke(2, 2);
    await fence();
    expect(got.sort()).to.deep.equal(['a1=3', 'a2=6', 'b1=3', 'b2=6']);
  });

  it('Edge names are kept; fuse() of nothing and non-edges are rejected', () => {
    expect(new ttg.Edge<number, number>('ed-named').name).to.equal('ed-named');
    expectTtgError(thrown(() => ttg.fuse()), 'E_INVALID_ARGUMENT');
    const loose = ttg.fuse as unknown as (...e: unknown[]) => unknown;
    expectTtgError(thrown(() => loose({ name: 'fake' })), 'E_INVALID_ARGUMENT');
  });
});
