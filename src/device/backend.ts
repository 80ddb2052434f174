/**
 * A backend is configuration over the one native device runtime: how many devices and streams,
 * how much memory each device has, and whether buffers are used in place (host) or copied into
 * separate device memory (emulated, cuda). The operations themselves go through `devOp`.
 */
import { availableParallelism } from 'node:os';
import type { NativeAddon } from '../native/addon.js';
import type { BackendName, DeviceOptions } from './config.js';
import { DeviceErrors } from './errors.js';

/** A started backend. */
export interface Backend {
  /** Which backend. */
  readonly name: BackendName;
  /** Number of devices. */
  readonly devices: number;
  /** Streams per device. */
  readonly streamsPerDevice: number;
  /** Bytes per device (Infinity for host: it uses host memory in place). */
  readonly capacity: readonly number[];
  /** Buffers are used in place: no device copies, no transfers. */
  readonly inPlace: boolean;
  /** The addon. */
  readonly native: NativeAddon;
}

/** Default bytes per emulated device. */
const EMULATED_MEMORY = 64 * 2 ** 20;

/**
 * Starts the native side of `name` (or the default: cuda when a GPU is present, else host) and
 * reports the completions of notify ids to `onDone`.
 */
export function startBackend(native: NativeAddon, name: BackendName | undefined, o: DeviceOptions,
  onDone: (ids: Float64Array) => void): Backend {
  const info = native.devInfo();
  const chosen: BackendName = name ?? (info.cuda_devices > 0 ? 'cuda' : 'host');
  if (chosen === 'host') {
    // One stream per core: each stream is a pool thread running single-threaded BLAS calls.
    const streams = o.streams ?? availableParallelism();
    native.devStart('pool', streams, 1, onDone);
    return { name: 'host', devices: 1, streamsPerDevice: streams, capacity: [Infinity], inPlace: true, native };
  }
  if (chosen === 'emulated') {
    const devices = o.devices ?? 1;
    const streams = o.streams ?? 2;
    native.devStart('pool', devices * streams, devices, onDone);
    const cap = o.memory ?? EMULATED_MEMORY;
    return { name: 'emulated', devices, streamsPerDevice: streams, capacity: Array(devices).fill(cap), inPlace: false, native };
  }
  if (info.cuda_devices === 0) {
    throw DeviceErrors.unavailable(info.cuda_compiled
      ? `backend 'cuda' requested but no CUDA device is usable (${info.cuda_error})`
      : "backend 'cuda' requested but the addon was built without CUDA (no nvcc)");
  }
  const devices = Math.min(o.devices ?? info.cuda_devices, info.cuda_devices);
  const streams = o.streams ?? 4;
  native.devStart('cuda', devices * streams, devices, onDone);
  const capacity: number[] = [];
  for (let d = 0; d < devices; d++) {
    // Leave 10% for the CUDA context and kernels' own needs; `memory` caps it further.
    const m = native.devMemInfo(d);
    const avail = m === null ? 0 : Math.floor(m.free * 0.9);
    capacity.push(o.memory === undefined ? avail : Math.min(o.memory, avail));
  }
  return { name: 'cuda', devices, streamsPerDevice: streams, capacity, inPlace: false, native };
}
