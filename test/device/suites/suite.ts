/**
 * What a device suite process runs on. Each suite in this folder runs in its own process, started
 * by test/device/backends.test.ts with one `TTG_DEVICE` per run, as C++ TTG builds one test per
 * backend: the device layer belongs to the process and is configured once, by `initialize`.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';

import { parseDeviceEnv } from '../../../src/device/config.js';

const options = parseDeviceEnv(process.env['TTG_DEVICE']);

/** The backend of this run (`TTG_DEVICE`). */
export const backend = (options.backend ?? 'host') as 'host' | 'emulated' | 'cuda';
/** Devices of this run (emulated, or GPUs). */
export const devices = options.devices ?? 1;
/** Streams per device of this run (undefined: the backend's default). */
export const streams = options.streams;

/** Initializes the world (and so the devices of `TTG_DEVICE`) before the enclosing describe. */
export function onSuiteDevices(): void {
  before(async () => {
    await ttg.initialize();
    const s = ttg.device.stats();
    expect(s.backend, 'the backend TTG_DEVICE names').to.equal(backend);
    if (options.devices !== undefined) expect(s.devices, 'devices').to.equal(options.devices);
    if (options.streams !== undefined) expect(s.streams, 'streams per device').to.equal(options.streams);
  });
}
