/**
 * Device memory pool: the memory manager's copies live in blocks carved out of slabs, native
 * allocations of several blocks of one size. A copy freed by eviction gives its block back to its
 * slab; the next copy that fits in it takes it without a native allocation (a cudaMalloc costs the
 * JS thread that enqueues the tiles' work; a cudaFree waits for the whole device). Slabs of a size grow
 * geometrically, so a run with T tiles of one size makes O(log T) native allocations before its
 * blocks are reused, instead of one per tile copy.
 *
 * Like PaRSEC's zone allocator (parsec/utils/zone_malloc.c: one zone per device, allocated at its
 * start as a share of its memory, handed out in fixed units with free segments split and merged)
 * the memory comes in large pieces; unlike it, the pool does not take the device at start (tests
 * and programs start many backends, and the device is shared with cuBLAS, cuSOLVER and other
 * processes) and never splits or merges: tiles come in few sizes, so blocks of one size per slab
 * suffice, a free block is found in O(slabs), and an empty slab can go back to the device.
 *
 * Accounting. The memory manager's `used` counts the copies' bytes and alone decides when to evict
 * and when to wait (memory.ts), as before the pool. The pool keeps the bytes of its slabs
 * (`reserved`) within a budget, the capacity plus a small tolerance: it sizes new slabs to the
 * room left, and frees empty slabs when another size needs their room. Only when free blocks of
 * other sizes sit in slabs that resident copies keep alive (fragmentation) does a one-block slab
 * take `reserved` past the budget, by at most those free blocks' bytes, so that eviction and
 * waiting never depend on the layout; a slab emptied while over the budget is freed at once.
 *
 * Addresses. A native allocation is one number, `slab·2^32`; a block is that number plus its
 * offset (< 2^32), which the addon's `operand()` resolves to a pointer, so a block is an operand
 * like a whole allocation.
 */
import type { NativeAddon } from '../native/addon.js';

/** Blocks are multiples of this many bytes: offsets keep the alignment of cudaMalloc. */
const ALIGN = 256;
/** Offsets live in the low 32 bits of an address. */
const SPAN = 2 ** 32;
/** A new slab holds at least this many bytes (small buffers come many to a slab; at most the tolerance) ... */
const MIN_SLAB = 64 * 1024;
/** ... and at most this many, or an eighth of the device (a slab is freed only when all its blocks are). */
const MAX_SLAB = 256 * 2 ** 20;
/**
 * The slabs may exceed the capacity by this share of it (at most MAX_TOLERANCE bytes): the copies'
 * accounting counts their bytes, not the blocks' rounding nor the free blocks of a slab of small
 * buffers, so a device its copies fill to the capacity would otherwise allocate and free a slab at
 * the edge on every eviction.
 */
const TOLERANCE = 1 / 32;
const MAX_TOLERANCE = 32 * 2 ** 20;
/** A free block serves a request of at least 1/WASTE of its size ("any that fits", not far larger). */
const WASTE = 1.25;

/** One native allocation carved into blocks of one size. */
interface Slab {
  /** The address of its first byte: what devAlloc returned. */
  readonly base: number;
  readonly device: number;
  /** Bytes of each block. */
  readonly block: number;
  /** Blocks it holds. */
  readonly blocks: number;
  /** Offsets of its free blocks (a stack: the block freed last is reused first, likely warm in caches). */
  readonly free: number[];
}

/** Per-device and total counters of the pool. */
export interface PoolCounters {
  /** Native allocations made (slabs). */
  allocations: number;
  /** Copies placed in a block of a slab already held: no native allocation. */
  reused: number;
}

/** Blocks for device copies, on every device of one backend. */
export class DevicePool {
  /** Native bytes held per device (slabs, their free blocks included). */
  readonly reserved: number[];
  readonly counters: PoolCounters = { allocations: 0, reused: 0 };
  /** Slabs per device by block size (Map keeps sizes in first-use order). */
  private readonly slabs: Array<Map<number, Slab[]>>;
  /** Slab of each base address. */
  private readonly byBase = new Map<number, Slab>();

  /** Bytes of slabs per device beyond which the pool takes a one-block slab only for want of room (see {@link TOLERANCE}). */
  private readonly budget: number[];

  constructor(private readonly native: NativeAddon, private readonly capacity: readonly number[]) {
    this.reserved = capacity.map(() => 0);
    this.budget = capacity.map((c) => c + Math.min(c * TOLERANCE, MAX_TOLERANCE));
    this.slabs = capacity.map(() => new Map());
  }

