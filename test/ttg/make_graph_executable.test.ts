/**
 * make_graph_executable: validation of the wiring before a graph runs. An output terminal that
 * feeds nothing is E_UNCONNECTED; the same edge twice among a TT's inputs or outputs is
 * E_DUPLICATE_EDGE. Both name the TT (and the terminal and edge).
 */
import { expect } from 'chai';
import * as ttg from 'ttg';
import { expectHealthy, expectTtgError, fence, thrown } from '../helpers.js';

describe('make_graph_executable', () => {
  before(async () => {
    await ttg.initialize();
  });

  it('an unconnected output terminal throws E_UNCONNECTED naming TT, terminal and edge', () => {
    const go = new ttg.Edge<number, number>('mge-unc-go');
    const used = new ttg.Edge<number, number>('mge-unc-used');
    const dangling = new ttg.Edge<number, number>('mge-unc-dangling');
    const src = ttg.make_tt((_k: number, _v: number) => {}, [go], [used, dangling], { name: 'mge-unc-src' });
    const dst = ttg.make_tt((_k: number, _v: number) => {}, [used], [], { name: 'mge-unc-dst' });
    const err = expectTtgError(thrown(() => ttg.make_graph_executable(src, dst)), 'E_UNCONNECTED',
      ["'mge-unc-src'", 'terminal 1', 'mge-unc-dangling']);
    expect(err.tt).to.equal('mge-unc-src');
    expect(err.terminal).to.equal(1);
    // and the graph did not become executable
    expectTtgError(thrown(() => src.invoke(1, 0)), 'E_NOT_EXECUTABLE', ["'mge-unc-src'"]);
  });

  it('the same edge twice among the inputs of a TT throws E_DUPLICATE_EDGE naming TT and edge', () => {
    const go = new ttg.Edge<number, number>('mge-dupin-go');
    const e = new ttg.Edge<number, number>('mge-dupin-e');
    const src = ttg.make_tt((k: number, v: number, out) => out.send(0, k, v), [go], [e], { name: 'mge-dupin-src' });
    const dst = ttg.make_tt((_k: number, _a: number, _b: number) => {}, [e, e], [], { name: 'mge-dupin-dst' });
    expectTtgError(thrown(() => ttg.make_graph_executable(src, dst)), 'E_DUPLICATE_EDGE', ["'mge-dupin-dst'", 'mge-dupin-e']);
  });

  it('the same edge twice inside a fuse() of one input also throws E_DUPLICATE_EDGE', () => {
    const e = new ttg.Edge<number, number>('mge-dupfuse-e');
    const other = new ttg.Edge<number, number>('mge-dupfuse-other');
    const dst = ttg.make_tt((_k: number, _a: number, _b: number) => {}, [ttg.fuse(e, other), e], [], { name: 'mge-dupfuse' });
    expectTtgError(thrown(() => ttg.make_graph_executable(dst)), 'E_DUPLICATE_EDGE', ["'mge-dupfuse'", 'mge-dupfuse-e']);
  });

  it('the same edge twice among the outputs of a TT throws E_DUPLICATE_EDGE naming TT and edge', () => {
    const go = new ttg.Edge<number, number>('mge-dupout-go');
    const e = new ttg.Edge<number, number>('mge-dupout-e');
    const src = ttg.make_tt((_k: number, _v: number) => {}, [go], [e, e], { name: 'mge-dupout-src' });
    const dst = ttg.make_tt((_k: number, _v: number) => {}, [e], [], { name: 'mge-dupout-dst' });
    expectTtgError(thrown(() => ttg.make_graph_executable(src, dst)), 'E_DUPLICATE_EDGE', ["'mge-dupout-src'", 'mge-dupout-e']);
  });

  it('validates the whole connected graph, even TTs not passed explicitly', () => {
    const go = new ttg.Edge<number, number>('mge-reach-go');
    const mid = new ttg.Edge<number, number>('mge-reach-mid');
    const dangling = new ttg.Edge<number, number>('mge-reach-dangling');
    const src = ttg.make_tt((_k: number, _v: number) => {}, [go], [mid], { name: 'mge-reach-src' });
    ttg.make_tt((_k: number, _v: number) => {}, [mid], [dangling], { name: 'mge-reach-hidden' });
    expectTtgError(thrown(() => ttg.make_graph_executable(src)), 'E_UNCONNECTED', ["'mge-reach-hidden'", 'terminal 0']);
  });

  it('a valid graph with a cycle becomes executable and runs; the process keeps working after wiring errors', async () => {
    const start = new ttg.Edge<number, number>('mge-ok-start');
    const loop = new ttg.Edge<number, number>('mge-ok-loop');
    let last = -1;
    const tt = ttg.make_tt((k: number, v: number, out) => {
      if (k < 10) out.send(0, k + 1, v + k);
      else last = v;
    }, [ttg.fuse(start, loop)], [loop], { name: 'mge-ok' });
    ttg.make_graph_executable(tt);
    tt.invoke(0, 0);
    await fence();
    expect(last).to.equal(45);
    await expectHealthy('mge');
  });
});
