/**
 * What a read-only input promises: the body does not write it, so device copies of its buffers
 * stay current and the next device task reuses them. A host task that breaks the promise would
 * leave those copies stale, so the runtime checks the one case where it matters: the buffers of
 * read-only inputs that have a valid device copy are hashed before the body runs and again when
 * it ends; a change fails the task with E_READ_ONLY (and drops the stale copies).
 */
import type { Task } from '../ttg/common/model.js';
import type { AnyBuffer } from './buffer.js';
import { DeviceErrors } from './errors.js';
import type { MemoryManager } from './memory.js';

/** The read-only buffers of one host task with their hashes; kept in `task.deviceState` while it runs. */
export class ReadOnlyWatch {
  private readonly hashes: bigint[];

  /** `bufs[j]` came through input `terminals[j]`; their host copies must be current. */
  constructor(private readonly memory: MemoryManager, private readonly bufs: readonly AnyBuffer[], private readonly terminals: readonly number[]) {
    this.hashes = bufs.map((b) => memory.hashHost(b));
  }

  /** Throws E_READ_ONLY when the body changed one of the buffers. */
  check(task: Task): void {
    for (let j = 0; j < this.bufs.length; j++) {
      const b = this.bufs[j]!;
      if (this.memory.hashHost(b) === this.hashes[j]) {
        if (this.memory.coherent(b)) this.memory.setRef(b, this.hashes[j]!);
        continue;
      }
      this.memory.hostWrites(b);
      throw DeviceErrors.readOnlyWritten(this.terminals[j]!, { tt: task.tt.name, key: task.key, rank: task.tt.rt.rank });
    }
  }
}
