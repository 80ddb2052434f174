/**
 * The device runtime of this process: the started backend, its streams and its memory manager.
 * Devices belong to the process, so the worlds of a process share them. `initialize()` starts it;
 * `finalize()` stops it.
 */
import { deviceSpec } from '../base/settings.js';
import { initChecksum } from '../serialize/checksum.js';
import { loadNative, nativeLoadError } from '../native/addon.js';
import { startBackend, type Backend } from './backend.js';
import { setToHostImpl } from './buffer.js';
import { resolveOptions, type BackendName, type DeviceOptions } from './config.js';
import { DeviceErrors } from './errors.js';
import { MemoryManager } from './memory.js';
import { Placement } from './placement.js';
import { StreamManager } from './streams.js';
import type { TaskState } from './task-state.js';

/** A started device runtime. */
export interface DeviceRuntime {
  /** The backend in use. */
  backend: Backend;
  /** Its streams. */
  streams: StreamManager;
  /** Its memory manager. */
  memory: MemoryManager;
  /** Where device tasks go when places differ (a host place, slowed devices). */
  placement: Placement;
  /** Device tasks that hold the buffers they listed: from their first `input()` until all they enqueued has run. */
  holding: Set<TaskState>;
}

let current: DeviceRuntime | undefined;
let disabledWhy = 'ttg.initialize() has not been called';

/** The running device runtime, or undefined (no addon, or before initialize). */
export function deviceRuntime(): DeviceRuntime | undefined {
  return current;
}

/** The running device runtime; throws a TtgError saying why there is none. */
export function requireRuntime(): DeviceRuntime {
  if (current === undefined) throw DeviceErrors.unavailable(disabledWhy);
  return current;
}

/**
 * Starts the backend chosen by `options` and `TTG_DEVICE`. Without the native addon the device
 * layer stays off (host-only programs still run) unless a backend was asked for explicitly.
 */
export async function initDevices(options: DeviceOptions | undefined): Promise<void> {
  if (current !== undefined) return;
  const o = resolveOptions(options, deviceSpec());
  const native = loadNative();
  if (native === null) {
    disabledWhy = `the native addon did not load (${nativeLoadError() ?? 'unknown'}); build it with \`npm run build:native\``;
    if (o.explicit) throw DeviceErrors.unavailable(disabledWhy);
    return;
  }
  await initChecksum();  // read-only inputs are hashed (read-only.ts)
  let streams: StreamManager | undefined;
  const backend = startBackend(native, o.backend as BackendName | undefined, o, (ids, errors) => streams!.onDone(ids, errors));
  streams = new StreamManager(backend);
  current = { backend, streams, memory: new MemoryManager(backend, streams), placement: new Placement(backend, streams), holding: new Set() };
}

/** Brings every buffer's data home, then stops threads/streams and frees device memory. */
export async function finalizeDevices(): Promise<void> {
  const r = current;
  if (r === undefined) return;
  await r.memory.drainAll();
  r.memory.forgetAll();
  current = undefined;
  disabledWhy = 'the device layer was finalized';
  r.streams.flushOps();  // ops a body packed last are queued before the streams stop
  r.backend.native.devStop();
}

setToHostImpl((b) => current?.memory.toHostForProgram(b));
