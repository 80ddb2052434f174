/**
 * The scheduler: priority order from set_priomap (higher first, FIFO among equals), tasks made
 * ready before execute(), bodies never recursing into each other, and long chains on a flat stack.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';
import { defaultRuntime } from '../../src/ttg/runtime/runtime.js';
import { expectTtgError, fence, rejection, stackDepth } from '../helpers.js';

/** An executing TT named `name` whose body records its keys in `ran`. */
function recorder(name: string) {
  const e = new ttg.Edge<number, number>(name);
  const ran: number[] = [];
  const tt = ttg.make_tt((k: number) => { ran.push(k); }, [e], [], { name });
  ttg.make_graph_executable(tt);
  ttg.execute();
  return { tt, ran };
}

/** The order the scheduling contract prescribes: stable sort by descending priority. */
function expectedOrder(keys: readonly number[], prio: (k: number) => number): number[] {
  return keys.map((k, i) => ({ k, i, p: prio(k) })).sort((x, y) => y.p - x.p || x.i - y.i).map((x) => x.k);
}

describe('scheduling', () => {
  before(async () => {
    await ttg.initialize();
  });

  it('tasks made ready before execute() start in priomap order (higher first, FIFO among equal, negatives last)', async () => {
    const e = new ttg.Edge<number, number>('sch-prio-e');
    const prios = [0, 5, -1, 5, 2, 0, -1, 2, 5, 0, 7, -3, 0.5, 2];
    const order: number[] = [];
    const tt = ttg.make_tt((k: number) => {
      order.push(k);
    }, [e], [], { name: 'sch-prio' }).set_priomap((k) => prios[k]!);
    ttg.make_graph_executable(tt);
    const keys = prios.map((_, i) => i);
    for (const k of keys) tt.invoke(k, 0);
    ttg.execute();
    await fence();
    expect(order).to.deep.equal(expectedOrder(keys, (k) => prios[k]!));
  });

  it('tasks sent from a body run in priority order after it, across TTs with and without a priomap', async () => {
    const go = new ttg.Edge<number, number>('sch-mix-go');
    const toP = new ttg.Edge<number, number>('sch-mix-p');
    const toZ = new ttg.Edge<number, number>('sch-mix-z');
    const order: string[] = [];
    const src = ttg.make_tt((_k: number, _v: number, out) => {
      for (let k = 0; k < 6; k++) {
        out.send(1, k, 0); // priority 0 (no priomap)
        out.send(0, k, 0); // priority k % 3 - 1: -1, 0 or 1
      }
      order.push('src done');
    }, [go], [toP, toZ], { name: 'sch-mix-src' });
    const p = ttg.make_tt((k: number) => {
      order.push(`p${k}`);
    }, [toP], [], { name: 'sch-mix-p' }).set_priomap((k) => (k % 3) - 1);
    const z = ttg.make_tt((k: number) => {
      order.push(`z${k}`);
    }, [toZ], [], { name: 'sch-mix-z' });
    ttg.make_graph_executable(src, p, z);
    src.invoke(0, 0);
    await fence();
    // expected: the queue order of the 12 sends, stable-sorted by priority
    const sent: Array<{ name: string; prio: number }> = [];
    for (let k = 0; k < 6; k++) {
      sent.push({ name: `z${k}`, prio: 0 });
      sent.push({ name: `p${k}`, prio: (k % 3) - 1 });
    }
    const expected = sent.map((s, i) => ({ ...s, i })).sort((a, b) => b.prio - a.prio || a.i - b.i).map((s) => s.name);
    expect(order).to.deep.equal(['src done', ...expected]);
  });

  it('keeps FIFO order for thousands of equal-priority tasks (priority 0 and a non-zero priority)', async () => {
    const e0 = new ttg.Edge<number, number>('sch-fifo0');
    const e1 = new ttg.Edge<number, number>('sch-fifo3');
    const order0: number[] = [];
    const order1: number[] = [];
    const t0 = ttg.make_tt((k: number) => { order0.push(k); }, [e0], [], { name: 'sch-fifo0' });
    const t1 = ttg.make_tt((k: number) => { order1.push(k); }, [e1], [], { name: 'sch-fifo3' }).set_priomap(() => 3);
    ttg.make_graph_executable(t0, t1);
    const N = 5000;
    // keys in a scrambled order, so that FIFO is not confused with key order
    const keys = Array.from({ length: N }, (_, i) => (i * 7919) % N);
    for (const k of keys) {
      t0.invoke(k, 0);
      t1.invoke(k, 0);
    }
    ttg.execute();
    await fence();
    expect(order0).to.deep.equal(keys);
    expect(order1).to.deep.equal(keys);
  });

  it('a priomap that returns a non-number fails with E_INVALID_ARGUMENT naming the TT', async () => {
    const e = new ttg.Edge<number, number>('sch-badprio');
    const tt = ttg.make_tt(() => {}, [e], [], { name: 'sch-badprio' }).set_priomap((() => 'high') as unknown as (k: unknown) => number);
    ttg.make_graph_executable(tt);
    let err: unknown;
    try {
      tt.invoke(1, 0);
    } catch (e2) {
      err = e2;
    }
    // either at invoke or through the fence, but never silently
    if (err === undefined) err = await rejection(fence());
    expectTtgError(err, 'E_INVALID_ARGUMENT', ["'sch-badprio'"]);
  });

  it('plain bodies never recurse: a send queues the receiver, which runs after the sender returns', async () => {
    const go = new ttg.Edge<number, number>('sch-norec-go');
    const e = new ttg.Edge<number, number>('sch-norec-e');
    const log: string[] = [];
    let depthA = 0;
    let depthB = 0;
    const a = ttg.make_tt((k: number, _v: number, out) => {
      depthA = stackDepth();
      log.push('a start');
      out.send(0, k, 1);
      log.push('a after send');
    }, [go], [e], { name: 'sch-norec-a' });
    const b = ttg.make_tt(() => {
      depthB = stackDepth();
      log.push('b');
    }, [e], [], { name: 'sch-norec-b' });
    ttg.make_graph_executable(a, b);
    a.invoke(0, 0);
    await fence();
    expect(log).to.deep.equal(['a start', 'a after send', 'b']);
    expect(depthB).to.equal(depthA);
  });

  it('a chain of 200,000 plain tasks completes without stack overflow', async () => {
    const N = 200_000;
    const e = new ttg.Edge<number, number>('sch-chain');
    let last = -1;
    let count = 0;
    const step = ttg.make_tt((k: number, v: number, out) => {
      count++;
      if (k < N - 1) out.send(0, k + 1, v + 1);
      else last = v;
    }, [e], [e], { name: 'sch-chain' });
    ttg.make_graph_executable(step);
    step.invoke(0, 0);
    await fence();
    expect(count).to.equal(N);
    expect(last).to.equal(N - 1);
  });

  it('a chain of 20,000 generator tasks completes without stack overflow', async () => {
    const N = 20_000;
    const e = new ttg.Edge<number, number>('sch-genchain');
    let last = -1;
    const step = ttg.make_tt(function* (k: number, v: number, out) {
      const w = (yield v + 1) as number;
      if (k < N - 1) out.send(0, k + 1, w);
      else last = w;
    }, [e], [e], { name: 'sch-genchain' });
    ttg.make_graph_executable(step);
    step.invoke(0, 0);
    await fence();
    expect(last).to.equal(N);
  });

  it('execute() is idempotent and invokes after it start without another call', async () => {
    const { tt, ran } = recorder('sch-idem');
    ttg.execute();
    tt.invoke(1, 0);
    await new Promise((r) => setImmediate(r));
    expect(ran).to.deep.equal([1]);
    tt.invoke(2, 0);
    await fence();
    expect(ran).to.deep.equal([1, 2]);
  });

  it('a batch a transport delivers runs the tasks it made ready before returning; one that throws still gets them run', async () => {
    const { tt, ran } = recorder('sch-deliver');
    defaultRuntime().scheduler.deliver(() => {
      tt.invoke(1, 0);
      tt.invoke(2, 0);
      expect(ran).to.deep.equal([]); // not inside the batch
    });
    expect(ran).to.deep.equal([1, 2]); // no microtask needed
    expect(() => defaultRuntime().scheduler.deliver(() => {
      tt.invoke(3, 0);
      throw new Error('bad batch');
    })).to.throw('bad batch');
    expect(ran).to.deep.equal([1, 2]);
    await fence();
    expect(ran).to.deep.equal([1, 2, 3]);
  });
});
