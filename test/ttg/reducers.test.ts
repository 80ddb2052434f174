/**
 * Reducing inputs: set_input_reducer with a static count, per-key stream sizes and finalization
 * (from outside and from inside bodies through `out`), in-place reducers, empty streams, and the
 * errors of a stream that gets too many values (E_REDUCER_COUNT).
 */
import { expect } from 'chai';
import * as ttg from 'ttg';
import { expectHealthy, expectTtgError, fence, mine, rejection, thrown } from '../helpers.js';

let graphs = 0;

/**
 * feeder R (invoke(key, v) sends v to the reducing input 0 of T), feeder F (invoke(key, s) sends s to
 * the plain input 1 of T), and T itself, which records what it got.
 */
function reduceJoin(count?: number) {
  const id = `red-g${graphs++}`;
  const rin = new ttg.Edge<number, number>(`${id}-rin`);
  const fin = new ttg.Edge<number, string>(`${id}-fin`);
  const toRed = new ttg.Edge<number, number>(`${id}-tored`);
  const toPlain = new ttg.Edge<number, string>(`${id}-toplain`);
  const runs: Array<[number, number, string]> = [];
  const r = ttg.make_tt((k: number, v: number, out) => out.send(0, k, v), [rin], [toRed], { name: `${id}-R` });
  const f = ttg.make_tt((k: number, s: string, out) => out.send(0, k, s), [fin], [toPlain], { name: `${id}-F` });
  const t = ttg.make_tt((k: number, sum: number, s: string) => {
    runs.push([k, sum, s]);
  }, [toRed, toPlain], [], { name: `${id}-T` });
  t.set_input_reducer(0, (a, b) => a + b, count);
  ttg.make_graph_executable(r, f, t);
  return { id, r, f, t, runs, toRed };
}

