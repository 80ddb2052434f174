/**
 * The device memory pool (src/device/pool.ts) against a fake allocator that records every native
 * allocation: blocks never overlap and stay inside their slab, freed blocks are reused, slabs grow
 * geometrically within the capacity, empty slabs go back when another size needs the room,
 * fragmentation takes a one-block slab past the capacity (and gives it back once empty), and the
 * allocator's refusals fall back to one block, then to null.
 */
import { expect } from 'chai';

import type { NativeAddon } from '../../src/native/addon.js';
import { DevicePool } from '../../src/device/pool.js';

const SPAN = 2 ** 32;
const MiB = 2 ** 20;

/** A fake addon: allocations by address, and a switch that makes devAlloc refuse. */
class FakeNative {
  next = 0;
  readonly live = new Map<number, { device: number; bytes: number }>();
  allocs = 0;
  frees = 0;
  /** Refuse allocations larger than this (Infinity: refuse none). */
  refuseAbove = Infinity;

  devAlloc(device: number, bytes: number): number | null {
    if (bytes > this.refuseAbove) return null;
    this.allocs++;
    const a = ++this.next * SPAN;
    this.live.set(a, { device, bytes });
    return a;
  }

  devFree(a: number): void {
    expect(this.live.has(a), `devFree of a live allocation (${a})`).to.equal(true);
    this.live.delete(a);
    this.frees++;
  }

  /** Checks that `blocks` ([address, bytes]) lie inside live allocations and do not overlap. */
  check(blocks: Array<[number, number]>): void {
    const sorted = [...blocks].sort((x, y) => x[0] - y[0]);
    for (const [a, n] of sorted) {
      const off = a % SPAN, slab = this.live.get(a - off);
      expect(slab, `block ${a} in a live allocation`).to.not.equal(undefined);
      expect(off + n, `block ${a} inside its allocation`).to.be.at.most(slab!.bytes);
      expect(off % 256, 'blocks aligned to 256 bytes').to.equal(0);
    }
    for (let i = 1; i < sorted.length; i++) expect(sorted[i]![0], 'blocks do not overlap').to.be.at.least(sorted[i - 1]![0] + sorted[i - 1]![1]);
  }

  bytes(device = 0): number {
    let n = 0;
    for (const v of this.live.values()) if (v.device === device) n += v.bytes;
    return n;
  }
}

function make(capacity: number[]): { fake: FakeNative; pool: DevicePool } {
  const fake = new FakeNative();
  return { fake, pool: new DevicePool(fake as unknown as NativeAddon, capacity) };
}

