/**
 * Consumable inputs (`{ consume: [i] }`) and copy-on-write: a consumer gets a private copy only while
 * other tasks still hold the same object; sending a consumed value onward moves it (no copy).
 * Copies are counted through a copier registered with `ttg.register_copier`.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';
import { fence, tick } from '../helpers.js';

/** A datum whose copies are counted by the registered copier. */
class Tile {
  constructor(readonly data: number[], readonly label: string) {}
}
let copies = 0;

/** A class with no registered copier: the runtime's default (structuredClone + prototype). */
class Plain {
  values = [1, 2, 3];
  sum(): number {
    return this.values.reduce((a, b) => a + b, 0);
  }
}

describe('consumable inputs (copy-on-write)', () => {
  before(async () => {
    await ttg.initialize();
    ttg.register_copier(Tile, (t) => {
      copies++;
      return new Tile([...t.data], `${t.label} (copy)`);
    });
  });
  beforeEach(() => {
    copies = 0;
  });

  it('broadcast to a consumer and two readers that still hold it: exactly one copy, readers see the original', async () => {
    const go = new ttg.Edge<number, number>('cow-bc-go');
    const toReader = new ttg.Edge<number, Tile>('cow-bc-reader');
    const toConsumer = new ttg.Edge<number, Tile>('cow-bc-consumer');
    const release = new ttg.Edge<number, void>('cow-bc-release');
    let original: Tile | undefined;
    let consumed: Tile | undefined;
    const readerSaw: Array<[number, boolean, number[]]> = [];
    const src = ttg.make_tt((_k: number, _v: number, out) => {
      original = new Tile([1, 2, 3], 'orig');
      out.broadcast([0, 1], [[1, 2], [0]], original);
    }, [go], [toReader, toConsumer], { name: 'cow-bc-src' });
    // readers wait for a control input, so they hold the tile while the consumer runs
    const reader = ttg.make_tt((k: number, t: Tile, _go: void) => {
      readerSaw.push([k, t === original, [...t.data]]);
    }, [toReader, release], [], { name: 'cow-bc-readers' });
    const consumer = ttg.make_tt((_k: number, t: Tile, out) => {
      consumed = t;
      t.data[0] = 999; // mutate: allowed on a consumable input
      out.sendk(0, 1);
      out.sendk(0, 2);
    }, [toConsumer], [release], { name: 'cow-bc-consumer', consume: [0] });
    ttg.make_graph_executable(src, reader, consumer);
    src.invoke(0, 0);
    await fence();
    expect(copies).to.equal(1);
    expect(consumed).to.not.equal(original);
    expect(consumed!.data).to.deep.equal([999, 2, 3]);
    expect(original!.data).to.deep.equal([1, 2, 3]);
    expect(readerSaw.sort((a, b) => a[0] - b[0])).to.deep.equal([[1, true, [1, 2, 3]], [2, true, [1, 2, 3]]]);
  });

  it('a single consumer gets the object itself: zero copies', async () => {
    const go = new ttg.Edge<number, number>('cow-one-go');
    const e = new ttg.Edge<number, Tile>('cow-one-e');
    let sent: Tile | undefined;
    let got: Tile | undefined;
    const src = ttg.make_tt((k: number, _v: number, out) => {
      sent = new Tile([k], 'one');
      out.send(0, k, sent);
    }, [go], [e], { name: 'cow-one-src' });
    const consumer = ttg.make_tt((_k: number, t: Tile) => {
      t.data.push(1);
      got = t;
    }, [e], [], { name: 'cow-one-consumer', consume: [0] });
    ttg.make_graph_executable(src, consumer);
    src.invoke(5, 0);
    await fence();
    expect(copies).to.equal(0);
    expect(got).to.equal(sent);
    expect(got!.data).to.deep.equal([5, 1]);
  });

  it('a consumer that mutates and sends onward to another consumer moves the value: zero copies', async () => {
    const go = new ttg.Edge<number, Tile>('cow-move-go');
    const e1 = new ttg.Edge<number, Tile>('cow-move-1');
    const e2 = new ttg.Edge<number, Tile>('cow-move-2');
    const seen: Tile[] = [];
    let final: number[] | undefined;
    const first = ttg.make_tt((k: number, t: Tile, out) => {
      seen.push(t);
      t.data.push(1);
      out.send(0, k, t);
    }, [go], [e1], { name: 'cow-move-first', consume: [0] });
    const second = ttg.make_tt((k: number, t: Tile, out) => {
      seen.push(t);
      t.data.push(2);
      out.send(0, k, t);
    }, [e1], [e2], { name: 'cow-move-second', consume: [0] });
    const third = ttg.make_tt((_k: number, t: Tile) => {
      seen.push(t);
      final = [...t.data];
    }, [e2], [], { name: 'cow-move-third', consume: [0] });
    ttg.make_graph_executable(first, second, third);
    const tile = new Tile([0], 'moved');
    first.invoke(1, tile);
    await fence();
    expect(copies).to.equal(0);
    expect(seen).to.have.length(3);
    for (const t of seen) expect(t).to.equal(tile);
    expect(final).to.deep.equal([0, 1, 2]);
  });

  it('an async consumer that mutates and sends onward at its end also moves the value: zero copies', async () => {
    const go = new ttg.Edge<number, Tile>('cow-amove-go');
    const e1 = new ttg.Edge<number, Tile>('cow-amove-1');
    let received: Tile | undefined;
    const first = ttg.make_tt(async (k: number, t: Tile, out) => {
      await tick(1);
      t.data.push(1);
      out.send(0, k, t);
    }, [go], [e1], { name: 'cow-amove-first', consume: [0] });
    const second = ttg.make_tt((_k: number, t: Tile) => {
      received = t;
      t.data.push(2);
    }, [e1], [], { name: 'cow-amove-second', consume: [0] });
    ttg.make_graph_executable(first, second);
    const tile = new Tile([0], 'amoved');
    first.invoke(1, tile);
    await fence();
    expect(received!.data).to.deep.equal([0, 1, 2]);
    expect(copies, 'the sender does not touch the value after sending it: no copy is needed').to.equal(0);
    expect(received).to.equal(tile);
  });

  it('three consuming tasks sharing one value: copies only while it is shared (two copies, the last one moves)', async () => {
    // Reading of src/core: each of the three deliveries retains the tile (3 holders). Tasks run in
    // FIFO order; before a consumer runs, privatize() copies the value if it has more than one
    // holder and drops this task's hold on the original. Task 1 sees 3 holders -> copy (2 left),
    // task 2 sees 2 holders -> copy (1 left), task 3 is the only holder -> gets the original.
    // So exactly 2 copies, and the last consumer receives the original object.
    const go = new ttg.Edge<number, number>('cow-three-go');
    const e = new ttg.Edge<number, Tile>('cow-three-e');
    let original: Tile | undefined;
    const got: Array<[number, Tile, number[]]> = [];
    const src = ttg.make_tt((_k: number, _v: number, out) => {
      original = new Tile([10, 20], 'shared');
      out.broadcast(0, [0, 1, 2], original);
    }, [go], [e], { name: 'cow-three-src' });
    const consumer = ttg.make_tt((k: number, t: Tile) => {
      got.push([k, t, [...t.data]]);
      t.data[0] = -k - 1; // each consumer mutates what it got
    }, [e], [], { name: 'cow-three-consumer', consume: [0] });
    ttg.make_graph_executable(src, consumer);
    src.invoke(0, 0);
    await fence();
    expect(copies).to.equal(2);
    expect(got.map((g) => g[0])).to.deep.equal([0, 1, 2]);
    // every consumer saw the unmodified data: nobody saw another one's mutation
    for (const g of got) expect(g[2]).to.deep.equal([10, 20]);
    // all three objects are distinct, and only the last consumer got the original
    expect(new Set(got.map((g) => g[1])).size).to.equal(3);
    expect(got[0]![1]).to.not.equal(original);
    expect(got[1]![1]).to.not.equal(original);
    expect(got[2]![1]).to.equal(original);
  });

  it('a consumable input next to a read-only one: only the consumable one is privatized', async () => {
    const go = new ttg.Edge<number, number>('cow-mixed-go');
    const ro = new ttg.Edge<number, Tile>('cow-mixed-ro');
    const rw = new ttg.Edge<number, Tile>('cow-mixed-rw');
    let shared: Tile | undefined;
    let gotRo: Tile | undefined;
    let gotRw: Tile | undefined;
    const src = ttg.make_tt((k: number, _v: number, out) => {
      shared = new Tile([1], 'both');
      out.send(0, k, shared);
      out.send(1, k, shared);
    }, [go], [ro, rw], { name: 'cow-mixed-src' });
    const tt = ttg.make_tt((_k: number, a: Tile, b: Tile) => {
      gotRo = a;
      gotRw = b;
      b.data[0] = 2;
    }, [ro, rw], [], { name: 'cow-mixed', consume: [1] });
    ttg.make_graph_executable(src, tt);
    src.invoke(0, 0);
    await fence();
    // the same task holds the object twice (once per input): the consumable one must be a copy
    expect(copies).to.equal(1);
    expect(gotRo).to.equal(shared);
    expect(gotRw).to.not.equal(shared);
    expect(shared!.data).to.deep.equal([1]);
    expect(gotRw!.data).to.deep.equal([2]);
  });

  it('without a registered copier a shared consumable value is cloned with its class (structuredClone + prototype)', async () => {
    const go = new ttg.Edge<number, number>('cow-plain-go');
    const toReader = new ttg.Edge<number, Plain>('cow-plain-reader');
    const release = new ttg.Edge<number, void>('cow-plain-release');
    const toConsumer = new ttg.Edge<number, Plain>('cow-plain-consumer');
    const orig = new Plain();
    let got: Plain | undefined;
    let readerSum = -1;
    const src = ttg.make_tt((k: number, _v: number, out) => {
      out.send(0, k, orig);
      out.send(1, k, orig);
    }, [go], [toReader, toConsumer], { name: 'cow-plain-src' });
    const reader = ttg.make_tt((_k: number, p: Plain, _c: void) => {
      readerSum = p.sum();
    }, [toReader, release], [], { name: 'cow-plain-readertt' });
    const consumer = ttg.make_tt((k: number, p: Plain, out) => {
      got = p;
      p.values.push(100);
      out.sendk(0, k);
    }, [toConsumer], [release], { name: 'cow-plain-consumertt', consume: [0] });
    ttg.make_graph_executable(src, reader, consumer);
    src.invoke(0, 0);
    await fence();
    expect(copies).to.equal(0); // no copier involved
    expect(got).to.be.instanceOf(Plain);
    expect(got).to.not.equal(orig);
    expect(got!.sum()).to.equal(106);
    expect(orig.values).to.deep.equal([1, 2, 3]);
    expect(readerSum).to.equal(6);
  });
});
