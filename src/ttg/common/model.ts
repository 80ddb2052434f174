/**
 * The objects of the TTG model as the rooms of src/ttg see one another: a task, its TT, the TT's
 * inputs, edges and constraints, its tasks on this rank and the runtime of its world. They point
 * at one another both ways (a task at its TT, the TT's assembly back at its tasks), so they are
 * declared here together, below every room; the classes that implement them live in the rooms
 * that make them (run/task.ts, run/assembly.ts, run/constraint.ts, wiring/, runtime/runtime.ts,
 * tt.ts), and a room sees a class above it only through these. They hold exactly the members
 * that some room reads across: hot paths read the same fields as before, at no cost.
 */
import type { BodyKind } from './body.js';
import type { Transport } from './transport.js';

/** One task instance: a TT, a key and the inputs collected so far (the run room's TaskInstance). */
export interface Task {
  /** Queue order: higher first. */
  prio: number;
  /** Arrival order among equal priorities (set by the ready queue). */
  seq: number;
  /** Bit i set when input terminal i is complete. */
  got: number;
  /** Input terminals still incomplete. */
  missing: number;
  /** Stream state of reducing inputs: `[2i]` values received on input i, `[2i+1]` values expected (-1 while unknown). */
  streams: number[] | undefined;
  /** Index of the next constraint of the TT this task has to pass. */
  gate: number;
  /** Links of the scheduler's list of suspended tasks; undefined while not suspended. */
  prevSuspended: Task | undefined;
  /** See {@link Task.prevSuspended}. */
  nextSuspended: Task | undefined;
  /** Given up by a fence that reported a hang: its late completion and its late sends are ignored. */
  abandoned: boolean;
  /** Device-task state, owned by the device layer. */
  deviceState: unknown;
  /** The iterator of a `function*` body parked on a device step. */
  parkedOn: Iterator<unknown> | undefined;
  /** The template task this is an instance of. */
  readonly tt: TTBase;
  /** The task's key. */
  readonly key: unknown;
  /** Input values, one per input terminal. */
  readonly args: unknown[];
  /** Resumes the body parked on a device step that has completed (`error` is thrown into it). */
  resumeParked(error?: unknown): void;
}

/** A TT of any key and edge types, as the runtime sees it (tt.ts's TT; C++ TTG's TTBase). */
export interface TTBase {
  /** Name used in errors, traces and `ttg.dot()`. */
  readonly name: string;
  /** Its id in its world: its place in the order in which the program makes TTs. */
  readonly id: number;
  /** The body, called by the scheduler as its {@link kind} says. */
  readonly body: Function;
  /** How the scheduler drives the body. */
  readonly kind: BodyKind;
  /** Its input terminals, by index. */
  readonly inputs: readonly InputSlot[];
  /** The edges feeding its inputs, by index (a fused edge stands for several). */
  readonly inputEdges: readonly EdgeBase[];
  /** The edges its output terminals write to, by index. */
  readonly outputs: readonly EdgeBase[];
  /** Bit i set when input i is consumable. */
  readonly consumeMask: number;
  /** Bit i set when output terminal i feeds an edge marked `{ control: true }`. */
  readonly controlOutputs: number;
  /** Its async bodies made a device step: its tasks are device tasks (set by src/device). */
  deviceBodies: boolean;
  /** A task of it took a stream: its ready tasks go first while a stream is short of work (set by src/device). */
  feedsDevice: boolean;
  /** The scheduler asked the device layer whether its async body needs its task context. */
  contextChecked: boolean;
  /** Made executable by `make_graph_executable`. */
  readonly executable: boolean;
  /** Its tasks that ran to completion on this rank. */
  runs: number;
  /** Its tasks in the scheduler's ready queue, counted only while the live dashboard watches. */
  queued: number;
  /** Its tasks held by constraints on this rank. */
  held: number;
  /** What a fence report says of a pending task's unfinished reducing input, beside its count of values. */
  readonly describeInput: ((key: any, terminal: number, acc: unknown) => string) | undefined;
  /** Orders its ready tasks: higher first (undefined: all 0). */
  readonly priomap: ((key: any) => number) | undefined;
  /** Where its device tasks may run. */
  readonly placement: 'any' | 'host' | 'devices';
  /** The constraints its ready tasks pass, in order. */
  readonly gates: readonly Gate[];
  /** The runtime of its world. */
  readonly rt: TaskRuntime;
  /** Its tasks on this rank. */
  readonly assembly: TaskAssembly;
  /** Whether its keys may live on other ranks (so senders must ask {@link ownerOf}). */
  readonly isRouted: boolean;
  /** The rank that owns task `key`. */
  ownerOf(key: unknown): number;
  /** The device hint for `key`, or undefined when no hint was set. */
  devicehint(key: unknown): number | undefined;
  /** A value for input `idx` of task `key`, from a send anywhere in this process (`transfer`: it leaves its sender for good). */
  deliver(idx: number, key: unknown, value: unknown, transfer: boolean): void;
  /** Sets how many values reducing input `idx` expects for `key`, wherever the task lives. */
  setStreamSize(idx: number, key: unknown, n: number): void;
  /** Ends the stream of reducing input `idx` for `key`, wherever the task lives. */
  finalizeStream(idx: number, key: unknown): void;
}