describe('reducing inputs', () => {
  before(async () => {
    await ttg.initialize();
  });

  it('a static count: each key runs once after exactly `count` values, folded by the reducer', async () => {
    const go = new ttg.Edge<number, number>('red-static-go');
    const e = new ttg.Edge<number, number>('red-static-e');
    const runs: Array<[number, number]> = [];
    const src = ttg.make_tt((_k: number, _v: number, out) => {
      for (let i = 1; i <= 4; i++) {
        out.send(0, 0, i);       // key 0: 1 + 2 + 3 + 4
        out.send(0, 1, 10 * i);  // key 1: 10 + 20 + 30 + 40
      }
    }, [go], [e], { name: 'red-static-src' });
    const red = ttg.make_tt((k: number, sum: number) => {
      runs.push([k, sum]);
    }, [e], [], { name: 'red-static' }).set_input_reducer(0, (a, b) => a + b, 4);
    ttg.make_graph_executable(src, red);
    src.invoke(0, 0);
    let report = await fence();
    expect(runs.sort((x, y) => x[0] - y[0])).to.deep.equal([[0, 10], [1, 100]]);
    expect(mine(report, 'red-static').incomplete).to.deep.equal([]);
    // three of four values: the task waits, and is reported as missing that input
    red.invoke(2, 1);
    red.invoke(2, 1);
    red.invoke(2, 1);
    report = await fence();
    expect(runs).to.have.length(2);
    expect(mine(report, 'red-static').incomplete).to.deep.equal([{ tt: 'red-static', key: 2, missing: [0], edges: ['red-static-e'], arrived: ['3 of 4 values'] }]);
    red.invoke(2, 1);
    await fence();
    expect(runs).to.deep.include([2, 4]);
  });

  it('tt.set_argstream_size(i, key, n): before the values, after some of them, and exactly at the count received', async () => {
    const e = new ttg.Edge<string, number>('red-size-e');
    const runs: Record<string, number> = {};
    const red = ttg.make_tt((k: string, v: number) => {
      runs[k] = v;
    }, [e], [], { name: 'red-size' }).set_input_reducer(0, (a, b) => a * b);
    ttg.make_graph_executable(red);
    red.set_argstream_size(0, 'before', 3);
    red.invoke('before', 2);
    red.invoke('before', 3);
    await fence();
    expect(runs).to.not.have.property('before');
    red.invoke('before', 7);
    red.invoke('after', 5);
    red.invoke('after', 5);
    red.invoke('exact', 11);
    await fence();
    expect(runs).to.deep.equal({ before: 42 });
    red.set_argstream_size(0, 'after', 3);
    red.set_argstream_size(0, 'exact', 1); // already has its one value: completes now
    await fence();
    expect(runs).to.deep.equal({ before: 42, exact: 11 });
    red.invoke('after', 2);
    await fence();
    expect(runs).to.deep.equal({ before: 42, exact: 11, after: 50 });
  });

  it('tt.finalize_argstream(i, key) completes a stream of unknown length', async () => {
    const e = new ttg.Edge<number, number>('red-fin-e');
    const runs: Array<[number, number]> = [];
    const red = ttg.make_tt((k: number, v: number) => {
      runs.push([k, v]);
    }, [e], [], { name: 'red-fin' }).set_input_reducer(0, (a, b) => Math.max(a, b));
    ttg.make_graph_executable(red);
    for (const v of [3, 9, 4]) red.invoke(1, v);
    await fence();
    expect(runs).to.deep.equal([]);
    red.finalize_argstream(0, 1);
    await fence();
    expect(runs).to.deep.equal([[1, 9]]);
  });

  it('out.set_argstream_size / out.finalize_argstream from a body address the OUTPUT terminal of the sender', async () => {
    const go = new ttg.Edge<number, number>('red-out-go');
    const other = new ttg.Edge<number, number>('red-out-other');
    const toSized = new ttg.Edge<number, number>('red-out-sized');
    const toFinal = new ttg.Edge<number, number>('red-out-final');
    const got: string[] = [];
    const src = ttg.make_tt((k: number, n: number, out) => {
      out.send(0, k, -1); // terminal 0 is an unrelated edge
      out.set_argstream_size(1, k, n);
      for (let i = 1; i <= n; i++) {
        out.send(1, k, i);
        out.send(2, k, i);
      }
      out.finalize_argstream(2, k);
    }, [go], [other, toSized, toFinal], { name: 'red-out-src' });
    const sink = ttg.make_tt((k: number, v: number) => { got.push(`other ${k} ${v}`); }, [other], [], { name: 'red-out-sink' });
    const sized = ttg.make_tt((k: number, v: number) => { got.push(`sized ${k} ${v}`); }, [toSized], [], { name: 'red-out-sizedtt' })
      .set_input_reducer(0, (a, b) => a + b);
    const fin = ttg.make_tt((k: number, v: number) => { got.push(`final ${k} ${v}`); }, [toFinal], [], { name: 'red-out-finaltt' })
      .set_input_reducer(0, (a, b) => a + b);
    ttg.make_graph_executable(src, sink, sized, fin);
    src.invoke(1, 3);
    src.invoke(2, 5);
    const report = await fence();
    expect(got.sort()).to.deep.equal(['final 1 6', 'final 2 15', 'other 1 -1', 'other 2 -1', 'sized 1 6', 'sized 2 15']);
    expect(mine(report, 'red-out').incomplete).to.deep.equal([]);
  });

  it('a reducer may mutate the accumulator in place and return nothing', async () => {
    const e = new ttg.Edge<number, number[]>('red-inplace-e');
    let result: number[] | undefined;
    const red = ttg.make_tt((_k: number, v: number[]) => {
      result = v;
    }, [e], [], { name: 'red-inplace' }).set_input_reducer(0, (acc, v) => {
      acc.push(...v);
    }, 3);
    ttg.make_graph_executable(red);
    red.invoke(0, [1]);
    red.invoke(0, [2, 3]);
    red.invoke(0, [4]);
    await fence();
    expect(result).to.deep.equal([1, 2, 3, 4]);
  });

  it('an in-place reducer never mutates a first value that another task still holds', async () => {
    const go = new ttg.Edge<number, number>('red-cow-go');
    const toReader = new ttg.Edge<number, number[]>('red-cow-reader');
    const toLate = new ttg.Edge<number, void>('red-cow-late');
    const toRed = new ttg.Edge<number, number[]>('red-cow-red');
    const shared = [1, 2];
    let seenByReader: number[] | undefined;
    let reduced: number[] | undefined;
    const src = ttg.make_tt((k: number, _v: number, out) => {
      out.send(0, k, shared); // the reader holds it (waiting for its control input)
      out.send(2, k, shared); // first value of the reduction: the same object
      out.send(2, k, [3]);
    }, [go], [toReader, toLate, toRed], { name: 'red-cow-src' });
    const reader = ttg.make_tt((_k: number, v: number[], _c: void) => {
      seenByReader = [...v];
    }, [toReader, toLate], [], { name: 'red-cow-readertt' });
    const red = ttg.make_tt((k: number, v: number[], out) => {
      reduced = v;
      out.sendk(0, k); // now let the reader run
    }, [toRed], [toLate], { name: 'red-cow-redtt' }).set_input_reducer(0, (acc, v) => {
      acc.push(...v);
    }, 2);
    ttg.make_graph_executable(src, reader, red);
    src.invoke(0, 0);
    await fence();
    expect(reduced).to.deep.equal([1, 2, 3]);
    expect(shared).to.deep.equal([1, 2]);
    expect(seenByReader).to.deep.equal([1, 2]);
  });

  it('set_argstream_size(i, key, 0) completes at once and the body gets undefined', async () => {
    const e = new ttg.Edge<number, number>('red-zero-e');
    const runs: unknown[] = [];
    const red = ttg.make_tt((k: number, v: number) => {
      runs.push([k, v]);
    }, [e], [], { name: 'red-zero' }).set_input_reducer(0, (a, b) => a + b);
    ttg.make_graph_executable(red);
    red.set_argstream_size(0, 4, 0);
    await fence();
    expect(runs).to.deep.equal([[4, undefined]]);
  });

  it('count as a function of the key: each key completes after its own number of values; 0 means no values at all', async () => {
    const e = new ttg.Edge<number, number[]>('red-keyed-e');
    const plain = new ttg.Edge<number, string>('red-keyed-plain');
    const runs: Array<[number, string, number[] | undefined]> = [];
    const tt = ttg.make_tt((k: number, xs: number[] | undefined, tag: string) => { runs.push([k, tag, xs]); }, [e, plain], [], { name: 'red-keyed' });
    tt.set_input_reducer(0, (acc, x) => { acc.push(...x); }, (k) => k % 3);
    ttg.make_graph_executable(tt);
    for (const k of [0, 1, 2, 4, 5]) {
      tt.in(1).send(k, `k${k}`);
      for (let i = 0; i < k % 3; i++) tt.in(0).send(k, [10 * k + i]);
    }
    await fence();
    expect(runs.sort((a, b) => a[0] - b[0])).to.deep.equal([[0, 'k0', undefined], [1, 'k1', [10]], [2, 'k2', [20, 21]], [4, 'k4', [40]], [5, 'k5', [50, 51]]]);
    // key 3 expects no value: this one arrives after its stream completed
    expectTtgError(thrown(() => tt.in(0).send(3, [1])), 'E_REDUCER_COUNT', ["'red-keyed'", 'terminal 0', 'key 3']);
    tt.in(1).send(3, 'k3');
    await fence();
    expect(runs.at(-1)).to.deep.equal([3, 'k3', undefined]);
    // a TT whose only input expects no value for a key: finalizing the key runs it
    const only: Array<[number, unknown]> = [];
    const zero = ttg.make_tt((k: number, x: number[] | undefined) => { only.push([k, x]); }, [new ttg.Edge<number, number[]>('red-keyed-zero')], [], { name: 'red-keyed-zero' });
    zero.set_input_reducer(0, (acc, x) => { acc.push(...x); }, (k) => (k === 0 ? 0 : 1));
    ttg.make_graph_executable(zero);
    zero.in(0).finalize(0);
    zero.in(0).send(1, [7]);
    await fence();
    expect(only.sort((a, b) => a[0] - b[0])).to.deep.equal([[0, undefined], [1, [7]]]);
    const bad = ttg.make_tt((_k: number, _x: number) => {}, [new ttg.Edge<number, number>('red-keyed-bad')], [], { name: 'red-keyed-bad' });
    bad.set_input_reducer(0, (a, x) => a + x, () => -1);
    ttg.make_graph_executable(bad);
    expectTtgError(thrown(() => bad.in(0).send(0, 1)), 'E_INVALID_ARGUMENT', ["'red-keyed-bad'", 'count(key)', 'got -1']);
    await expectHealthy('red');
  });

  it('a reducing input and a plain input join: the task runs when the stream is complete and the plain value is there', async () => {
    const g = reduceJoin(3);
    g.f.invoke(1, 'p1');
    g.r.invoke(1, 1);
    g.r.invoke(1, 2);
    await fence();
    expect(g.runs).to.deep.equal([]);
    g.r.invoke(1, 3);
    await fence();
    expect(g.runs).to.deep.equal([[1, 6, 'p1']]);
  });

  describe('errors', () => {
    it('set_input_reducer on an input terminal out of range throws E_TERMINAL_RANGE naming TT and terminal', () => {
      const e = new ttg.Edge<number, number>('red-range-e');
      const tt = ttg.make_tt(() => {}, [e], [], { name: 'red-range' });
      const loose = tt as unknown as { set_input_reducer(i: number, f: unknown): void };
      const err = expectTtgError(thrown(() => loose.set_input_reducer(1, (a: number) => a)), 'E_TERMINAL_RANGE', ["'red-range'", 'terminal 1']);
      expect(err.terminal).to.equal(1);
      expectTtgError(thrown(() => loose.set_input_reducer(-1, (a: number) => a)), 'E_TERMINAL_RANGE', ["'red-range'"]);
    });

    it('set_argstream_size / finalize_argstream on a plain input are rejected (E_INVALID_ARGUMENT)', () => {
      const e = new ttg.Edge<number, number>('red-plain-e');
      const tt = ttg.make_tt(() => {}, [e], [], { name: 'red-plain' });
      ttg.make_graph_executable(tt);
      expectTtgError(thrown(() => tt.set_argstream_size(0, 1, 2)), 'E_INVALID_ARGUMENT', ["'red-plain'"]);
      expectTtgError(thrown(() => tt.finalize_argstream(0, 1)), 'E_INVALID_ARGUMENT', ["'red-plain'"]);
    });

    it('set_argstream_size below the number of values already received throws E_REDUCER_COUNT (TT, terminal, key)', async () => {
      const e = new ttg.Edge<string, number>('red-below-e');
      const runs: unknown[] = [];
      const red = ttg.make_tt((k: string, v: number) => { runs.push([k, v]); }, [e], [], { name: 'red-below' })
        .set_input_reducer(0, (a, b) => a + b);
      ttg.make_graph_executable(red);
      for (const v of [1, 2, 3]) red.invoke('kb', v);
      const err = expectTtgError(thrown(() => red.set_argstream_size(0, 'kb', 2)), 'E_REDUCER_COUNT', ["'red-below'", 'terminal 0', '"kb"']);
      expect(err.terminal).to.equal(0);
      expect(err.key).to.equal('kb');
      // the stream is intact: finalizing it runs the task with all three values
      red.finalize_argstream(0, 'kb');
      await fence();
      expect(runs).to.deep.equal([['kb', 6]]);
    });

    it('out.set_argstream_size below the count received, from a body, rejects the fence with E_REDUCER_COUNT', async () => {
      const go = new ttg.Edge<number, number>('red-obelow-go');
      const e = new ttg.Edge<number, number>('red-obelow-e');
      const src = ttg.make_tt((k: number, _v: number, out) => {
        out.send(0, k, 1);
        out.send(0, k, 1);
        out.set_argstream_size(0, k, 1);
      }, [go], [e], { name: 'red-obelow-src' });
      const red = ttg.make_tt(() => {}, [e], [], { name: 'red-obelow' }).set_input_reducer(0, (a: number, b: number) => a + b);
      ttg.make_graph_executable(src, red);
      src.invoke(9, 0);
      expectTtgError(await rejection(fence()), 'E_REDUCER_COUNT', ["'red-obelow'", 'terminal 0', 'key 9']);
      await expectHealthy('red');
    });

    it('a value after finalize_argstream while the task still waits for its plain input: E_REDUCER_COUNT (sync from invoke)', async () => {
      const e0 = new ttg.Edge<number, number>('red-after-r');
      const e1 = new ttg.Edge<number, string>('red-after-p');
      const pin = new ttg.Edge<number, string>('red-after-pin');
      const runs: unknown[] = [];
      const feedPlain = ttg.make_tt((k: number, s: string, out) => out.send(0, k, s), [pin], [e1], { name: 'red-after-feed' });
      const t = ttg.make_tt((k: number, sum: number, s: string) => { runs.push([k, sum, s]); }, [e0, e1], [], { name: 'red-after' })
        .set_input_reducer(0, (a, b) => a + b);
      ttg.make_graph_executable(t, feedPlain);
      t.set_argstream_size(0, 3, 2);
      t.invoke(3, 10, 'ignored'); // value 1 of 2 on input 0; the plain value completes input 1
      await fence();
      expect(runs).to.deep.equal([]);
      // a second key: stream finalized before its plain input came
      t.finalize_argstream(0, 4);
      const err = expectTtgError(thrown(() => t.invoke(4, 5, 'x')), 'E_REDUCER_COUNT', ["'red-after'", 'terminal 0', 'key 4']);
      expect(err.key).to.equal(4);
      // key 3 still needs one value; key 4 still needs its plain value
      const report = await fence();
      expect(mine(report, 'red-after').incomplete.map((x) => [x.key, x.missing]).sort()).to.deep.equal([[3, [0]], [4, [1]]]);
      t.set_argstream_size(0, 3, 1); // 3 already has one value: complete
      feedPlain.invoke(4, 'late');
      await fence();
      expect(runs).to.have.deep.members([[3, 10, 'ignored'], [4, undefined, 'late']]);
    });

    it('a value after out.finalize_argstream, sent from a body, rejects the fence with E_REDUCER_COUNT', async () => {
      const g = reduceJoin();
      const ctl = new ttg.Edge<number, number>(`${g.id}-ctl`);
      const closer = ttg.make_tt((k: number, _v: number, out) => {
        out.finalize_argstream(0, k);
      }, [ctl], [g.toRed], { name: `${g.id}-closer` });
      ttg.make_graph_executable(closer, g.t);
      g.r.invoke(5, 1);
      g.r.invoke(5, 2);
      closer.invoke(5, 0);
      await fence();
      g.r.invoke(5, 3);
      expectTtgError(await rejection(fence()), 'E_REDUCER_COUNT', [`'${g.id}-T'`, 'terminal 0', 'key 5']);
      await expectHealthy('red');
    });

    it('a static count exceeded while the task still waits for another input: E_REDUCER_COUNT', async () => {
      const g = reduceJoin(2);
      g.r.invoke(6, 1);
      g.r.invoke(6, 1);
      g.r.invoke(6, 1);
      expectTtgError(await rejection(fence()), 'E_REDUCER_COUNT', [`'${g.id}-T'`, 'terminal 0', 'key 6']);
      expect(g.runs).to.deep.equal([]);
      await expectHealthy('red');
    });

    it('a reducer that throws fails the run with E_TASK_FAILED naming the TT and terminal, keeping the cause', async () => {
      const go = new ttg.Edge<number, number>('red-throw-go');
      const e = new ttg.Edge<number, number>('red-throw-e');
      const boom = new Error('reducer boom');
      const src = ttg.make_tt((k: number, _v: number, out) => {
        out.send(0, k, 1);
        out.send(0, k, 2);
      }, [go], [e], { name: 'red-throw-src' });
      const red = ttg.make_tt(() => {}, [e], [], { name: 'red-throw' }).set_input_reducer(0, () => {
        throw boom;
      }, 2);
      ttg.make_graph_executable(src, red);
      src.invoke(0, 0);
      const err = expectTtgError(await rejection(fence()), 'E_TASK_FAILED', ["'red-throw'", 'terminal 0', 'reducer boom']);
      expect(err.cause).to.equal(boom);
      await expectHealthy('red');
    });
  });
});
