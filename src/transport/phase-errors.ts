/**
 * The errors of one phase, by the rank that raised each, and the one every rank's fence rejects
 * with. Each rank announces the first error it raises itself (not one it was told of), and each
 * termination wave counts the ranks that raised one; once the world is quiet every rank waits for
 * the errors of that many ranks and picks the least rank's. Arrival order would differ from rank
 * to rank ("first" is a race across ranks); the least rank is the same everywhere.
 */
import type { TtgError } from '../base/errors.js';
import { unannounced } from './failures.js';

/** How long a rank waits for the announcement of a failure that the wave reported elsewhere. */
const FAILURE_NOTICE_MS = 10_000;

/** The first error each rank raised in this phase. */
export class PhaseErrors {
  private readonly byRank = new Map<number, TtgError>();
  private wake: (() => void) | undefined;

  /** Rank `rank` raised `err` (its first of the phase; a later one is ignored). */
  add(rank: number, err: TtgError): void {
    if (!this.byRank.has(rank)) this.byRank.set(rank, err);
    this.wake?.();
  }

  /** Whether rank `rank` raised an error in this phase. */
  raised(rank: number): boolean {
    return this.byRank.has(rank);
  }

  /**
   * Once the errors of `count` ranks are known (at most {@link FAILURE_NOTICE_MS} later): the least
   * rank's, with every known one, by rank, in its `errors`. `rank`: this rank, for the error of
   * announcements that never came.
   */
  async agreed(count: number, rank: number): Promise<TtgError> {
    if (this.byRank.size < count) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, FAILURE_NOTICE_MS);
        const self = this;
        function done(): void {
          clearTimeout(timer);
          self.wake = undefined;
          resolve();
        }
        this.wake = () => {
          if (this.byRank.size >= count) done();
        };
      });
    }
    const all = [...this.byRank].sort((a, b) => a[0] - b[0]).map(([, e]) => e);
    const first = all[0] ?? unannounced(rank);
    Object.defineProperty(first, 'errors', { value: all, writable: true, configurable: true, enumerable: false });
    return first;
  }

  /** The phase ended: its errors are forgotten. */
  clear(): void {
    this.byRank.clear();
  }
}
