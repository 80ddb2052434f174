/**
 * The device layer's places as the live dashboard shows them (summary.ts's DeviceNote):
 * memory in use, pinned and capacity, evictions, bytes copied each way, kernels, the time device
 * tasks worked, and the device tasks on each stream now.
 */
import { stats } from '../../device/api.js';
import { deviceRuntime } from '../../device/runtime.js';
import type { DeviceNote } from './summary.js';

/** This rank's places now (empty while the device layer is off). */
export function deviceNotes(): DeviceNote[] {
  const r = deviceRuntime();
  if (r === undefined) return [];
  const s = stats();
  return s.per_device.map((d, i) => ({
    place: d.place === 'host' ? 'host place' : `${s.backend} ${i}`,
    used: d.used_bytes, capacity: Number.isFinite(d.capacity) ? d.capacity : 0, pinned: d.pinned_bytes,
    evictions: d.evictions, h2d: d.h2d_bytes, d2h: d.d2h_bytes, kernels: d.kernels, busyMs: d.busy_ms,
    streams: (r.streams.byDevice[i] ?? []).map((st) => st.load),
  }));
}