/** An input terminal of a TT (wiring/input-terminal.ts's InputTerminal). */
export interface InputSlot {
  /** The TT it belongs to. */
  readonly tt: TTBase;
  /** Position among the TT's inputs. */
  readonly index: number;
  /** Name of the edge feeding it. */
  readonly edgeName: string;
  /** Its reducer; undefined for a plain input. */
  readonly reducer: ((acc: unknown, value: unknown) => unknown) | undefined;
  /** Stream size for every key, -1 when per key. */
  readonly staticCount: number;
  /** Stream size of each key, asked when its task is made. */
  readonly countOf: ((key: unknown) => number) | undefined;
  /** Each key's stream ends at the world's next fence. */
  readonly untilFence: boolean;
}

/** An output terminal of a TT that writes to an edge. */
export interface EdgeSource {
  /** The TT. */
  readonly tt: TTBase;
  /** The output terminal's index. */
  readonly index: number;
}

/** An edge, as the runtime follows it (wiring/edge.ts's Edge). */
export interface EdgeBase {
  /** Name shown in errors and in `ttg.dot()`. */
  readonly name: string;
  /** The input terminals it feeds. */
  readonly sinks: readonly InputSlot[];
  /** The output terminals that write to it. */
  readonly sources: readonly EdgeSource[];
  /** The edges it stands for when used as an input (itself, or a fused set). */
  members(): readonly EdgeBase[];
}

/** A constraint a TT's ready tasks pass (run/constraint.ts's SequencedKeysConstraint). */
export interface TaskConstraint {
  /** True if `t`, at `ordinal`, may run now; otherwise the constraint keeps it until it opens. */
  admit(t: Task, ordinal: number): boolean;
  /** A task it admitted has finished. */
  done(): void;
}

/** One constraint of a TT, with the mapper of its keys to ordinals. */
export interface Gate {
  /** The constraint. */
  readonly c: TaskConstraint;
  /** The ordinal of task `key`. */
  map(key: unknown): number;
}

/** The tasks of one TT on this rank (run/assembly.ts's Assembly). */
export interface TaskAssembly {
  /** The TT. */
  readonly tt: TTBase;
  /** Listed in its runtime's {@link TaskRuntime.live} (it may hold pending tasks). */
  live: boolean;
  /** Stores a value for input `idx` of task `key`, owned by this rank. */
  receive(idx: number, key: unknown, value: unknown): void;
  /** Runs a TT without inputs for `key` on this rank. */
  invokeLocal(key: unknown): void;
  /** Reducing input `idx` of task `key` (owned here) gets no more values. */
  finalizeStream(idx: number, key: unknown): void;
  /** A constraint let `t` through: it goes on to the next one, then to the scheduler. */
  admitted(t: Task): void;
  /** `t` finished (or was dropped): what it held is released. */
  taskDone(t: Task): void;
  /** Gives consumable inputs that others still hold a private copy before the body runs. */
  privatize(t: Task): void;
  /** Brings to the host the consumable inputs of device task `t` that it must copy. */
  sharedToHost(dev: DeviceChecks, t: Task): PromiseLike<void> | undefined;
  /** Its tasks still missing inputs. */
  pendingTasks(): IterableIterator<Task>;
  /** How many tasks miss inputs. */
  pendingCount(): number;
  /** Drops pending tasks (after a failed run). */
  clearPending(): void;
}

/** What a world's tasks ask of the device layer (part of common/device-port.ts's DevicePort). */
export interface DeviceChecks {
  /**
   * Makes every buffer reachable from `values` valid on the host before a plain or async body
   * runs (or before the values are serialized for another rank); the buffers of the values whose
   * bit is set in `writable` (a host task's consumable inputs) lose their device copies, since
   * the body may write them; with `task`, the others are checked for writes when it ends (in
   * `task.deviceState`). Returns a promise only when a copy had to be started.
   */
  toHost(values: readonly unknown[], writable: number, task?: Task): PromiseLike<void> | undefined;
  /** Whether a buffer inside `value` is still read by queued device work: a consumer then gets a private copy. */
  readByQueuedWork(value: unknown): boolean;
  /** Checks what a task with device state sends (throws when it sends a buffer still being written). */
  beforeSend(task: Task, value: unknown): void;
}

/** What a TT's tasks and assembly ask of the scheduler of their world (run/scheduler.ts's Scheduler). */
export interface TaskScheduler {
  /** Queues a ready task. */
  enqueue(t: Task): void;
  /** `t` never ran (its constraint mapper or priomap threw): fails the run with `e`. */
  reject(t: Task, e: unknown): void;
  /** Resumes a body parked on a device step (`error` is thrown into it). */
  resumeParked(t: Task, error?: unknown): void;
}

/** The runtime of a TT's world, as its tasks and assembly see it (runtime/runtime.ts's Runtime). */
export interface TaskRuntime {
  /** This process's rank in the world. */
  readonly rank: number;
  /** Reference counts of values are kept (some TT consumes inputs or reduces). */
  readonly trackRefs: boolean;
  /** Deliveries that stay on this rank are encoded and decoded too (TTG_CHECK_SERIALIZE). */
  readonly checkTravel: boolean;
  /** Set while the world can run tasks. */
  readonly transport: Transport | undefined;
  /** The device layer, if any. */
  readonly device: DeviceChecks | undefined;
  /** The task whose body made the latest send (errors of a send name it). */
  sending: Task | undefined;
  /** Assemblies that may hold pending tasks, for fence reports. */
  readonly live: Set<TaskAssembly>;
  /** The world's scheduler. */
  readonly scheduler: TaskScheduler;
}
