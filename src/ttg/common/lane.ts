/**
 * The order of a world's collective operations. MPI matches collectives on a communicator by
 * their order, so a world's fences (termination waves), splits and collectives must start in the
 * same order on every rank, one after another: each takes its turn synchronously when the program
 * calls it (program order, the same on every rank) and starts when the one before has ended.
 */
export class Lane {
  private tail: Promise<void> = Promise.resolve();
  private fences = 0;
  /** Collectives that took their turns while a fence had one, and have not started yet. */
  private readonly waiting: string[] = [];

  /** The first of them: if a task of the world awaits it, the fence never ends (its hang report says so). */
  get behindFence(): string | undefined {
    return this.waiting[0];
  }

  /** Runs `op` after every operation that took its turn before; the turn is taken now. `what` names a collective. */
  run<T>(op: () => Promise<T>, what?: string): Promise<T> {
    const noted = what !== undefined && this.fences > 0;
    if (noted) this.waiting.push(what);
    const result = this.tail.then(() => {
      if (noted) this.waiting.shift();  // turns are taken and started in the same order
      return op();
    });
    this.tail = result.then(() => undefined, () => undefined);
    return result;
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
