/** Waiting on the addon outside a fence, when nothing else keeps Node's event loop alive. */

/** Resolves as `p` does, keeping the event loop alive meanwhile (the addon's promises do not). */
export async function held<T>(p: Promise<T>): Promise<T> {
  const timer = setInterval(() => {}, 1 << 30);
  try {
    return await p;
  } finally {
    clearInterval(timer);
  }
}