describe('device memory pool (pool.ts, fake allocator)', () => {
  it('a freed block is taken again by the next request of its size, without a native allocation', () => {
    const { fake, pool } = make([64 * MiB]);
    const a = pool.take(0, 2 * MiB)!;
    pool.give(a);
    expect(pool.take(0, 2 * MiB)).to.equal(a);
    expect(pool.counters).to.deep.equal({ allocations: 1, reused: 1 });
    expect(fake.allocs).to.equal(1);
  });

  it('tiles of one size: slabs grow geometrically, blocks are disjoint, within the capacity', () => {
    const cap = 256 * MiB;
    const { fake, pool } = make([cap]);
    const tiles: Array<[number, number]> = [];
    for (let i = 0; i < 100; i++) tiles.push([pool.take(0, 2 * MiB)!, 2 * MiB]);
    fake.check(tiles);
    // 1, 1, 2, 4, 8, 16 blocks, then slabs of cap/8 = 32 MiB (16 blocks)
    expect(pool.counters.allocations, 'slabs for 100 tiles').to.be.at.most(12);
    expect(pool.counters.allocations + pool.counters.reused).to.equal(100);
    expect(pool.reserved[0]).to.equal(fake.bytes()).and.to.be.at.most(cap * (1 + 1 / 32));
    // all freed and taken again: no new slab
    for (const [a] of tiles) pool.give(a);
    const before = fake.allocs;
    const again: Array<[number, number]> = [];
    for (let i = 0; i < 100; i++) again.push([pool.take(0, 2 * MiB)!, 2 * MiB]);
    fake.check(again);
    expect(fake.allocs).to.equal(before);
  });

  it('up to the capacity and past it only by one-block slabs when other sizes hold the room', () => {
    const cap = 16 * MiB;
    const { fake, pool } = make([cap]);
    const a: number[] = [];
    for (;;) {
      if (pool.reserved[0]! + MiB > cap) break;
      a.push(pool.take(0, MiB)!);
    }
    expect(pool.reserved[0], 'slabs of 1 MiB fill the capacity').to.be.at.most(cap + cap / 32);
    // free all but one block of each slab: the slabs stay (fragmentation), their free blocks are of the wrong size
    const slabsOf = new Map<number, number[]>();
    for (const x of a) { const s = x - (x % SPAN); slabsOf.set(s, [...(slabsOf.get(s) ?? []), x]); }
    for (const list of slabsOf.values()) for (const x of list.slice(1)) pool.give(x);
    const beyond = pool.take(0, 3 * MiB)!;
    expect(beyond, 'a block of 3 MiB despite the fragmented slabs').to.not.equal(null);
    expect(beyond % SPAN, 'a one-block slab').to.equal(0);
    expect(fake.live.get(beyond)!.bytes).to.equal(3 * MiB);
    expect(pool.reserved[0], 'past the capacity by one block').to.be.above(cap);
    // emptied while over the budget: it goes back at once
    const frees = fake.frees;
    pool.give(beyond);
    expect(fake.frees).to.equal(frees + 1);
    expect(fake.live.has(beyond)).to.equal(false);
  });

  it('empty slabs go back when another size needs their room, and only then', () => {
    const cap = 8 * MiB;
    const { fake, pool } = make([cap]);
    const a: number[] = [];
    for (let i = 0; i < 8; i++) a.push(pool.take(0, MiB)!);
    for (const x of a) pool.give(x);
    expect(fake.frees, 'empty slabs are kept while nothing needs the room').to.equal(0);
    expect(pool.take(0, MiB), 'and reused').to.not.equal(null);
    expect(fake.allocs).to.equal(pool.counters.allocations);
    const big = pool.take(0, 6 * MiB)!;
    expect(fake.frees, 'empty 1 MiB slabs freed for the 6 MiB block').to.be.above(0);
    expect(big % SPAN).to.equal(0);
    expect(pool.reserved[0]).to.equal(fake.bytes()).and.to.be.at.most(cap + cap / 32);
  });

  it('sizes: a ragged request takes a free block up to 1.25 times its size, not a larger one; zero bytes take a block', () => {
    const { fake, pool } = make([64 * MiB]);
    const x = pool.take(0, 10_000)!;
    pool.give(x);
    expect(pool.take(0, 9_000), 'a block of 10,240 bytes serves 9,000').to.equal(x);
    pool.give(x);
    const before = fake.allocs;
    expect(pool.take(0, 4_000), 'but not 4,000').to.not.equal(x);
    expect(fake.allocs).to.be.above(before);
    expect(pool.take(0, 0), 'a zero-byte copy still has an address').to.not.equal(null);
  });

  it('a buffer larger than any slab limit gets a slab of its own; offsets stay below 2^32', () => {
    const { fake, pool } = make([64 * 2 ** 30]);
    const huge = pool.take(0, 6 * 2 ** 30)!;
    expect(huge % SPAN).to.equal(0);
    expect(fake.live.get(huge)!.bytes).to.equal(6 * 2 ** 30);
    const blocks: Array<[number, number]> = [];
    for (let i = 0; i < 200; i++) blocks.push([pool.take(0, 8 * MiB)!, 8 * MiB]);
    fake.check(blocks);
    for (const [a] of blocks) expect(a % SPAN).to.be.below(SPAN - 8 * MiB + 1);
  });

  it('the allocator refusing a slab: empty slabs go back and one block is asked for; refusing that too: null', () => {
    const { fake, pool } = make([64 * MiB]);
    const a = [pool.take(0, MiB)!, pool.take(0, MiB)!];
    for (const x of a) pool.give(x);
    const half = MiB / 2;
    for (let i = 0; i < 4; i++) pool.take(0, half);   // slabs of 1, 1 and 2 blocks, all taken: the next would hold 4
    fake.refuseAbove = half;
    const b = pool.take(0, half)!;
    expect(b, 'one block of 512 KiB').to.not.equal(null);
    expect(fake.live.get(b - (b % SPAN))!.bytes).to.equal(half);
    expect(fake.live.has(a[0]! - (a[0]! % SPAN)), 'the empty 1 MiB slabs were freed first').to.equal(false);
    fake.refuseAbove = 0;
    expect(pool.take(0, 3 * MiB)).to.equal(null);
    expect(pool.reserved[0]).to.equal(fake.bytes());
  });

  it('devices are separate; clear() forgets every slab', () => {
    const { fake, pool } = make([8 * MiB, 8 * MiB]);
    const x = pool.take(0, MiB)!, y = pool.take(1, MiB)!;
    pool.give(x);
    expect(pool.take(1, MiB), 'device 1 does not take device 0\'s block').to.not.equal(x);
    expect(fake.live.get(y - (y % SPAN))!.device).to.equal(1);
    pool.clear();
    expect(pool.reserved).to.deep.equal([0, 0]);
    pool.give(x);   // an address of before the clear: ignored
    expect(pool.take(0, MiB)! % SPAN, 'a fresh slab after clear()').to.equal(0);
  });
});
