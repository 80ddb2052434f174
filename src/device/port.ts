/**
 * The device layer's side of the core's device seam (`DevicePort`): what `initialize` hands to
 * every world's runtime.
 */
import type { DevicePort } from '../ttg/common/device-port.js';
import './buffer-values.js';
import { toHostValues } from './migrate.js';
import { readByQueuedWork } from './queued-reads.js';
import { deviceRuntime } from './runtime.js';
import { checkSend, nextInStepContext, resolveStep } from './steps.js';
import { abandonDeviceTask, endDeviceTask } from './task-end.js';
import { checkAsyncBody } from './task-context.js';

/** The device port of this process. */
export const devicePort: DevicePort = {
  toHost(values, writable, task) {
    const m = deviceRuntime()?.memory;
    // nothing off the host and no device copy a write could make stale: nothing to do
    if (m === undefined || (m.offHost === 0 && m.copies === 0)) return undefined;
    return toHostValues(m, values, writable, task);
  },
  busy: () => deviceRuntime()?.streams.busy === true,
  hungry: () => deviceRuntime()?.streams.hungry === true,
  readByQueuedWork,
  beforeSend: checkSend,
  resolveStep,
  stepNext: nextInStepContext,
  endTask: endDeviceTask,
  abandonTask: abandonDeviceTask,
  phaseEnded: () => deviceRuntime()?.memory.phaseEnded(),
  checkAsyncBody: (body) => checkAsyncBody(devicePort, body),
  taskContext: undefined,
  calling: undefined,
};
