/**
 * Template tasks: `make_tt(body, inputs, outputs, options)` describes a family of tasks, one per
 * key: the body, the wiring, placement, order and constraints. Where each value goes is decided
 * here; collecting the values of a key into a task is its {@link Assembly}'s work.
 */
import { causeText, Errors } from '../base/errors.js';
import { hashKey } from '../serialize/hash.js';
import { Assembly } from './run/assembly.js';
import { BodyKind, bodyKind } from './common/body.js';
import type { OrdinalMapper, SequencedKeysConstraint } from './run/constraint.js';
import { Edge, FusedEdge } from './wiring/edge.js';
import { InputPort, type FeedOp } from './wiring/input-port.js';
import { InputTerminal, type Reducer } from './wiring/input-terminal.js';
import { defaultRuntime, Runtime } from './runtime/runtime.js';
import type { AnyEdge, Body, Indices, InvokeValues, KeyOf, ValueOf } from './wiring/types.js';
import { Wire } from './common/wire.js';
import type { World } from './world.js';

/** Options of {@link make_tt}. */
export interface TTOptions {
  /** Name used in errors, traces and `ttg.dot()`. */
  name?: string;
  /** Input terminals whose values the body may mutate (copy-on-write, see README). */
  consume?: readonly number[];
  /** The world whose tasks these are (default: the world of `ttg.initialize()`). */
  world?: World;
}

/** A template task: the body plus its wiring, keyed by `K`. */
export class TT<K = unknown, Ins extends readonly AnyEdge[] = readonly AnyEdge[], Outs extends readonly AnyEdge[] = readonly AnyEdge[]> {
  /** Name used in errors, traces and `ttg.dot()`. */
  readonly name: string;
  /** @internal */ readonly id: number;
  /** @internal */ readonly body: Function;
  /** @internal */ readonly kind: BodyKind;
  /** @internal */ readonly inputs: InputTerminal[];
  /** @internal */ readonly inputEdges: readonly AnyEdge[];
  /** @internal */ readonly outputs: readonly AnyEdge[];
  /** @internal bit i set when input i is consumable */
  consumeMask = 0;
  /**
   * @internal Set by src/device once an async body of this TT made a device step: its tasks are
   * device tasks, whose inputs are not brought to the host before the body runs.
   */
  deviceBodies = false;
  /**
   * @internal Set by src/device once a task of this TT took a stream: its ready tasks go first
   * while a stream is short of work (ready-tasks.ts).
   */
  feedsDevice = false;
  /**
   * @internal What a fence report says of a pending task's unfinished reducing input, beside its
   * count of values (the keyed all-reduce names the partials that arrived and those missing).
   */
  describeInput: ((key: any, terminal: number, acc: unknown) => string) | undefined = undefined;
  /** @internal The scheduler asked src/device whether this TT's async body needs its task context. */
  contextChecked = false;
  /** @internal */ executable = false;
  /** @internal Its tasks that ran to completion on this rank (the live dashboard's counts). */
  runs = 0;
  /**
   * @internal Its tasks in the scheduler's ready queue, kept only while the live dashboard watches
   * the scheduler (Scheduler.watch; 0 otherwise).
   */
  queued = 0;
  /** @internal Its tasks held by constraints on this rank (constraint.ts keeps it). */
  held = 0;
  /** @internal The runtime of the world this TT belongs to. */
  readonly rt: Runtime;
  /** @internal Its tasks on this rank: input assembly and lifecycle. */
  readonly assembly: Assembly;
  /** @internal Constraints its ready tasks pass, in order. */
  readonly gates: Array<{ c: SequencedKeysConstraint<K>; map: OrdinalMapper<K> }> = [];
  /** @internal */ priomap: ((key: K) => number) | undefined = undefined;
  /** @internal Where its device tasks may run (see {@link TT.set_placement}). */
  placement: 'any' | 'host' | 'devices' = 'any';
  /** @internal Bit i: output terminal i feeds an edge marked `{ control: true }`. */
  readonly controlOutputs: number;
  private routed = false;
  private procmap: ((key: K) => number) | undefined = undefined;
  private devicemap: ((key: K) => number) | undefined = undefined;

