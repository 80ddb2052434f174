/**
 * The world: this process's place among the ranks, and the lifecycle calls `initialize`,
 * `execute`, `fence` and `finalize`.
 */
import { initHashing } from '../serialize/hash.js';
import { warnAboutBuild } from './build-warning.js';
import { checksumRequested, initChecksum } from './checksum.js';
import { Errors } from './errors.js';
import { clearPending, collectReport, formatReport, type FenceReport } from './fence-report.js';
import { rt } from './runtime.js';
import { hooks, type DeviceOptions } from './hooks.js';
import { scheduler } from './scheduler.js';
import { loadNative, nativeLoadError } from './native.js';
import { travelCheckRequested } from './travel-check.js';
import { startTracing, stopTracing, traceFileFromEnv, tracer, writeTrace } from './trace.js';
import { LocalTransport, type Transport } from './transport.js';
import { MpiTransport } from './transport-mpi.js';
import { hangTimeout, Watchdog } from './watchdog.js';

/** Options of {@link initialize}. */
export interface InitializeOptions {
  /** Device backend settings (see the README's device section). */
  device?: DeviceOptions;
}

/** Options of {@link fence}. */
export interface FenceOptions {
  /** Reject with `E_INCOMPLETE` when tasks still miss inputs (default: report and resolve). */
  strict?: boolean;
  /** Do not print the report of incomplete tasks to stderr. */
  quiet?: boolean;
}

/** This process's view of the set of ranks running the program. */
export class World {
  /** @internal */
  constructor(private readonly transport: Transport) {}

  /** This process's rank, in `[0, size)`. */
  get rank(): number {
    return this.transport.rank;
  }

  /** Number of ranks. */
  get size(): number {
    return this.transport.size;
  }

  /** Starts running tasks (idempotent). */
  execute(): void {
    execute();
  }

  /** Waits for global quiescence; see {@link fence}. */
  fence(options?: FenceOptions): Promise<FenceReport> {
    return fence(options);
  }
}

let world: World | undefined;

/**
 * Joins the world: under `mpirun` all ranks, otherwise a world of one rank. Call once per process;
 * later calls return the same world.
 */
export async function initialize(options: InitializeOptions = {}): Promise<World> {
  if (rt.finalized) throw Errors.finalized('initialize()', rt.rank);
  if (world !== undefined) return world;
  if (typeof options !== 'object' || options === null) throw Errors.invalidArgument('initialize(options)', 'takes an options object');
  warnAboutBuild();
  await initHashing();
  if (checksumRequested()) await initChecksum();
  const transport = chooseTransport();
  rt.transport = transport;
  rt.checkTravel = travelCheckRequested();
  rt.rank = transport.rank;
  rt.size = transport.size;
  const traceFile = traceFileFromEnv();
  if (traceFile !== undefined) scheduler.tracer = startTracing(traceFile, transport.rank);
  if (hooks.initDevices !== undefined) await hooks.initDevices(options.device);
  rt.initialized = true;
  world = new World(transport);
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
  if (n === 0 || n === 1) return new LocalTransport();
  const native = loadNative();
  if (native === null || !native.info().mpi) {
    const why = native === null ? `the native addon did not load (${nativeLoadError() ?? 'unknown'})` : 'the native addon was built without MPI';
    throw Errors.transport(`launched by mpirun with ${n > 0 ? n : 'several'} ranks, but ${why}: run scripts/install-system-packages.sh, then npm run build:native`, 0);
  }
  return new MpiTransport(native);
}

/** The world, or a `TtgError` naming `what` needed it. */
export function currentWorld(what: string): World {
  if (rt.finalized) throw Errors.finalized(what, rt.rank);
  if (world === undefined) throw Errors.notInitialized(what);
  return world;
}

/** Starts running tasks, including those made ready before; idempotent. */
export function execute(): void {
  currentWorld('execute()');
  scheduler.execute();
}

/**
 * Resolves when every rank is idle and no message is in flight. Rejects with the first error of
 * the run (a body that threw, a bad send...). Tasks still missing inputs do not block it; they are
 * reported (printed to stderr and returned). Collective: every rank calls it the same number of
 * times; no rank leaves a fence before every rank has entered it, and messages that ranks send
 * after it wait on their receiver until its fence has ended.
 */
export async function fence(options: FenceOptions = {}): Promise<FenceReport> {
  currentWorld('fence()');
  scheduler.execute();
  const transport = rt.transport!;
  try {
    return await closePhase(transport, options);
  } finally {
    transport.endFence();
  }
}

/** The part of {@link fence} that belongs to the phase it ends. */
async function closePhase(transport: Transport, options: FenceOptions): Promise<FenceReport> {
  const dog = new Watchdog(++fences, hangTimeout(), transport);
  try {
    await Promise.race([transport.quiesce(settleLocal), dog.hung]);
  } catch (e) {
    // a hang (or a world that hung before): nothing of this run can complete any more
    scheduler.takeError();
    clearPending();
    throw e;
  } finally {
    dog.stop();
  }
  const err = scheduler.takeError();
  if (err !== undefined) {
    clearPending();
    throw err;
  }
  const report = collectReport();
  const waiting = report.incomplete.length + report.held.length;
  if (waiting !== 0 && options.strict === true) {
    throw Errors.incomplete(report.incomplete.length, formatReport(report, rt.rank, 3), rt.rank);
  }
  if (waiting !== 0 && options.quiet !== true) console.warn(formatReport(report, rt.rank));
  return report;
}

/** Fences started by this process (the hang watchdog's votes name the fence). */
let fences = 0;

/**
 * Resolves when this rank is idle and stays idle across one macrotask turn, so promise callbacks
 * that user code queued (and that may invoke more tasks) have run.
 */
async function settleLocal(): Promise<void> {
  for (;;) {
    await scheduler.whenIdle();
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (scheduler.isIdle()) return;
  }
}

/** Leaves the world (finalizes MPI when running under it). Idempotent. */
export async function finalize(): Promise<void> {
  if (rt.finalized || world === undefined) {
    rt.finalized = true;
    return;
  }
  if (hooks.finalizeDevices !== undefined) await hooks.finalizeDevices();
  const tr = tracer;
  if (tr !== undefined) {
    const chunks = await rt.transport!.gatherTrace(tr.serialize());
    if (chunks !== undefined) writeTrace(tr.file, chunks);
    scheduler.tracer = undefined;
    stopTracing();
  }
  await rt.transport!.finalize();
  rt.finalized = true;
  rt.initialized = false;
  world = undefined;
}
