/**
 * The runtime of one world: everything that was process-wide state belongs to it, so several
 * worlds (the default one and those made by `World.split`) run side by side in one process, each
 * with its own TTs, scheduler, termination detection, fences and errors.
 */
import type { SequencedKeysConstraint } from '../run/constraint.js';
import type { DevicePort } from '../common/device-port.js';
import { Errors, type TtgError } from '../../base/errors.js';
import { Scheduler } from '../run/scheduler.js';
import type { TraceSink } from '../common/trace-sink.js';
import { Dispatch } from './dispatch.js';
import { Lane } from '../common/lane.js';
import { showError } from './shown-errors.js';
import type { Transport } from '../common/transport.js';
import type { Task, TaskAssembly, TaskRuntime, TTBase } from '../common/model.js';

/** One world's runtime state. TTs hold their runtime; hot paths read its fields. */
export class Runtime implements TaskRuntime {
  /** This process's rank in the world. */
  rank = 0;
  /** Ranks of the world. */
  size = 1;
  /** Set while the world can run tasks (from `initialize` or `split` until `finalize`). */
  transport: Transport | undefined = undefined;
  finalized = false;
  /** Reference counts of values are kept only once some TT consumes inputs or reduces. */
  trackRefs = false;
  /** Deliveries that stay on this rank are encoded and decoded too (TTG_CHECK_SERIALIZE). */
  checkTravel = false;
  /**
   * The task whose body made the latest send, so that a send that cannot be serialized names its
   * sender. Set by each send of a task, not around the body (an async body sends after its call
   * has returned), and cleared by the TT calls a program makes outside any task (`invoke`...).
   */
  sending: Task | undefined = undefined;
  /** The tracer and the track of this world's tasks, when TTG_TRACE is set. */
  tracer: TraceSink | undefined = undefined;
  /** The TTs with a reducing input whose streams end at the fence, by id (fence-streams.ts). */
  fenceTTs: TTBase[] = [];
  /** The order of this world's fences, splits and collectives (see lane.ts). */
  readonly lane = new Lane();
  /** Fences started (the hang watchdog's votes name the fence). */
  fences = 0;
  /**
   * Phases ended on this rank: a fence's turn raises it where its phase ends (fence.ts, next to
   * `transport.endFence()`), before the fence's promise settles. Collectors show what arrived before.
   */
  phasesEnded = 0;
  /** Told the first error of each run raised on this rank (the live dashboard); split worlds inherit it. */
  watchErrors: ((err: TtgError) => void) | undefined = undefined;
  /** When the fence in progress started (`performance.now()`), else undefined. */
  fenceSince: number | undefined = undefined;
  /** Runs that failed (their pending work was dropped): state kept per run is stale when this moved. */
  failedRuns = 0;
  /** The public `World` object of this runtime (set by the world layer). */
  world: unknown = undefined;
  /** The device layer, shared by the worlds of a process (undefined: no device support). */
  device: DevicePort | undefined = undefined;
  readonly scheduler: Scheduler;
  /** Assemblies of this world's TTs that may hold pending tasks, for fence reports. */
  readonly live = new Set<TaskAssembly>();
  /** Constraints used by TTs of this world, for fence reports. */
  readonly constraints = new Set<SequencedKeysConstraint<never>>();
  private readonly byId = new Map<number, WeakRef<TTBase>>();
  private readonly forget = new FinalizationRegistry<number>((id) => this.byId.delete(id));
  private nextId = 0;
  private readonly parked = new Map<number, Array<() => void>>();
  private readonly splits: Runtime[] = [];

  constructor(
    /** World id: 0 for the default world, agreed by all members for a split one. */
    readonly id: number,
  ) {
    this.scheduler = new Scheduler(this);
  }

  /** Starts the world over `transport`: tasks can run from now on. */
  start(transport: Transport, device: DevicePort | undefined): void {
    this.transport = transport;
    this.rank = transport.rank;
    this.size = transport.size;
    this.device = device;
    this.scheduler.device = device;
    transport.attach(new Dispatch(this));
    this.scheduler.onFirstError = (err) => {
      showError(this, err);
      transport.announceFailure(err);
    };
  }

