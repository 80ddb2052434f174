/**
 * The lifecycle calls `initialize`, `execute`, `fence` and `finalize` of the default world, which
 * spans every rank. Here the layers meet: it picks the transport and hands the device layer to the core.
 */
import { writeFileSync } from 'node:fs';

import { devicePort } from '../device/port.js';
import { finalizeDevices, initDevices } from '../device/runtime.js';
import type { DeviceOptions } from '../device/config.js';
import { initHashing } from '../serialize/hash.js';
import { warnAboutBuild } from './build-warning.js';
import { checksumRequested, dashboardAddress, reportFile, traceFile, tracingRequested, travelCheckRequested } from '../base/settings.js';
import { startDashboard, type Dashboard } from './dashboard.js';
import { initChecksum } from '../serialize/checksum.js';
import { Errors } from '../base/errors.js';
import type { FenceOptions } from '../ttg/fence.js';
import type { FenceReport } from '../ttg/fence-report.js';
import { loadNative, nativeLoadError } from '../native/addon.js';
import { defaultRuntime } from '../ttg/runtime.js';
import { World } from '../ttg/world.js';
import { mergedEvents, startTracing, stopTracing, tracer, writeTrace, type TraceEvent } from '../ttg/trace.js';
import { renderReport } from '../ttg/report.js';
import { LocalTransport } from '../transport/local.js';
import { MpiEndpoint } from '../transport/endpoint.js';
import { MpiTransport } from '../transport/mpi.js';
import type { Transport } from '../ttg/transport.js';


/** Options of {@link initialize}. */
export interface InitializeOptions {
  /** Device backend settings (see the README's device section). */
  device?: DeviceOptions;
}

let world: World | undefined;
/** The live dashboard, when TTG_DASHBOARD asked for one. */
let dashboard: Dashboard | undefined;

/**
 * Joins the world: under `mpirun` all ranks, otherwise a world of one rank. Call once per process;
 * later calls return the same world.
 */
export async function initialize(options: InitializeOptions = {}): Promise<World> {
  const rt = defaultRuntime();
  if (rt.finalized) throw Errors.finalized('initialize()', rt.rank);
  if (world !== undefined) return world;
  if (typeof options !== 'object' || options === null) throw Errors.invalidArgument('initialize(options)', 'takes an options object');
  warnAboutBuild();
  await initHashing();
  if (checksumRequested()) await initChecksum();
  const transport = chooseTransport();
  rt.checkTravel = travelCheckRequested();
  rt.start(transport, devicePort);
  const trace = traceFile();
  if (tracingRequested()) rt.scheduler.tracer = startTracing(trace, transport.rank);
  const at = dashboardAddress();
  if (at !== undefined) dashboard = await startDashboard(rt, at);
  await initDevices(options.device);
  world = new World(rt);
  return world;
}

/** Ranks announced by an MPI launcher, or 0 when not launched by one. */
function launcherSize(): number {
  const env = process.env;
  const n = env['OMPI_COMM_WORLD_SIZE'] ?? env['PMI_SIZE'] ?? env['PMIX_SIZE'];
  if (n !== undefined) return Number(n);
  return env['PMIX_RANK'] !== undefined || env['PMI_RANK'] !== undefined ? -1 : 0;
}

/** MPI under a launcher with several ranks; otherwise a world of one rank. */
function chooseTransport(): Transport {
  const n = launcherSize();
  if (n === 0 || n === 1) return new LocalTransport(0);
  const native = loadNative();
  if (native === null || !native.info().mpi) {
    const why = native === null ? `the native addon did not load (${nativeLoadError() ?? 'unknown'})` : 'the native addon was built without MPI';
    throw Errors.transport(`launched by mpirun with ${n > 0 ? n : 'several'} ranks, but ${why}: run scripts/install-system-packages.sh, then npm run build:native`, 0);
  }
  return new MpiTransport(new MpiEndpoint(native));
}

/** The default world, or a `TtgError` naming `what` needed it. */
export function currentWorld(what: string): World {
  defaultRuntime().check(what);
  return world!;
}

/** Starts running the default world's tasks, including those made ready before; idempotent. */
export function execute(): void {
  currentWorld('execute()').execute();
}

/**
 * Resolves when every rank is idle and no message is in flight. Rejects with the first error of
 * the run (a body that threw, a bad send...). Tasks still missing inputs do not block it; they are
 * reported (printed to stderr and returned). Collective: every rank calls it the same number of
 * times; no rank leaves a fence before every rank has entered it, and messages that ranks send
 * after it wait on their receiver until its fence has ended.
 */
export function fence(options: FenceOptions = {}): Promise<FenceReport> {
  try {
    return currentWorld('fence()').fence(options);
  } catch (e) {
    return Promise.reject(e);
  }
}

/** Leaves the world (finalizes MPI when running under it). Idempotent. */
export async function finalize(): Promise<void> {
  const rt = defaultRuntime();
  if (rt.finalized || world === undefined) {
    rt.finalized = true;
    return;
  }
  // the dashboard's last summary still sees the devices
  await dashboard?.stop();
  dashboard = undefined;
  await finalizeDevices();
  const tr = tracer;
  if (tr !== undefined) {
    const chunks = await rt.transport!.gatherTrace(tr.serialize());
    if (chunks !== undefined && tr.file !== undefined) writeTrace(tr.file, chunks);
    const report = reportFile();
    if (chunks !== undefined && report !== undefined) writeFileSync(report, renderReport(JSON.parse(mergedEvents(chunks)) as TraceEvent[]));
    rt.scheduler.tracer = undefined;
    stopTracing();
  }
  await rt.transport!.finalize();
  rt.finalized = true;
  rt.finalizeSplits();
  world = undefined;
}
