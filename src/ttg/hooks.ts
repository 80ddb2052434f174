/**
 * Extension points the device layer fills in, so that the core knows nothing of devices while
 * plain host tasks and remote sends still see valid host data.
 */

/** Hooks installed by src/device; undefined when no device layer is loaded. */
export const hooks: {
  /**
   * Makes every buffer reachable from `values` valid on the host before a plain or async body
   * runs (or before the values are serialized for another rank). Returns a promise only when a
   * copy had to be started; undefined when everything was already on the host.
   */
  toHost: ((values: readonly unknown[]) => PromiseLike<void> | undefined) | undefined;
} = { toHost: undefined };
