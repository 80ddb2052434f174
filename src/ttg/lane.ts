/**
 * The order of a world's collective operations. MPI matches collectives on a communicator by
 * their order, so a world's fences (termination waves), splits and collectives must start in the
 * same order on every rank, one after another: each takes its turn synchronously when the program
 * calls it (program order, the same on every rank) and starts when the one before has ended.
 */
export class Lane {
  private tail: Promise<void> = Promise.resolve();
  private fences = 0;
  /**
   * The first collective that took its turn while a fence had one and that has not yet run: if a
   * task of the world awaits it, the fence never ends (its hang report says so).
   */
  behindFence: string | undefined;

  /** Runs `op` after every operation that took its turn before; the turn is taken now. `what` names a collective. */
  run<T>(op: () => Promise<T>, what?: string): Promise<T> {
    if (what !== undefined && this.fences > 0) this.behindFence ??= what;
    const result = this.tail.then(() => {
      if (what !== undefined && this.behindFence === what) this.behindFence = undefined;
      return op();
    });
    this.tail = result.then(() => undefined, () => undefined);
    return result;
  }

  /** Whether a fence has taken its turn and not ended. */
  get fencing(): boolean {
    return this.fences > 0;
  }

  /** Runs a fence's `op` in turn: collectives that take their turns until it has ended are noted. */
  fence<T>(op: () => Promise<T>): Promise<T> {
    this.fences++;
    const result = this.run(op);
    const ended = () => { this.fences--; };
    result.then(ended, ended);
    return result;
  }
}