  /** This world and the worlds split off it, and theirs. */
  *worlds(): IterableIterator<Runtime> {
    yield this;
    for (const sub of this.splits) yield* sub.worlds();
  }

  /** The task whose body runs now (synchronously) in this world or a world split off it, if any. */
  bodyRunning(): Task | undefined {
    const t = this.scheduler.inBody;
    if (t !== undefined) return t;
    for (let i = 0; i < this.splits.length; i++) {
      const s = this.splits[i]!.bodyRunning();
      if (s !== undefined) return s;
    }
    return undefined;
  }

  /** Splits this world (collective): the runtime of this rank's new world, or undefined. */
  async split(color: number, key: number): Promise<Runtime | undefined> {
    const transport = await this.transport!.split(color, key);
    if (transport === undefined) return undefined;
    const rt = new Runtime(transport.worldId);
    rt.checkTravel = this.checkTravel;
    rt.scheduler.tracer = this.scheduler.tracer;
    rt.scheduler.watch(this.scheduler.sampler);
    rt.watchErrors = this.watchErrors;
    rt.start(transport, this.device);
    this.splits.push(rt);
    return rt;
  }

  /** Ends the worlds split off this one (they end with it). */
  finalizeSplits(): void {
    for (const sub of this.splits) {
      sub.finalizeSplits();
      sub.finalized = true;
    }
    this.splits.length = 0;
  }

  /** True between the world's start and its finalize. */
  get running(): boolean {
    return this.transport !== undefined && !this.finalized;
  }

  /** Throws the error for using this world before it started or after it ended. */
  check(what: string): void {
    if (this.finalized) throw Errors.finalized(what, this.rank);
    if (this.transport === undefined) throw Errors.notInitialized(what);
  }

  /**
   * Assigns the next TT id. Ids follow creation order, so every rank of an SPMD program gives the
   * same TT the same id; messages name TTs by id. Held weakly: an unreferenced graph is collected.
   */
  registerTT(tt: TTBase): number {
    const id = this.nextId++;
    this.byId.set(id, new WeakRef(tt));
    this.forget.register(tt, id);
    return id;
  }

  /** The TTs of this world still alive on this rank. */
  *liveTTs(): IterableIterator<TTBase> {
    for (const ref of this.byId.values()) {
      const tt = ref.deref();
      if (tt !== undefined) yield tt;
    }
  }

  /** The TT with `id`, if it is still alive on this rank. */
  ttById(id: number): TTBase | undefined {
    return this.byId.get(id)?.deref();
  }

  /**
   * Whether a TT with `id` may still appear here: ranks build their graphs at their own pace, so a
   * message can arrive before this rank has made (or made executable) the TT it names.
   */
  ttIsFuture(id: number): boolean {
    return id >= this.nextId;
  }

  /** Runs `fn` once TT `id` has been made executable on this rank. */
  whenExecutable(id: number, fn: () => void): void {
    let list = this.parked.get(id);
    if (list === undefined) this.parked.set(id, (list = []));
    list.push(fn);
  }

  /** Called by `make_graph_executable`: replays what arrived early for TT `id`. */
  flushParked(id: number): void {
    const list = this.parked.get(id);
    if (list === undefined) return;
    this.parked.delete(id);
    for (const fn of list) fn();
  }

  /** Messages waiting for a TT that is not executable here yet, per TT id (for hang reports). */
  parkedMessages(): Array<[id: number, count: number]> {
    return [...this.parked].map(([id, list]) => [id, list.length]);
  }
}

let fallback: Runtime | undefined;

/**
 * The runtime of the default world (`ttg.initialize()`): TTs made without a `world` option
 * belong to it, also when they are made before `initialize`.
 */
export function defaultRuntime(): Runtime {
  return (fallback ??= new Runtime(0));
}