  /** @internal use {@link make_tt} */
  constructor(rt: Runtime, body: Function, inputs: readonly AnyEdge[], outputs: readonly AnyEdge[], options: TTOptions) {
    this.rt = rt;
    this.id = rt.registerTT(this as TTImpl);
    this.name = options.name ?? `tt${this.id}`;
    this.body = body;
    this.kind = bodyKind(body);
    this.inputEdges = inputs;
    this.outputs = outputs;
    this.inputs = inputs.map((e, i) => new InputTerminal(this as TTImpl, i, e.name, e.control));
    this.controlOutputs = outputs.reduce((m, e, i) => (e.control ? m | (1 << i) : m), 0);
    // more parameters than (key, one per input, out): the body was written for other inputs
    if (body.length > inputs.length + 2) throw Errors.bodyArity(this.name, body.length, inputs.length, this.rt.rank);
    for (const c of options.consume ?? []) {
      if (!Number.isInteger(c) || c < 0 || c >= inputs.length) throw Errors.inputRange(this.name, c, inputs.length, this.rt.rank);
      this.consumeMask |= 1 << c;
      this.rt.trackRefs = true;
    }
    inputs.forEach((e, i) => {
      for (const m of e.members()) m.sinks.push(this.inputs[i]!);
    });
    outputs.forEach((e, i) => e.sources.push({ tt: this as TTImpl, index: i }));
    this.assembly = new Assembly(this as TTImpl);
  }

  /** The world this TT runs in. */
  get_world(): World {
    this.rt.check('TT.get_world()');
    return this.rt.world as World;
  }

  /**
   * Supplies all inputs of task `key` at once and routes it to its owner rank: one value per input
   * terminal (`undefined` for control inputs), or no values when every input is a control edge
   * (`tt.invoke(key)`; `tt.invoke()` for a keyless TT).
   */
  invoke(key: K, ...values: InvokeValues<Ins>): void {
    if (!this.rt.running) this.rt.check('TT.invoke()');
    this.rt.sending = undefined;
    if (!this.executable) throw Errors.notExecutable(this.name, this.rt.rank);
    const n = this.inputs.length;
    // no values: the types allow it only for control inputs, and each of those receives undefined
    if (values.length !== n && values.length !== 0) throw Errors.arity(this.name, n, values.length, key, this.rt.rank);
    if (values.length === 0 ? this.inputs.some((t) => t.control) && !this.inputs.every((t) => t.control) : this.inputs.some((t, i) => t.control && values[i] !== undefined)) {
      this.refuseControl(key, values);
    }
    if (n === 0) {
      const owner = this.routed ? this.ownerOf(key) : this.rt.rank;
      if (owner !== this.rt.rank) this.rt.transport!.sendControl(owner, [Wire.Invoke, this.id, key]);
      else this.assembly.invokeLocal(key);
      return;
    }
    for (let i = 0; i < n; i++) this.deliver(i, key, values[i], false);
  }

  /**
   * Where this TT's device tasks may run when the run has a host place beside its devices
   * (`initialize({ device: { backend: 'emulated', host: N } })`): `'any'` (the default: the place
   * where a task is expected to finish first), `'host'` or `'devices'`. A devicehint wins.
   */
  set_placement(where: 'any' | 'host' | 'devices'): this {
    if (where !== 'any' && where !== 'host' && where !== 'devices') {
      throw Errors.invalidArgument('set_placement', `takes 'any', 'host' or 'devices', got ${String(where)}`, { tt: this.name });
    }
    this.placement = where;
    return this;
  }

