/** The transport of a world of one rank. */
import type { TtgError } from '../base/errors.js';
import { rehearse } from './travel-check.js';
import type { LocalWork, Quiet, Transport, TransportHost } from '../ttg/common/transport.js';
import { PAYLOAD_LENGTH } from '../ttg/common/agreement.js';
import type { Target } from '../ttg/common/wire.js';

/** A world of one rank: quiescence is local idleness. */
export class LocalTransport implements Transport {
  readonly rank = 0;
  readonly size = 1;
  readonly kind = 'local';

  constructor(
    readonly worldId: number,
    /** Ids given to split worlds so far, shared by the worlds of the process. */
    private readonly made: { count: number } = { count: 0 },
  ) {}

  private host: TransportHost | undefined;

  attach(host: TransportHost): void {
    this.host = host;
  }

  rehearse(target: Target, value: unknown): void {
    rehearse(this.host!, target, value, 0);
  }

  split(color: number): Promise<Transport | undefined> {
    return Promise.resolve(color < 0 ? undefined : new LocalTransport(++this.made.count, this.made));
  }

  sendInput(): void {
    throw new Error('the local transport has no other rank to send to');
  }

  sendValue(): void {
    throw new Error('the local transport has no other rank to send to');
  }

  sendControl(): void {
    throw new Error('the local transport has no other rank to send to');
  }

  announceFailure(): void {}

  hold(): void {}

  async quiesce(local: LocalWork): Promise<Quiet> {
    for (;;) {
      await local.settle();
      const open = local.openStreams();
      if (!open.some((n) => n > 0)) return { error: undefined, waitingByRank: undefined };
      local.closeStreams(open);
    }
  }

  endFence(): void {}

  finalize(): Promise<void> {
    return Promise.resolve();
  }

  agree(_sig: unknown, payload: ArrayLike<number> = []): Promise<Float64Array> {
    const sums = new Float64Array(PAYLOAD_LENGTH);
    sums.set(payload);
    return Promise.resolve(sums);
  }

  reduce(values: Float64Array): Promise<Float64Array> {
    return Promise.resolve(values.slice());
  }

  bcast(): Promise<void> {
    return Promise.resolve();
  }

  onVote: (() => void) | undefined = undefined;
  hangNotice: TtgError | undefined = undefined;

  vote(): void {}

  othersStalled(): boolean {
    return true;
  }

  progress(): number {
    return 0;
  }

  payloadArriving(): boolean {
    return false;
  }

  abandon(): void {}

  onSummary: ((rank: number, json: string) => void) | undefined = undefined;

  sendSummary(json: string): void {
    this.onSummary?.(0, json);
  }

  gatherTrace(chunk: string): Promise<string[] | undefined> {
    return Promise.resolve([chunk]);
  }
}
