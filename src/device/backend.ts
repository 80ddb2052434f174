/**
 * A backend is configuration over the one native device runtime: how many devices and streams,
 * how much memory each device has, and whether buffers are used in place (host) or copied into
 * separate device memory (emulated, cuda). The operations themselves go through `devOp`.
 */
import { availableParallelism } from 'node:os';
import type { DeviceDoneCallback, NativeAddon } from '../native/addon.js';
import type { BackendName, DeviceOptions } from './config.js';
import { DeviceErrors } from './errors.js';

/** A started backend. */
export interface Backend {
  /** Which backend. */
  readonly name: BackendName;
  /** Number of devices. */
  readonly devices: number;
  /** Places a device task may run on: the devices, then the host place when there is one. */
  readonly places: number;
  /** Index of the host place beside the devices (its memory is the host copy), or -1. */
  readonly hostPlace: number;
  /** Streams of each place. */
  readonly streamsOf: readonly number[];
  /** Places differ (a host place, slowed devices): tasks are placed by measured times (placement.ts). */
  readonly learned: boolean;
  /** Streams per device. */
  readonly streamsPerDevice: number;
  /** Bytes per device (Infinity for host: it uses host memory in place). */
  readonly capacity: readonly number[];
  /** Buffers are used in place: no device copies, no transfers. */
  readonly inPlace: boolean;
  /** The addon. */
  readonly native: NativeAddon;
}

/** Whether place `p` uses buffers in place (the host backend, or the host place beside devices). */
export function inPlaceAt(b: Backend, p: number): boolean {
  return b.inPlace || p === b.hostPlace;
}

/** Default bytes per emulated device. */
const EMULATED_MEMORY = 64 * 2 ** 20;

/**
 * Starts the native side of `name` (or the default: cuda when a GPU is present, else host) and
 * reports the completions of notify ids to `onDone`.
 */
export function startBackend(native: NativeAddon, name: BackendName | undefined, o: DeviceOptions,
  onDone: DeviceDoneCallback): Backend {
  const info = native.devInfo();
  const chosen: BackendName = name ?? (info.cuda_devices > 0 ? 'cuda' : 'host');
  if (chosen === 'host') {
    // One stream per core: each stream is a pool thread running single-threaded BLAS calls.
    const streams = o.streams ?? availableParallelism();
    native.devStart('pool', streams, 1, onDone);
    return { name: 'host', devices: 1, places: 1, hostPlace: -1, streamsOf: [streams], learned: false, streamsPerDevice: streams, capacity: [Infinity], inPlace: true, native };
  }
  if (chosen === 'emulated') {
    const devices = o.devices ?? 1;
    const streams = o.streams ?? 2;
    const host = o.host ?? 0;
    if (o.slowdown !== undefined && o.slowdown.length !== devices) {
      throw DeviceErrors.invalid('options.device.slowdown', `needs one factor per device (${devices}), got ${o.slowdown.length}`);
    }
    const slow = new Float64Array(devices * streams + host).fill(1);
    for (let d = 0; d < devices; d++) slow.fill(o.slowdown?.[d] ?? 1, d * streams, (d + 1) * streams);
    native.devStart('pool', devices * streams + host, devices, onDone, slow);
    const cap = o.memory ?? EMULATED_MEMORY;
    const streamsOf = [...Array<number>(devices).fill(streams), ...(host > 0 ? [host] : [])];
    return {
      name: 'emulated', devices, places: streamsOf.length, hostPlace: host > 0 ? devices : -1, streamsOf, streamsPerDevice: streams,
      learned: host > 0 || o.slowdown !== undefined,
      capacity: [...Array<number>(devices).fill(cap), ...(host > 0 ? [Infinity] : [])], inPlace: false, native,
    };
  }
  if (info.cuda_devices === 0) {
    throw DeviceErrors.unavailable(info.cuda_compiled
      ? `backend 'cuda' requested but no CUDA device is usable (${info.cuda_error})`
      : "backend 'cuda' requested but the addon was built without CUDA (no nvcc)");
  }
  const devices = Math.min(o.devices ?? info.cuda_devices, info.cuda_devices);
  const streams = o.streams ?? 4;
  const host = o.host ?? 0;
  native.devStart('cuda', devices * streams, devices, onDone, undefined, host);
  const capacity: number[] = [];
  for (let d = 0; d < devices; d++) {
    // Leave 10% for the CUDA context and kernels' own needs; `memory` caps it further.
    const m = native.devMemInfo(d);
    const avail = m === null ? 0 : Math.floor(m.free * 0.9);
    capacity.push(o.memory === undefined ? avail : Math.min(o.memory, avail));
  }
  if (host > 0) capacity.push(Infinity);
  return {
    name: 'cuda', devices, places: devices + (host > 0 ? 1 : 0), hostPlace: host > 0 ? devices : -1, learned: host > 0,
    streamsOf: [...Array<number>(devices).fill(streams), ...(host > 0 ? [host] : [])], streamsPerDevice: streams, capacity, inPlace: false, native,
  };
}
