/**
 * The order of a world's collective operations. MPI matches collectives on a communicator by
 * their order, so a world's fences (termination waves), splits and collectives must start in the
 * same order on every rank, one after another: each takes its turn synchronously when the program
 * calls it (program order, the same on every rank) and starts when the one before has ended.
 */
export class Lane {
  private tail: Promise<void> = Promise.resolve();

  /** Runs `op` after every operation that took its turn before; the turn is taken now. */
  run<T>(op: () => Promise<T>): Promise<T> {
    const result = this.tail.then(op);
    this.tail = result.then(() => undefined, () => undefined);
    return result;
  }
}
