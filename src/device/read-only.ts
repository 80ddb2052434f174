/**
 * What a read-only input promises: the body does not write it, so device copies of its buffers
 * stay current and the next device task reuses them. A host task that breaks the promise would
 * leave those copies stale, so the runtime checks the one case where it matters: the buffers of
 * read-only inputs that have a valid device copy are hashed before the body runs and again when
 * it ends; a change fails the task with E_READ_ONLY (and drops the stale copies).
 *
 * Neither hash of a large array costs the JS thread: the first is usually known already (the copy
 * that brought the array home hashed it as it wrote it), else taken on a worker before the body
 * runs; the second runs on a worker while the task's end waits for it. A buffer written through
 * another holder meanwhile (its version moved: a consumer's write, a kernel's) gets no verdict.
 */
import type { Task } from '../ttg/common/model.js';
import type { AnyBuffer } from './buffer.js';
import { DeviceErrors } from './errors.js';
import type { MemoryManager } from './memory.js';
import { OFF_THREAD_BYTES } from './off-thread.js';

/** The read-only buffers of one host task with their hashes; kept in `task.deviceState` while it runs. */
export class ReadOnlyWatch {
  private constructor(
    private readonly memory: MemoryManager,
    private readonly bufs: readonly AnyBuffer[],
    private readonly terminals: readonly number[],
    private readonly hashes: readonly bigint[],
    private readonly versions: readonly number[],
  ) {}

  /**
   * Watches `bufs` (`bufs[j]` came through input `terminals[j]`; their host copies are current):
   * the watch, or a promise of it when some hash is taken on a worker first.
   */
  static start(memory: MemoryManager, bufs: readonly AnyBuffer[], terminals: readonly number[]): ReadOnlyWatch | Promise<ReadOnlyWatch> {
    const versions = bufs.map((b) => b.version);
    const hashes: bigint[] = [];
    let later: Array<Promise<void>> | undefined;
    for (let j = 0; j < bufs.length; j++) {
      const b = bufs[j]!;
      const known = memory.knownHash(b);
      if (known !== undefined) hashes.push(known);
      else if (b.host.byteLength < OFF_THREAD_BYTES) hashes.push(memory.hashHost(b));
      else {
        hashes.push(0n);
        (later ??= []).push(memory.hashSoon(b).then((h) => { hashes[j] = h; }));
      }
    }
    const watch = new ReadOnlyWatch(memory, bufs, terminals, hashes, versions);
    return later === undefined ? watch : Promise.all(later).then(() => watch);
  }

  /**
   * The body has ended: throws E_READ_ONLY when it changed one of the buffers, or returns a
   * promise that rejects so, when a large one is hashed on a worker (undefined: all checked).
   */
  check(task: Task): Promise<void> | undefined {
    let later: Array<Promise<void>> | undefined;
    let error: unknown;
    for (let j = 0; j < this.bufs.length; j++) {
      const b = this.bufs[j]!;
      if (b.version !== this.versions[j]) continue;
      if (b.host.byteLength >= OFF_THREAD_BYTES) {
        const judged = this.memory.hashSoon(b).then((h) => this.verdict(task, j, h));
        // until the verdict (and that of another task's check still running), a use of the device
        // copies, which a write would make stale, waits for it
        const earlier = b.readOnlyCheck;
        const both = earlier === undefined ? judged : Promise.all([earlier, judged]);
        const clear = (): void => { if (b.readOnlyCheck === settled) b.readOnlyCheck = undefined; };
        const settled: Promise<void> = both.then(clear, clear);
        b.readOnlyCheck = settled;
        (later ??= []).push(judged);
        continue;
      }
      try {
        this.verdict(task, j, this.memory.hashHost(b));
      } catch (e) {
        error ??= e;
      }
    }
    if (later === undefined) {
      if (error !== undefined) throw error;
      return undefined;
    }
    const all = Promise.all(later);
    return error === undefined ? all.then(() => undefined) : all.then(() => { throw error; }, () => { throw error; });
  }

  /** Buffer `j` hashes to `h` after the body: unchanged, its hash says what the device copies hold; changed, they are stale. */
  private verdict(task: Task, j: number, h: bigint): void {
    const b = this.bufs[j]!;
    if (b.version !== this.versions[j]) return;
    if (h === this.hashes[j]) {
      if (this.memory.coherent(b)) this.memory.setRef(b, h);
      return;
    }
    this.memory.hostWrites(b);
    throw DeviceErrors.readOnlyWritten(this.terminals[j]!, { tt: task.tt.name, key: task.key, rank: task.tt.rt.rank });
  }
}
