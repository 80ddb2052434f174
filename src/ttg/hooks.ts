/**
 * Extension points the device layer fills in, so that the core knows nothing of devices while
 * plain host tasks and remote sends still see valid host data.
 */
import type { Task } from './task.js';

/** Hooks installed by src/device; undefined when no device layer is loaded. */
export const hooks: {
  /**
   * Makes every buffer reachable from `values` valid on the host before a plain or async body
   * runs (or before the values are serialized for another rank); the buffers of the values whose
   * bit is set in `writable` (a host task's consumable inputs) lose their device copies, since
   * the body may write them; with `task`, the others are checked for writes when it ends (in
   * `task.deviceState`). Returns a promise only when a copy had to be started; undefined when
   * everything was already on the host.
   */
  toHost: ((values: readonly unknown[], writable: number, task?: Task) => PromiseLike<void> | undefined) | undefined;
  /** True while device work is queued or running: the hang watchdog counts that as progress. */
  deviceBusy: (() => boolean) | undefined;
  /** Checks what a task with device state sends (throws when it sends a buffer still being written). */
  beforeSend: ((task: Task, value: unknown) => void) | undefined;
  /** Sets up the device backend from `initialize({ device })` and the TTG_DEVICE variable. */
  initDevices: ((options: DeviceOptions | undefined) => Promise<void>) | undefined;
  /** Releases device memory and worker threads at `finalize()`. */
  finalizeDevices: (() => Promise<void>) | undefined;
} = { toHost: undefined, deviceBusy: undefined, beforeSend: undefined, initDevices: undefined, finalizeDevices: undefined };

/** Device options of `ttg.initialize({ device })`. */
export interface DeviceOptions {
  /** `cuda`, `host` or `emulated` (default: cuda when a GPU is present, else host). */
  backend?: string;
  /** Number of devices (emulated) or devices to use. */
  devices?: number;
  /** Bytes of memory per device (emulated; a cap for cuda). */
  memory?: number;
  /** Streams (host: worker threads) per device. */
  streams?: number;
}
