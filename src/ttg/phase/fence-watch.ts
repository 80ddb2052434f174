/**
 * What a fence tells whoever watches it while it waits. The progress line of src/observe is the
 * one watcher: `initialize` installs it with {@link watchFences}, so fences never import the
 * observation room.
 */
import type { Runtime } from '../runtime/runtime.js';

/** One fence, as its watcher sees it. */
export interface FenceWatch {
  /** The fence starts waiting. */
  start(): void;
  /** A termination wave summed the world's finished tasks. */
  seen(worldDone: number): void;
  /** The fence ended, either way. */
  stop(): void;
}

/** The watch of one fence of `rt`'s world, or undefined when nobody watches it. */
export type FenceWatcher = (rt: Runtime) => FenceWatch | undefined;

let watcher: FenceWatcher | undefined;

/** Installs the watcher of every world's fences in this process. */
export function watchFences(w: FenceWatcher): void {
  watcher = w;
}

/** The watch of a fence of `rt`'s world that starts now, if any. */
export function fenceWatch(rt: Runtime): FenceWatch | undefined {
  return watcher?.(rt);
}