  /**
   * Input `i`, to feed from the main program: `tt.in(0).send(key, value)`, `sendk(key)` for a
   * control input, `sendv(value)` for a keyless TT, `broadcast(keys, value)`, and `set_size` /
   * `finalize` for a reducing input. The value goes to the rank that owns the key, as a task's
   * send would; the graph must be executable.
   */
  in<I extends Indices<Ins>>(i: I): InputPort<K, ValueOf<Ins[I]>> {
    this.terminal(i);
    return new InputPort(this, i);
  }

  /** The E_ARITY or E_INVALID_ARGUMENT of an invoke that does not match the inputs marked control. */
  private refuseControl(key: unknown, values: readonly unknown[]): never {
    if (values.length === 0) {
      const data = this.inputs.find((t) => !t.control)!;
      throw Errors.arityControl(this.name, data.index, data.edgeName, key, this.rt.rank);
    }
    const t = this.inputs.find((x, i) => x.control && values[i] !== undefined)!;
    throw Errors.valueOnControl(`invoke(key, ...values): value ${t.index}`, t.edgeName, { tt: this.name, terminal: t.index, key, rank: this.rt.rank });
  }

  /** @internal What an {@link InputPort} does: `op` of input `idx` for `key` from outside a task. */
  feed(op: FeedOp, idx: number, key: unknown, value: unknown): void {
    if (!this.rt.running) this.rt.check(`TT.in(${idx}).${op}()`);
    this.rt.sending = undefined;
    if (!this.executable) throw Errors.notExecutable(this.name, this.rt.rank);
    if (value !== undefined && (op === 'send' || op === 'sendv' || op === 'broadcast') && this.inputs[idx]!.control) {
      throw Errors.valueOnControl(`in(${idx}).${op}()`, this.inputs[idx]!.edgeName, { tt: this.name, terminal: idx, key, rank: this.rt.rank });
    }
    if (op === 'set_size') this.setStreamSize(idx, key, value as number);
    else if (op === 'finalize') this.finalizeStream(idx, key);
    else this.deliver(idx, key, value, false);
  }

  /**
   * Makes input `i` a reducing input: values are folded with `reducer(acc, value)` (the first
   * value is the initial `acc`). With `count`, every key's stream completes after that many values;
   * `count` may be a function of the key (a stream of 0 values is complete at once, its input
   * undefined), e.g. the number of neighbours of a block. With `'fence'`, each key's stream ends at
   * the world's next fence, once nothing else is left to run or in flight anywhere (a per-key
   * reduction of unknown size; the fence then runs those tasks and waits for what they start).
   * Otherwise use `set_argstream_size` or `finalize_argstream` per key.
   */
  set_input_reducer<I extends Indices<Ins>>(i: I, reducer: Reducer<ValueOf<Ins[I]>>, count?: number | ((key: K) => number) | 'fence'): this {
    const term = this.terminal(i);
    if (typeof reducer !== 'function') throw Errors.invalidArgument('set_input_reducer reducer', 'must be a function (acc, value) => acc', { tt: this.name, terminal: i });
    if (count !== undefined && count !== 'fence' && typeof count !== 'function' && !(Number.isInteger(count) && count >= 1)) {
      throw Errors.invalidArgument('set_input_reducer count', `must be a positive integer, a function of the key or 'fence', got ${String(count)}`, { tt: this.name, terminal: i });
    }
    term.reducer = reducer as Reducer<unknown>;
    term.staticCount = typeof count === 'number' ? count : -1;
    term.countOf = typeof count === 'function' ? (count as (key: unknown) => number) : undefined;
    term.untilFence = count === 'fence';
    if (term.untilFence && !this.rt.fenceTTs.includes(this as TTImpl)) this.rt.fenceTTs = [...this.rt.fenceTTs, this as TTImpl].sort((a, b) => a.id - b.id);
    this.assembly.reconfigure();
    this.rt.trackRefs = true;
    return this;
  }

  /** Sets how many values reducing input `i` expects for `key`. */
  set_argstream_size<I extends Indices<Ins>>(i: I, key: K, n: number): void {
    this.rt.sending = undefined;
    this.setStreamSize(i, key, n);
  }

