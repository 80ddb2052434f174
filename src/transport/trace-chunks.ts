/** Rank 0's collection of the other ranks' trace events at finalize. */

/** How long rank 0 waits at finalize for the other ranks' trace events. */
const TRACE_GATHER_MS = 30_000;

/** The trace events that arrived from each rank. */
export class TraceChunks {
  private readonly chunks = new Map<number, string>();
  private arrived: (() => void) | undefined;

  constructor(private readonly size: number) {}

  /** Rank `rank`'s events arrived. */
  add(rank: number, bytes: Uint8Array): void {
    this.chunks.set(rank, new TextDecoder().decode(bytes));
    this.arrived?.();
  }

  /** `own` followed by every other rank's events, in rank order, once all arrived (or after the timeout). */
  async all(own: string): Promise<string[]> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        console.warn(`ttg: rank 0: trace events of ${this.size - 1 - this.chunks.size} rank(s) did not arrive; writing the others`);
        resolve();
      }, TRACE_GATHER_MS);
      this.arrived = () => {
        if (this.chunks.size < this.size - 1) return;
        clearTimeout(timer);
        resolve();
      };
      this.arrived();
    });
    this.arrived = undefined;
    const out = [own];
    for (let r = 1; r < this.size; r++) out.push(this.chunks.get(r) ?? '');
    return out;
  }
}
