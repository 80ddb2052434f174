/** Helpers of the SequencedKeysConstraint tests. */
import { tick } from '../helpers.js';

/** A key of the constraint tests: [item, ordinal]. */
export type K2 = [number, number];

/**
 * An async body whose tasks start, then wait until the test calls `finish(key)`, so that what
 * runs "while a task is active" is exact rather than a matter of timing. Keys not listed in
 * `waitFor` finish at once.
 */
export class Gated {
  readonly started: number[] = [];
  private readonly waiting = new Map<number, () => void>();

  constructor(private readonly waitFor: ReadonlySet<number> | 'all' = 'all') {}

  readonly body = async (k: number): Promise<void> => {
    this.started.push(k);
    if (this.waitFor !== 'all' && !this.waitFor.has(k)) return;
    await new Promise<void>((resolve) => this.waiting.set(k, resolve));
  };

  /** Lets task `k` end, then gives the runtime a turn to start what that opens. */
  async finish(k: number): Promise<void> {
    const resolve = this.waiting.get(k);
    if (resolve === undefined) throw new Error(`task ${k} is not waiting (started: ${this.started.join(',')})`);
    this.waiting.delete(k);
    resolve();
    await tick();
  }
}

/** Ordinals of the keys in the order their tasks started. */
export function ordinalsOf(keys: readonly K2[]): number[] {
  return keys.map((k) => k[1]);
}