  /** Declares that reducing input `i` gets no more values for `key`. */
  finalize_argstream<I extends Indices<Ins>>(i: I, key: K): void {
    this.rt.sending = undefined;
    this.finalizeStream(i, key);
  }

  /** Places task `key` on rank `procmap(key)` (default: key hash mod world size). */
  set_procmap(procmap: (key: K) => number): this {
    this.procmap = checkFn(procmap, 'set_procmap', this.name);
    this.routed = true;
    return this;
  }

  /** Orders ready tasks: higher `priomap(key)` runs first (default 0). */
  set_priomap(priomap: (key: K) => number): this {
    this.priomap = checkFn(priomap, 'set_priomap', this.name);
    return this;
  }

  /** Picks the device for a device task of `key` (used by the device layer). */
  set_devicehint(hint: (key: K) => number): this {
    this.devicemap = checkFn(hint, 'set_devicehint', this.name);
    return this;
  }

  /** The device hint for `key`, or undefined when no hint was set. */
  devicehint(key: K): number | undefined {
    return this.devicemap === undefined ? undefined : this.devicemap(key);
  }

  /** Holds this TT's ready tasks in `c` until their ordinal is released; `mapper` overrides c's own. */
  add_constraint(c: SequencedKeysConstraint<K>, mapper?: OrdinalMapper<K>): this {
    if (typeof c !== 'object' || c === null || typeof (c as { admit?: unknown }).admit !== 'function') {
      throw Errors.invalidArgument('add_constraint(constraint)', 'needs a ttg.SequencedKeysConstraint', { tt: this.name });
    }
    const map = mapper ?? c.mapper;
    if (typeof map !== 'function') {
      throw Errors.invalidArgument('add_constraint', 'needs a key => ordinal mapper (on the constraint or as second argument)', { tt: this.name });
    }
    this.gates.push({ c, map });
    this.rt.constraints.add(c as SequencedKeysConstraint<never>);
    this.assembly.reconfigure();
    return this;
  }

  /** The rank that owns task `key`. */
  ownerOf(key: unknown): number {
    const size = this.rt.size;
    let r: unknown;
    if (this.procmap !== undefined) {
      r = this.procmap(key as K);
    } else {
      if (size === 1) return 0;
      try {
        r = hashKey(key) % size;
      } catch (e) {
        throw Errors.badKey(this.name, key, causeText(e), this.rt.rank);
      }
    }
    if (typeof r !== 'number' || !Number.isInteger(r) || r < 0 || r >= size) throw Errors.procmapRange(this.name, key, r, size, this.rt.rank);
    return r;
  }

  /** @internal Called by `make_graph_executable`. */
  markExecutable(): void {
    this.executable = true;
    this.routed = this.rt.size > 1 || this.procmap !== undefined;
    this.rt.flushParked(this.id);
  }

  /**
   * @internal A value for input `idx` of task `key`, from a send anywhere in this process.
   * `transfer`: the value leaves its sender for good (a remote send may transfer its memory).
   */
  deliver(idx: number, key: unknown, value: unknown, transfer: boolean): void {
    if (this.routed) {
      const owner = this.ownerOf(key);
      if (owner !== this.rt.rank) {
        this.rt.transport!.sendValue(owner, this.id, idx, key, value, transfer);
        return;
      }
    }
    if (this.rt.checkTravel) this.rt.transport!.rehearse([this.id, idx, [key]], value);
    this.assembly.receive(idx, key, value);
  }

  /** @internal Whether keys of this TT may live on other ranks (so senders must ask `ownerOf`). */
  get isRouted(): boolean {
    return this.routed;
  }

  /** @internal */
  setStreamSize(idx: number, key: unknown, n: number): void {
    this.reducingTerminal(idx, 'set_argstream_size');
    if (!Number.isInteger(n) || n < 0) {
      throw Errors.invalidArgument('set_argstream_size', `needs a non-negative integer size, got ${String(n)}`, { tt: this.name, terminal: idx, key, rank: this.rt.rank });
    }
    if (this.routed) {
      const owner = this.ownerOf(key);
      if (owner !== this.rt.rank) {
        this.rt.transport!.sendControl(owner, [Wire.StreamSize, this.id, idx, key, n]);
        return;
      }
    }
    this.assembly.setStreamSize(idx, key, n);
  }