  /**
   * The address of a block of at least `bytes` on `device`: a free one when one fits, else one of
   * a new slab. `null`: the native allocator refused even a one-block slab after the empty slabs
   * were freed (the caller evicts or waits, as for any allocation failure).
   */
  take(device: number, bytes: number): number | null {
    const size = blockSize(bytes);
    const reuse = this.freeBlock(device, size);
    if (reuse !== undefined) {
      this.counters.reused++;
      return reuse;
    }
    const cap = this.capacity[device]!;
    let room = this.budget[device]! - this.reserved[device]!;
    // freeing empty slabs of other sizes helps only when it makes room for a block
    if (room < size && room + this.emptyBytes(device) >= size) {
      this.releaseEmpty(device, size - room);
      room = this.budget[device]! - this.reserved[device]!;
    }
    // geometric growth: as many blocks as this size already holds, within the slab limits and the room
    const held = (this.slabs[device]!.get(size) ?? []).reduce((n, s) => n + s.blocks, 0);
    const maxBytes = Math.max(size, Math.min(MAX_SLAB, Math.floor(cap / 8)));
    // small buffers come many to a slab, but within the tolerance: the copies' accounting hardly counts them
    const minBytes = Math.min(MIN_SLAB, this.budget[device]! - cap);
    let blocks = Math.max(1, held, Math.floor(minBytes / size));
    blocks = Math.min(blocks, Math.floor(maxBytes / size), Math.floor(room / size));
    // no room for a block (fragmentation: see the file comment): one block past the budget
    blocks = Math.max(1, blocks);
    let base = this.native.devAlloc(device, blocks * size);
    if (base === null) {
      // the real allocator has less than our accounting thought (CUDA: other processes, workspaces)
      this.releaseEmpty(device, Infinity);
      blocks = 1;
      base = this.native.devAlloc(device, size);
      if (base === null) return null;
    }
    this.counters.allocations++;
    const slab: Slab = { base, device, block: size, blocks, free: [] };
    for (let i = blocks - 1; i >= 1; i--) slab.free.push(i * size);
    let list = this.slabs[device]!.get(size);
    if (list === undefined) this.slabs[device]!.set(size, list = []);
    list.push(slab);
    this.byBase.set(base, slab);
    this.reserved[device]! += blocks * size;
    return base;
  }

  /** Gives the block at `addr` back to its slab (its copy was evicted). */
  give(addr: number): void {
    const off = addr % SPAN;
    const slab = this.byBase.get(addr - off);
    if (slab === undefined) return;
    slab.free.push(off);
    // over the budget (fragmentation): an emptied slab goes back at once
    if (slab.free.length === slab.blocks && this.reserved[slab.device]! > this.budget[slab.device]!) this.freeSlab(slab);
  }

  /** Forgets every slab: the native stop frees them. */
  clear(): void {
    for (const m of this.slabs) m.clear();
    this.byBase.clear();
    this.reserved.fill(0);
  }

  /** A free block of between `size` and `size`·WASTE bytes on `device`, the smallest first. */
  private freeBlock(device: number, size: number): number | undefined {
    let best: Slab[] | undefined;
    let bestSize = Infinity;
    for (const [block, list] of this.slabs[device]!) {
      if (block < size || block > size * WASTE || block >= bestSize) continue;
      if (!list.some((s) => s.free.length !== 0)) continue;
      best = list;
      bestSize = block;
    }
    if (best === undefined) return undefined;
    // the fullest slab first, so that the others may empty and go back when memory is short
    let slab: Slab | undefined;
    for (const s of best) if (s.free.length !== 0 && (slab === undefined || s.free.length < slab.free.length)) slab = s;
    return slab!.base + slab!.free.pop()!;
  }

  /** Bytes of the empty slabs on `device`. */
  private emptyBytes(device: number): number {
    let n = 0;
    for (const list of this.slabs[device]!.values()) for (const s of list) if (s.free.length === s.blocks) n += s.blocks * s.block;
    return n;
  }

  /** Frees empty slabs on `device` until `bytes` are freed (Infinity: all of them). */
  private releaseEmpty(device: number, bytes: number): void {
    let freed = 0;
    for (const list of this.slabs[device]!.values()) {
      for (const s of [...list]) {
        if (freed >= bytes) return;
        if (s.free.length !== s.blocks) continue;
        freed += s.blocks * s.block;
        this.freeSlab(s);
      }
    }
  }

  private freeSlab(s: Slab): void {
    this.native.devFree(s.base);
    this.byBase.delete(s.base);
    this.reserved[s.device]! -= s.blocks * s.block;
    const m = this.slabs[s.device]!;
    const list = m.get(s.block)!;
    list.splice(list.indexOf(s), 1);
    if (list.length === 0) m.delete(s.block);
  }
}

/** Bytes of the block a copy of `bytes` takes. */
function blockSize(bytes: number): number {
  return Math.max(ALIGN, Math.ceil(bytes / ALIGN) * ALIGN);
}
