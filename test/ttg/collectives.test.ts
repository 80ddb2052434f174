/**
 * World collectives in a world of one rank (their MPI side is in test/mpi/collectives.test.ts),
 * feeding an input from the main program (`tt.in(i)`), and the keyed all-reduce in one process.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';

import { expectTtgError, fence, mine, rejection, thrown } from '../helpers.js';

describe('world collectives on one rank', () => {
  let world: ttg.World;
  before(async () => {
    world = await ttg.initialize();
  });

  it('a collective, fence or split called from a task of the world is E_INVALID_ARGUMENT naming the task, at once (sync, async after awaits, generator)', async () => {
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['World.allreduce()', () => world.allreduce(1)],
      ['World.barrier()', () => world.barrier()],
      ['World.broadcast()', () => world.broadcast(1)],
      ['World.split()', () => world.split(0)],
      ['fence()', () => world.fence()],
    ];
    const t0 = performance.now();
    for (const [what, call] of calls) {
      const e = new ttg.Edge<number, number>(`col-in-${what}`);
      const bodies = {
        PLAIN: (_k: number, _v: number) => { void call().catch(() => {}); throw new Error('unreached'); },
        ASYNC: async (_k: number, _v: number) => {
          await new Promise((r) => setTimeout(r, 1));
          await Promise.resolve();
          // named in the body's text, as a program writes it (the task context then follows the body)
          if (what === 'World.allreduce()') await world.allreduce(1);
          else if (what === 'World.barrier()') await world.barrier();
          else if (what === 'World.broadcast()') await world.broadcast(1);
          else if (what === 'World.split()') await world.split(0);
          else await world.fence();
        },
        GEN: function* (_k: number, _v: number) { yield call(); },
      };
      for (const [kind, body] of Object.entries(bodies)) {
        const tt = ttg.make_tt(body as (k: number, v: number) => void, [e], [], { name: `${kind}-${what}` });
        ttg.make_graph_executable(tt);
        tt.invoke(7, 0);
        // a plain body's rejected fence() promise is the one case that does not throw: the fence names it by its result
        if (kind === 'PLAIN' && what === 'fence()') {
          expectTtgError(await rejection(ttg.fence({ quiet: true })), 'E_TASK_FAILED', ['unreached']);
          continue;
        }
        expectTtgError(await rejection(ttg.fence({ quiet: true })), 'E_INVALID_ARGUMENT', [what, 'task body of its own world', `TT '${kind}-${what}'`, 'key 7']);
      }
    }
    expect(performance.now() - t0).to.be.below(10_000);
    expect(await world.allreduce(3)).to.equal(3);
  });

  it('barrier resolves; allreduce gives a new value of the same type; broadcast gives the root its own value', async () => {
    await world.barrier();
    expect(await world.allreduce(2.5)).to.equal(2.5);
    const a = Int32Array.of(1, -2, 3);
    const r = await world.allreduce(a, 'max');
    expect(r).to.be.instanceOf(Int32Array).and.not.equal(a);
    expect([...r]).to.deep.equal([1, -2, 3]);
    const x = { m: new Map([[1, Float64Array.of(1, 2)]]) };
    expect(await world.broadcast(x, 0)).to.equal(x);
  });

  it('bad arguments are E_INVALID_ARGUMENT; a value that cannot travel is E_SERIALIZE', async () => {
    expectTtgError(await rejection(world.allreduce('3' as never)), 'E_INVALID_ARGUMENT', ['needs a number or a typed array', 'string']);
    expectTtgError(await rejection(world.allreduce(new BigInt64Array(2) as never)), 'E_INVALID_ARGUMENT', ['BigInt64Array']);
    expectTtgError(await rejection(world.allreduce(1, 'avg' as never)), 'E_INVALID_ARGUMENT', ["'sum', 'min', 'max' or 'prod'", 'avg']);
    expectTtgError(await rejection(world.broadcast(1, 1)), 'E_INVALID_ARGUMENT', ['[0, 1)', 'got 1']);
    expectTtgError(await rejection(world.broadcast({ f: () => 1 }, 0)), 'E_SERIALIZE', ['broadcast by rank 0']);
    expect(await world.allreduce(Float32Array.of(1.5), 'prod')).to.deep.equal(Float32Array.of(1.5)); // still usable
  });

  it('collectives and fences called without awaiting run in program order', async () => {
    const order: string[] = [];
    const e = new ttg.Edge<number, number>('coll-order');
    const tt = ttg.make_tt((_k: number, _v: number) => { order.push('task'); }, [e], [], { name: 'coll-order' });
    ttg.make_graph_executable(tt);
    tt.invoke(1, 1);
    const f = world.fence().then(() => order.push('fence'));
    const s = world.allreduce(3).then((v) => order.push(`sum ${v}`));
    const b = world.barrier().then(() => order.push('barrier'));
    await Promise.all([f, s, b]);
    expect(order).to.deep.equal(['task', 'fence', 'sum 3', 'barrier']);
  });
});

describe('tt.in(i): feeding an input from the main program', () => {
  before(async () => {
    await ttg.initialize();
  });

  it('send, sendk, sendv, broadcast, and set_size / finalize of a reducing input', async () => {
    const a = new ttg.Edge<number, number>('in-a');
    const c = new ttg.Edge<number, void>('in-c');
    const got: string[] = [];
    const two = ttg.make_tt((k: number, x: number) => { got.push(`two ${k}:${x}`); }, [ttg.fuse(a)], [], { name: 'in-two' });
    const ctl = ttg.make_tt((k: number) => { got.push(`ctl ${k}`); }, [c], [], { name: 'in-ctl' });
    const v = new ttg.Edge<void, string>('in-v');
    const keyless = ttg.make_tt((_k: void, s: string) => { got.push(`keyless ${s}`); }, [v], [], { name: 'in-keyless' });
    const r = new ttg.Edge<number, number>('in-r');
    const sum = ttg.make_tt((k: number, s: number) => { got.push(`sum ${k}:${s}`); }, [r], [], { name: 'in-sum' });
    sum.set_input_reducer(0, (acc, x) => acc + x);
    ttg.make_graph_executable(two, ctl, keyless, sum);
    two.in(0).send(1, 10);
    two.in(0).broadcast([2, 3], 20);
    ctl.in(0).sendk(4);
    keyless.in(0).sendv('hi');
    sum.in(0).set_size(5, 3);
    for (const x of [1, 2, 3]) sum.in(0).send(5, x);
    sum.in(0).send(6, 7);
    sum.in(0).finalize(6);
    await fence();
    expect(got.sort()).to.deep.equal(['ctl 4', 'keyless hi', 'sum 5:6', 'sum 6:7', 'two 1:10', 'two 2:20', 'two 3:20']);
  });

  it('names the TT: an input out of range, a graph not yet executable', () => {
    const e = new ttg.Edge<number, number>('in-bad');
    const tt = ttg.make_tt((_k: number, _x: number) => {}, [e], [], { name: 'in-bad' });
    expectTtgError(thrown(() => tt.in(1 as 0)), 'E_TERMINAL_RANGE', ['in-bad']);
    expectTtgError(thrown(() => tt.in(0).send(1, 1)), 'E_NOT_EXECUTABLE', ['in-bad']);
  });
});

describe('make_allreduce in one process', () => {
  before(async () => {
    await ttg.initialize();
  });

  it('folds partials in the order of their numbers, whatever order they arrive in, and delivers to every listed key', async () => {
    const parts = new ttg.Edge<[number, number], string>('ar-parts');
    const results = new ttg.Edge<number, string>('ar-results');
    const seen: string[] = [];
    const consumer = ttg.make_tt((k: number, s: string) => { seen.push(`${k}=${s}`); }, [results], [], { name: 'ar-consumer' });
    const ar = ttg.make_allreduce(parts, results, {
      op: (a, b) => `${a}${b}`, contributions: (k: number) => k, deliver: (k: number) => [10 * k, 10 * k + 1], name: 'ar-str',
    });
    ttg.make_graph_executable(ar, consumer);
    for (const k of [1, 4]) for (let i = k - 1; i >= 0; i--) ar.in(0).send([k, i], String.fromCharCode(97 + i));
    await fence();
    expect(seen.sort()).to.deep.equal(['10=a', '11=a', '40=abcd', '41=abcd']);
  });

  it('sums typed arrays element-wise (into a new array); min and max of numbers', async () => {
    const parts = new ttg.Edge<[string, number], Float64Array>('ar-vec');
    const out = new ttg.Edge<string, Float64Array>('ar-vec-out');
    const got = new Map<string, Float64Array>();
    const inputs = [Float64Array.of(1, 2), Float64Array.of(10, 20), Float64Array.of(100, 200)];
    const consumer = ttg.make_tt((k: string, v: Float64Array) => { got.set(k, v); }, [out], [], { name: 'ar-vec-consumer' });
    const ar = ttg.make_allreduce(parts, out, { op: 'sum', contributions: () => 3, deliver: (k: string) => [k], name: 'ar-vec' });
    const m = new ttg.Edge<[number, number], number>('ar-min');
    const mo = new ttg.Edge<number, number>('ar-min-out');
    const mins: number[] = [];
    const mc = ttg.make_tt((_k: number, v: number) => { mins.push(v); }, [mo], [], { name: 'ar-min-consumer' });
    const am = ttg.make_allreduce(m, mo, { op: 'min', contributions: () => 3, deliver: () => [0], name: 'ar-min' });
    ttg.make_graph_executable(ar, consumer, am, mc);
    inputs.forEach((v, i) => ar.in(0).send(['x', i], v));
    [5, -2, 7].forEach((v, i) => am.in(0).send([0, i], v));
    await fence();
    expect([...got.get('x')!]).to.deep.equal([111, 222]);
    expect([...inputs[0]!]).to.deep.equal([1, 2]);
    expect(mins).to.deep.equal([-2]);
  });

  it('a missing partial shows in the fence report; bad options and bad values are errors naming the all-reduce', async () => {
    const parts = new ttg.Edge<[number, number], number>('ar-miss');
    const out = new ttg.Edge<number, number>('ar-miss-out');
    const consumer = ttg.make_tt((_k: number, _v: number) => {}, [out], [], { name: 'ar-miss-consumer' });
    const ar = ttg.make_allreduce(parts, out, { op: 'sum', contributions: () => 5, deliver: (k: number) => [k], name: 'ar-miss' });
    ttg.make_graph_executable(ar, consumer);
    ar.in(0).send([7, 3], 1);
    ar.in(0).send([7, 0], 1);
    const report = await ttg.fence({ quiet: true });
    expect(mine(report, 'ar-miss').incomplete.map((t) => [t.tt, t.key, t.arrived])).to.deep.equal([
      ['ar-miss.local', [7, 0], ['2 of 5 values: partials 0, 3 of 5 arrived; missing 1, 2, 4']],
    ]);
    expectTtgError(thrown(() => ttg.make_allreduce(parts, out, { op: 'avg' as never, contributions: () => 1, deliver: () => [] })), 'E_INVALID_ARGUMENT', ['avg']);
    const bad = new ttg.Edge<[number, number], number>('ar-bad');
    const badOut = new ttg.Edge<number, number>('ar-bad-out');
    const c2 = ttg.make_tt((_k: number, _v: number) => {}, [badOut], [], { name: 'ar-bad-consumer' });
    const ab = ttg.make_allreduce(bad, badOut, { op: 'sum', contributions: () => 2, deliver: () => [0], name: 'ar-bad' });
    ttg.make_graph_executable(ab, c2);
    ab.in(0).send([0, 0], 1);
    ab.in(0).send([0, 1], Float64Array.of(1) as never);
    expectTtgError(await rejection(fence()), 'E_INVALID_ARGUMENT', ['ar-bad.local', "op 'sum' needs numbers or typed arrays", 'number and Float64Array(1)']);
  });

  it('a partial sent twice while its key is in progress, or numbered outside 0..n-1, is an error naming the all-reduce, never a wrong sum', async () => {
    const parts = new ttg.Edge<[number, number], number>('ar-dup');
    const out = new ttg.Edge<number, number>('ar-dup-out');
    const got: Array<[number, number]> = [];
    const consumer = ttg.make_tt((k: number, v: number) => { got.push([k, v]); }, [out], [], { name: 'ar-dup-consumer' });
    const ar = ttg.make_allreduce(parts, out, { op: 'sum', contributions: () => 2, deliver: (k: number) => [k], name: 'ar-dup' });
    const one = new ttg.Edge<[number, number], number>('ar-dup1');
    const oneOut = new ttg.Edge<number, number>('ar-dup1-out');
    const c1 = ttg.make_tt((k: number, v: number) => { got.push([k, v]); }, [oneOut], [], { name: 'ar-dup1-consumer' });
    const single = ttg.make_allreduce(one, oneOut, { op: 'sum', contributions: () => 1, deliver: (k: number) => [k], name: 'ar-dup1' });
    ttg.make_graph_executable(ar, consumer, single, c1);
    ar.in(0).send([1, 0], 1);
    ar.in(0).send([1, 0], 5);
    ar.in(0).send([1, 1], 2);
    expectTtgError(await rejection(ttg.fence({ quiet: true })), 'E_INVALID_ARGUMENT', ["all-reduce 'ar-dup'", 'partial 0 twice', "TT 'ar-dup.local'", 'key [1,0]']);
    ar.in(0).send([2, 2], 3);
    expectTtgError(await rejection(ttg.fence({ quiet: true })), 'E_INVALID_ARGUMENT', ["all-reduce 'ar-dup'", 'partial 2 of 2', 'key [2,2]']);
    expect(got).to.deep.equal([]);
    // once a key's result is out, a partial for it starts a new round, as a value for a key whose
    // task has run starts a new task anywhere in ttg
    single.in(0).send([3, 0], 1);
    await ttg.fence();
    single.in(0).send([3, 0], 4);
    await ttg.fence();
    expect(got).to.deep.equal([[3, 1], [3, 4]]);
  });
});