  /** @internal */
  finalizeStream(idx: number, key: unknown): void {
    this.reducingTerminal(idx, 'finalize_argstream');
    if (this.routed) {
      const owner = this.ownerOf(key);
      if (owner !== this.rt.rank) {
        this.rt.transport!.sendControl(owner, [Wire.Finalize, this.id, idx, key]);
        return;
      }
    }
    this.assembly.finalizeStream(idx, key);
  }

  /** @internal Index of the input terminal by number. */
  terminal(i: number): InputTerminal {
    const term = this.inputs[i];
    if (term === undefined) throw Errors.inputRange(this.name, i, this.inputs.length, this.rt.rank);
    return term;
  }

  private reducingTerminal(idx: number, what: string): InputTerminal {
    const term = this.terminal(idx);
    if (term.reducer === undefined) {
      throw Errors.invalidArgument(what, 'applies to reducing inputs only: call set_input_reducer first', { tt: this.name, terminal: idx, rank: this.rt.rank });
    }
    return term;
  }
}

/** A TT of any types (the runtime's own view). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type TTImpl = TT<any, any, any>;

/** The runtime of `world` (a `ttg.World`), or E_INVALID_ARGUMENT. */
function runtimeOf(world: unknown, tt: string | undefined): Runtime {
  const rt = (world as { runtime?: unknown } | null)?.runtime;
  if (!(rt instanceof Runtime)) throw Errors.invalidArgument('make_tt options.world', 'must be a ttg.World (from ttg.initialize() or World.split())', { tt });
  return rt;
}

function checkFn<F>(f: F, what: string, tt: string): F {
  if (typeof f !== 'function') throw Errors.invalidArgument(what, 'needs a function of the key', { tt });
  return f;
}

/**
 * Makes a template task. `body(key, ...inputs, out)` runs once per key when every input terminal
 * has its value; it may be a plain, async, generator or async generator function.
 */
export function make_tt<K, const Ins extends readonly Edge<K, any>[], const Outs extends readonly AnyEdge[]>(
  body: Body<K, Ins, Outs>,
  inputs: Ins,
  outputs: Outs,
  options: TTOptions = {},
): TT<K, Ins, Outs> {
  if (typeof body !== 'function') throw Errors.invalidArgument('make_tt body', `must be a function, got ${typeof body}`, { tt: options.name });
  if (!Array.isArray(inputs) || !Array.isArray(outputs)) throw Errors.invalidArgument('make_tt', 'needs arrays of input and output edges', { tt: options.name });
  if (inputs.length > 30) throw Errors.invalidArgument('make_tt', `supports at most 30 input terminals, got ${inputs.length}`, { tt: options.name });
  inputs.forEach((e, i) => {
    if (!(e instanceof Edge)) throw Errors.invalidArgument(`make_tt input ${i}`, 'is not a ttg.Edge', { tt: options.name, terminal: i });
  });
  outputs.forEach((e, i) => {
    if (!(e instanceof Edge)) throw Errors.invalidArgument(`make_tt output ${i}`, 'is not a ttg.Edge', { tt: options.name, terminal: i });
    if (e instanceof FusedEdge) throw Errors.invalidArgument(`make_tt output ${i}`, 'is a fused edge: fuse() combines inputs only', { tt: options.name, terminal: i });
  });
  if (options.name !== undefined && typeof options.name !== 'string') throw Errors.invalidArgument('make_tt options.name', 'must be a string');
  const rt = options.world === undefined ? defaultRuntime() : runtimeOf(options.world, options.name);
  return new TT<K, Ins, Outs>(rt, body, inputs, outputs, options);
}

export type { KeyOf };
