/**
 * Worlds: this process's place among the ranks, and the lifecycle calls `initialize`, `execute`,
 * `fence` and `finalize`. The default world spans every rank; `World.split` makes sub-worlds with
 * runtimes of their own.
 */
import { devicePort } from '../device/port.js';
import { finalizeDevices, initDevices } from '../device/runtime.js';
import type { DeviceOptions } from '../device/config.js';
import { initHashing } from '../serialize/hash.js';
import { warnAboutBuild } from './build-warning.js';
import { checksumRequested, initChecksum } from './checksum.js';
import { Dispatch } from './dispatch.js';
import { Errors } from './errors.js';
import { fenceRuntime, type FenceOptions } from './fence.js';
import type { FenceReport } from './fence-report.js';
import { loadNative, nativeLoadError } from './native.js';
import { defaultRuntime, Runtime } from './runtime.js';
import { startTracing, stopTracing, traceFileFromEnv, tracer, writeTrace } from './trace.js';
import { LocalTransport } from './transport-local.js';
import { MpiEndpoint } from './mpi-endpoint.js';
import { MpiTransport } from './transport-mpi.js';
import type { Transport } from './transport.js';
import { travelCheckRequested } from './travel-check.js';

export type { FenceOptions };

/** Options of {@link initialize}. */
export interface InitializeOptions {
  /** Device backend settings (see the README's device section). */
  device?: DeviceOptions;
}

/** This process's view of one set of ranks running a program: the default world, or a split of it. */
export class World {
  /** @internal */
  constructor(readonly runtime: Runtime) {}

  /** This process's rank in this world, in `[0, size)`. */
  get rank(): number {
    return this.runtime.rank;
  }

  /** Number of ranks in this world. */
  get size(): number {
    return this.runtime.size;
  }

  /** Starts running this world's tasks (idempotent). */
  execute(): void {
    this.runtime.check('World.execute()');
    this.runtime.scheduler.execute();
  }

  /**
   * Waits until every rank of this world is idle and no message of it is in flight; see
   * {@link fence}. Other worlds of the process run on meanwhile.
   */
  fence(options: FenceOptions = {}): Promise<FenceReport> {
    try {
      this.runtime.check('World.fence()');
    } catch (e) {
      return Promise.reject(e);
    }
    return fenceRuntime(this.runtime, options);
  }

  /**
   * Splits this world, like `MPI_Comm_split`: the ranks that pass the same `color` (an integer
   * >= 0) form a new world, ranked by `key` (default: rank in this world), then by rank. Resolves
   * to this rank's new world, or undefined for a negative color. Collective: every rank of this
   * world calls it, in the same order as its other splits. The new world has its own TTs (make them
   * with `make_tt(..., { world })`), fences, errors and termination detection; it runs alongside
   * this one and ends with `ttg.finalize()`.
   */
  async split(color: number, key: number = this.rank): Promise<World | undefined> {
    const parent = this.runtime;
    parent.check('World.split()');
    if (!Number.isInteger(color)) throw Errors.invalidArgument('World.split(color)', `needs an integer color, got ${String(color)}`, { rank: parent.rank });
    if (!Number.isInteger(key)) throw Errors.invalidArgument('World.split(color, key)', `needs an integer key, got ${String(key)}`, { rank: parent.rank });
    const transport = await parent.transport!.split(color < 0 ? -1 : color, key);
    if (transport === undefined) return undefined;
    const rt = new Runtime(transport instanceof MpiTransport ? transport.worldId : ++localWorlds);
    rt.checkTravel = parent.checkTravel;
    rt.scheduler.tracer = parent.scheduler.tracer;
    rt.start(transport, devicePort, new Dispatch(rt));
    const w = new World(rt);
    rt.world = w;
    splits.push(rt);
    return w;
  }
}

let world: World | undefined;
/** Worlds split off (they end with the default one). */
const splits: Runtime[] = [];
/** Ids of split worlds in a process without MPI (they need none on the wire). */
let localWorlds = 0;

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
  rt.start(transport, devicePort, new Dispatch(rt));
  const traceFile = traceFileFromEnv();
  if (traceFile !== undefined) rt.scheduler.tracer = startTracing(traceFile, transport.rank);
  await initDevices(options.device);
  world = new World(rt);
  rt.world = world;
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
  await finalizeDevices();
  const tr = tracer;
  if (tr !== undefined) {
    const chunks = await rt.transport!.gatherTrace(tr.serialize());
    if (chunks !== undefined) writeTrace(tr.file, chunks);
    rt.scheduler.tracer = undefined;
    stopTracing();
  }
  await rt.transport!.finalize();
  rt.finalized = true;
  for (const sub of splits) sub.finalized = true;
  splits.length = 0;
  world = undefined;
}
