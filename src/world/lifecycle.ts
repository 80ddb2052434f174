/**
 * The lifecycle calls `initialize`, `execute`, `fence` and `finalize` of the default world, which
 * spans every rank. Here the layers meet: it picks the transport and hands the device layer to the core.
 */
import { devicePort } from '../device/port.js';
import { finalizeDevices, initDevices } from '../device/runtime.js';
import type { DeviceOptions } from '../device/config.js';
import { initHashing } from '../serialize/hash.js';
import { countNonIndexKeysWith } from '../serialize/own-properties.js';
import { warnAboutBuild } from './build-warning.js';
import { checksumRequested, dashboardAddress, reportFile, traceFile, tracingRequested, travelCheckRequested } from '../base/settings.js';
import { startDashboard, type Dashboard } from '../observe/dashboard/dashboard.js';
import { initChecksum } from '../serialize/checksum.js';
import { Errors } from '../base/errors.js';
import { fenceRuntime, type FenceOptions } from '../ttg/phase/fence.js';
import { calledInTask } from '../ttg/collective/in-task.js';
import { CallKind, callsDiffered, someRankCalled } from '../ttg/common/agreement.js';
import { formatReport, waitingIn, type FenceReport } from '../ttg/phase/fence-report.js';
import { loadNative, nativeLoadError } from '../native/addon.js';
import { defaultRuntime, type Runtime } from '../ttg/runtime/runtime.js';
import { World } from '../ttg/world.js';
import { startTracing, stopTracing, tracer } from '../observe/trace.js';
import { fenceProgress } from '../observe/progress.js';
import { watchFences } from '../ttg/phase/fence-watch.js';
import { checkRunFiles, writeRunFiles } from '../observe/run-files.js';
import { LocalTransport } from '../transport/local.js';
import { MpiEndpoint } from '../transport/endpoint.js';
import { MpiTransport } from '../transport/mpi.js';
import type { Transport } from '../ttg/common/transport.js';


/** Options of {@link initialize}. */
export interface InitializeOptions {
  /** Device backend settings (see the README's device section). */
  device?: DeviceOptions;
}

let world: World | undefined;
/** The live dashboard, when TTG_DASHBOARD asked for one. */
let dashboard: Dashboard | undefined;
/** The MPI endpoint under mpirun: its `broken` says a world of this process gave up on a hang. */
let endpoint: MpiEndpoint | undefined;
/** The finalize in progress (a second call waits for the same one). */
let finishing: Promise<void> | undefined;

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
  // the value check clears a typed array's own keys through the addon, not by listing its indices
  const native = loadNative();
  if (native !== null) countNonIndexKeysWith(native.ownNonIndexKeys);
  await initHashing();
  if (checksumRequested()) await initChecksum();
  const transport = chooseTransport();
  rt.checkTravel = travelCheckRequested();
  // the progress line watches the fences of every world of this process, split ones included
  watchFences(fenceProgress);
  rt.start(transport, devicePort);
  if (tracingRequested()) {
    rt.scheduler.tracer = startTracing(traceFile(), reportFile() !== undefined, transport.rank);
    if (transport.rank === 0) checkRunFiles();
  }
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
  endpoint = new MpiEndpoint(native);
  return new MpiTransport(endpoint);
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

/**
 * Leaves the world: first the work of every world still runs to its end (a fence of each world of
 * this rank, the default one first, then the split ones; so a program that forgot its last fence
 * loses nothing), then MPI ends (when running under it). Collective, like a fence. When such a
 * fence rejects (a task failed), MPI still ends properly and finalize then rejects with that
 * error, so the program chooses its exit code. Idempotent.
 */
export function finalize(): Promise<void> {
  const rt = defaultRuntime();
  if (rt.finalized || world === undefined) {
    rt.finalized = true;
    return Promise.resolve();
  }
  // from a task it would wait for the fence that waits for that task: refused, nothing ends
  for (const w of rt.worlds()) {
    const inTask = calledInTask(w, 'finalize()');
    if (inTask !== undefined) return Promise.reject(inTask);
  }
  return (finishing ??= finish(rt));
}

/** The fences of every world, then the end of the devices, the trace and the transport. */
async function finish(rt: Runtime): Promise<void> {
  // Like C++ TTG's finalize (parsec_context_wait), pending work ends before the devices close and
  // the trace is gathered. Every rank fences every one of its worlds whatever happened, so that the
  // ranks make the same collective calls; a fence queues behind one the program has not awaited.
  let failure: unknown;
  worlds: for (const w of [...rt.worlds()]) {
    // a world gave up on a hang: a wave of it may be pending, and the job ends with an abort anyway
    if (endpoint?.broken !== undefined) break;
    if (w.finalized || w.transport === undefined) continue;
    const before = w.phasesEnded === 0 ? -1 : w.scheduler.completed;
    for (;;) {
      try {
        const report = await fenceRuntime(w, { quiet: true });
        // the tasks still waiting were reported by the program's last fence, unless work ran since
        if (waitingIn(report) !== 0 && w.scheduler.completed !== before) console.warn(formatReport(report, w.rank));
      } catch (e) {
        // another rank made another collective call (it got E_COLLECTIVE): this fence did not take
        // place anywhere, and finalize fences again for that rank's next call; but a rank already
        // in the transport's finalize fenced no more than its program did, so no fence would meet it
        if (someRankCalled(e, CallKind.Finalize)) break worlds;
        if (callsDiffered(e)) continue;
        failure ??= e;
      }
      break;
    }
  }
  // the dashboard's last summary still sees the devices
  await dashboard?.stop();
  dashboard = undefined;
  await finalizeDevices();
  const chunks = await gatherRunFiles(rt);
  await rt.transport!.finalize();
  rt.finalized = true;
  rt.finalizeSplits();
  // after MPI ended: a trace or report that cannot be written is a warning, never an abort
  if (chunks !== undefined) writeRunFiles(chunks);
  world = undefined;
  finishing = undefined;
  if (failure !== undefined) throw failure;
}

/** Every rank's trace events and report digest, on rank 0 (undefined elsewhere, or without tracing); stops tracing. */
async function gatherRunFiles(rt: Runtime): Promise<string[] | undefined> {
  const tr = tracer;
  if (tr === undefined) return undefined;
  rt.scheduler.tracer = undefined;
  stopTracing();
  let chunk = '';
  try {
    chunk = tr.serialize();
  } catch (e) {
    console.warn(`ttg: rank ${rt.rank}: the trace and report data could not be serialized (${String(e)}); they go without this rank's`);
  }
  try {
    return await rt.transport!.gatherTrace(chunk);
  } catch (e) {
    console.warn(`ttg: rank ${rt.rank}: the trace and report data could not be gathered (${String(e)}); finalize() goes on without them`);
    return undefined;
  }
}
