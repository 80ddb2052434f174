/**
 * Which backend to run, from `initialize({ device })` and the `TTG_DEVICE` environment variable
 * (`backend[:devices[:memory[:streams]]]`, e.g. `emulated:2:8MiB` or `host:::2`). Options given in code win field by
 * field; the environment fills in what they leave out, so a program can be rerun on another
 * backend without editing it.
 */
import { DeviceErrors } from './errors.js';

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
  /**
   * Emulated and cuda backends: worker threads of a host place beside the devices, so that device
   * tasks run on the host pool and on the devices in one run (0 or absent: devices only).
   */
  host?: number;
  /**
   * Emulated backend: how many times slower than the host each device runs (one factor per
   * device, each >= 1; absent: 1), to test placement with devices of uneven speed.
   */
  slowdown?: readonly number[];
}

/** The three backends of SPEC §5. */
export type BackendName = 'host' | 'emulated' | 'cuda';

/** A Map: the unit is the user's text (`1constructor` names no unit). */
const UNITS = new Map<string, number>([
  ['', 1], ['b', 1], ['k', 1024], ['kb', 1000], ['kib', 1024], ['m', 2 ** 20], ['mb', 1e6], ['mib', 2 ** 20], ['g', 2 ** 30], ['gb', 1e9], ['gib', 2 ** 30],
]);

/** Parses `8MiB`, `512k`, `1e6`... into bytes. */
export function parseBytes(text: string, what: string): number {
  const m = /^\s*([0-9]*\.?[0-9]+(?:e[0-9]+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = m === null ? undefined : UNITS.get(m[2]!.toLowerCase());
  if (m === null || unit === undefined) throw DeviceErrors.invalid(what, `is not a byte size like 8MiB or 1048576: '${text}'`);
  return Math.floor(Number(m[1]) * unit);
}

/** Parses `TTG_DEVICE` (`backend:devices:memory:streams`; later fields optional, empty ones left out). */
export function parseDeviceEnv(text: string | undefined): DeviceOptions {
  if (text === undefined || text.trim() === '') return {};
  const [backend, devices, memory, streams, ...rest] = text.trim().split(':');
  if (rest.length > 0) throw DeviceErrors.invalid('TTG_DEVICE', `has at most four fields (backend:devices:memory:streams), got '${text}'`);
  const o: DeviceOptions = { backend };
  if (devices !== undefined && devices !== '') o.devices = Number(devices);
  if (memory !== undefined && memory !== '') o.memory = parseBytes(memory, 'TTG_DEVICE memory');
  if (streams !== undefined && streams !== '') o.streams = Number(streams);
  return o;
}

/** Validated device options: code options over the environment's. */
export function resolveOptions(options: DeviceOptions | undefined, env: string | undefined): DeviceOptions & { explicit: boolean } {
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw DeviceErrors.invalid('initialize({ device })', 'must be an object like { backend: "emulated", devices: 2, memory: 8 * 2 ** 20 }');
  }
  const fromEnv = parseDeviceEnv(env);
  const o: DeviceOptions = { ...fromEnv, ...stripUndefined(options ?? {}) };
  if (o.backend !== undefined && !['host', 'emulated', 'cuda'].includes(o.backend)) {
    throw DeviceErrors.invalid('options.device.backend', `must be 'host', 'emulated' or 'cuda', got '${o.backend}'`);
  }
  for (const k of ['devices', 'streams', 'memory'] as const) {
    const v = o[k];
    if (v !== undefined && !(Number.isInteger(v) && v > 0)) throw DeviceErrors.invalid(`options.device.${k}`, `must be a positive integer, got ${String(v)}`);
  }
  if (o.host !== undefined && !(Number.isInteger(o.host) && o.host >= 0)) throw DeviceErrors.invalid('options.device.host', `must be a non-negative integer, got ${String(o.host)}`);
  if (o.slowdown !== undefined && (!Array.isArray(o.slowdown) || o.slowdown.some((f) => typeof f !== 'number' || !(f >= 1)))) {
    throw DeviceErrors.invalid('options.device.slowdown', 'must be an array of factors >= 1, one per device');
  }
  if ((o.host ?? 0) > 0 && o.backend !== 'emulated' && o.backend !== 'cuda') {
    throw DeviceErrors.invalid('options.device.host', "places a host pool beside devices: it needs backend 'emulated' or 'cuda'");
  }
  if (o.slowdown !== undefined && o.backend !== 'emulated') throw DeviceErrors.invalid('options.device.slowdown', "applies to emulated devices: it needs backend 'emulated'");
  return { ...o, explicit: Object.keys(o).length > 0 };
}

function stripUndefined(o: DeviceOptions): DeviceOptions {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as DeviceOptions;
}
