/**
 * The randomized device stress: per seed, a generator writes hostile-but-legal device programs over
 * a pool of small buffers, runs them in several phases (fences) of one process, and checks every
 * element against a model that applies the same operations, in the same order, to plain arrays.
 *
 * Each buffer has a chain of tasks: step k+1 of a chain is triggered by step k's send, so a
 * buffer's operations are serialized while the chains of different buffers run at once. A step is
 * a device task (generator or async generator, one chain, or two chains where the second is read,
 * written or only peeked at), a device task that consumes its input, a host task that reads, or a
 * host task (plain or async) that consumes and writes. The generator applies every step, in one
 * global order that respects the chains, to the model; the runtime must produce the same values.
 * The shapes it mixes:
 *
 * - device tasks that list buffers, wait several times (with and without buffers to copy back),
 *   re-list buffers with a second `input()`, and enqueue daxpy/dscal (exact: small integers);
 * - evictions under pressure (the pool is several times a device's memory on the small emulated
 *   configurations);
 * - a task that sends a buffer it only read on before waiting (allowed), in a value (the Buffer
 *   itself, a fresh object, array, nested object or class instance, or the very value it got),
 *   to a consumer that overwrites it (host or device), while its kernels reading it may be queued;
 * - `kernel(x)` of a buffer the task holds but did not list (it must come home current, wherever it is);
 * - host writes in a device task after `yield ttg.device.kernel(b)`: the next kernel on b (same
 *   task or a later one) must see them;
 * - devicehints to every place, or none, so buffers move between devices;
 * - a phase where a task throws (the fence rejects with its error) and a phase where a body never
 *   settles (E_HANG after a short TTG_HANG_TIMEOUT); the next phase resets every buffer with host
 *   writes and must be exact, and at the end no copy may stay pinned and no stream loaded.
 *
 * In-body checks compare what a task reads on the host after a wait (and what host tasks read) with
 * the model too. Every failure names the seed; `TTG_STRESS_SEED=n` adds seed n to the fixed ones.
 * `TTG_STRESS_HOST=n` (emulated) puts a host place of n threads beside the devices.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';
import { deviceRuntime } from '../../../src/device/runtime.js';
import { rng, within } from '../../helpers.js';
import { parseDeviceEnv } from '../../../src/device/config.js';
import { applyWrite, maxAbs, mismatch } from './stress-model.js';

const options = parseDeviceEnv(process.env['TTG_DEVICE']);
const backend = (options.backend ?? 'host') as 'host' | 'emulated' | 'cuda';
const hostPlace = Number(process.env['TTG_STRESS_HOST'] ?? 0);

/** Fixed seeds (`TTG_STRESS_SEEDS=a,b,...` replaces them), plus `TTG_STRESS_SEED` when set. */
const SEEDS = (process.env['TTG_STRESS_SEEDS'] ?? '1,2,3,4,5,6,7,8').split(',').filter((x) => x !== '').map((x) => Number(x) >>> 0);
if (process.env['TTG_STRESS_SEED'] !== undefined) SEEDS.push(Number(process.env['TTG_STRESS_SEED']) >>> 0);

/** TTG_HANG_TIMEOUT of the ordinary phases (a deadlock fails the phase with E_HANG) and of the hang phase. */
const HANG_S = Number(process.env['TTG_HANG_TIMEOUT'] ?? 4);
const HANG_PHASE_S = 0.5;
/**
 * Shapes to leave out, to narrow a failure down (`TTG_STRESS_OFF=early,peek`): `early` (sends before
 * the wait), `peek` (kernel(x) of an unlisted x), `hostwrite` (host writes in device tasks),
 * `relist` (second input()s), `nowait` (bodies ending with kernels in flight), `same` (forwarding the
 * value received, so consumers copy), `consume` (consuming steps, but resets), `hint` (devicehints),
 * `fail` and `hang` (those phases become clean ones).
 */
const OFF = new Set((process.env['TTG_STRESS_OFF'] ?? '').split(',').filter((x) => x !== ''));
const on = (shape: string): boolean => !OFF.has(shape);

type Kind = 'D1g' | 'D1a' | 'D2g' | 'D2a' | 'DCg' | 'HR' | 'HC' | 'HCa';
const KINDS: readonly Kind[] = ['D1g', 'D1a', 'D2g', 'D2a', 'DCg', 'HR', 'HC', 'HCa'];
const ARITY: Record<Kind, number> = { D1g: 1, D1a: 1, D2g: 2, D2a: 2, DCg: 1, HR: 1, HC: 1, HCa: 1 };
const DEVICE_KINDS = new Set<Kind>(['D1g', 'D1a', 'D2g', 'D2a', 'DCg']);
/** The input edges of all TTs, in one list: every TT may send to any of them. */
const EDGES: Array<[Kind, number]> = KINDS.flatMap((k) => Array.from({ length: ARITY[k] }, (_, i): [Kind, number] => [k, i]));
const edgeIndex = (k: Kind, i: number): number => EDGES.findIndex(([kk, ii]) => kk === k && ii === i);

/** How a chain's buffer travels on one hop. */
type Wrap = 'buf' | 'obj' | 'arr' | 'nest' | 'cls';
const WRAPS: readonly Wrap[] = ['buf', 'obj', 'arr', 'nest', 'cls'];

/** A class whose instances carry a buffer in an own property (copied with its class by copy-on-write). */
class Carrier {
  constructor(readonly tag: string, readonly data: ttg.Buffer) {}
}

function wrap(b: ttg.Buffer, w: Wrap): unknown {
  switch (w) {
    case 'buf': return b;
    case 'obj': return { b };
    case 'arr': return [7, b];
    case 'nest': return { w: { list: [b], n: 1 } };
    case 'cls': return new Carrier('c', b);
  }
}

function unwrap(v: unknown): ttg.Buffer {
  if (v instanceof ttg.Buffer) return v;
  if (v instanceof Carrier) return v.data;
  if (Array.isArray(v)) return v[1] as ttg.Buffer;
  const o = v as { b?: ttg.Buffer; w?: { list: ttg.Buffer[] } };
  if (o.b !== undefined) return o.b;
  return o.w!.list[0]!;
}

/** Where a chain goes next: input `input` of the step `key` of TT `kind`. */
interface Hop { kind: Kind; input: number; key: number; wrap: Wrap; same: boolean }

type Act =
  | { a: 'input'; roles: number[] }
  | { a: 'daxpy'; n: number; alpha: number; x: number; y: number }
  | { a: 'dscal'; n: number; alpha: number; x: number }
  | { a: 'wait'; back: number[]; want: Float64Array[] }
  | { a: 'write'; role: number; lo: number; hi: number; salt: number; reset: boolean }
  | { a: 'check'; role: number; want: Float64Array }
  | { a: 'send'; role: number }
  | { a: 'throw'; msg: string }
  | { a: 'bad' }
  | { a: 'hang' };

interface Step {
  key: number;
  kind: Kind;
  /** The chain of each role (role 0: the primary buffer, role 1: the second one of D2 steps). */
  chains: number[];
  hint: number | undefined;
  /** D2 steps: what the task does with its second buffer. */
  mode?: 'read' | 'write' | 'peek';
  special?: 'throw' | 'bad' | 'hang';
  acts: Act[];
  next: Array<Hop | undefined>;
}

type PhaseMode = 'clean' | 'fail' | 'hang';
/** The phases of one seed: failures and hangs, each followed by a clean phase that resets the buffers. */
const PHASES: ReadonlyArray<{ mode: PhaseMode; reset: boolean }> = [
  { mode: 'clean', reset: false },
  { mode: 'clean', reset: false },
  { mode: 'fail', reset: false },
  { mode: 'clean', reset: true },
  { mode: 'hang', reset: false },
  { mode: 'clean', reset: true },
  { mode: 'clean', reset: false },
];

interface Config {
  /** Places a devicehint may name (devices, then a host place). */
  places: number;
  /** Bytes a task may pin on one device. */
  capacity: number;
  /** A second input() may add buffers (memory for every chain's task at once); else it only re-lists. */
  ample: boolean;
}

/** One seed's program: the pool, the model, the plans of each phase, and what the run found. */
class Stress {
  readonly r: () => number;
  readonly chains: number;
  readonly lengths: number[];
  /** The model: what each chain's buffer holds. */
  readonly model: Float64Array[];
  /** The buffer each chain's latest step held (consumers may get private copies). */
  readonly holds: ttg.Buffer[];
  /** Every buffer a step held (for the pin check). */
  readonly seen = new Set<ttg.Buffer>();
  readonly plans = new Map<number, Step>();
  readonly problems: string[] = [];
  phase = 0;
  readonly tts: Record<Kind, ttg.TT<number, any, any>>;

  constructor(readonly seed: number, readonly cfg: Config, tag: string) {
    this.r = rng(seed * 7919 + 17);
    this.chains = 10 + this.int(7);
    const maxLen = Math.min(2048, Math.floor(cfg.capacity / 2 / 8));
    this.lengths = Array.from({ length: this.chains }, () => Math.min(maxLen, 512 + this.int(1537)));
    this.model = this.lengths.map((n, c) => {
      const a = new Float64Array(n);
      applyWrite(a, 0, n, c, true);
      return a;
    });
    this.holds = this.model.map((a) => new ttg.Buffer(a.slice()));
    for (const b of this.holds) this.seen.add(b);
    this.tts = this.build(tag);
  }

  int(n: number): number {
    return Math.floor(this.r() * n);
  }

  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }

  where(step: Step, role?: number): string {
    const c = role === undefined ? step.chains.join('+') : String(step.chains[role]);
    return `seed ${this.seed} phase ${this.phase} step ${step.key} (${step.kind}${step.mode === undefined ? '' : `/${step.mode}`}, hint ${String(step.hint)}) chain ${c}`;
  }

  /** The steps of `chain` in the current phase, compactly (for failure messages). */
  history(chain: number): string {
    const lo = this.phase * 100_000;
    const out: string[] = [];
    for (const [k, s] of this.plans) {
      if (k < lo || k >= lo + 100_000 || !s.chains.includes(chain)) continue;
      const role = s.chains.indexOf(chain);
      const acts = s.acts.map((a) => {
        switch (a.a) {
          case 'input': return `input(${a.roles.join(',')})`;
          case 'daxpy': return `daxpy(${a.n},${a.alpha},${a.x}->${a.y})`;
          case 'dscal': return `dscal(${a.n},${a.alpha},${a.x})`;
          case 'wait': return `kernel(${a.back.join(',')})`;
          case 'write': return `write${a.role}[${a.lo},${a.hi})`;
          case 'check': return 'read';
          case 'send': return `send${a.role}`;
          default: return a.a;
        }
      }).join(' ');
      const hops = s.next.map((h, i) => (h === undefined ? '' : ` ${i}->${h.key}/${h.input}${h.same ? ' same' : ` ${h.wrap}`}`)).join('');
      out.push(`${k} ${s.kind}${s.mode === undefined ? '' : `/${s.mode}`} as role ${role} (chains ${s.chains.join(',')}, hint ${String(s.hint)}): ${acts};${hops}`);
    }
    return out.join('\n    ');
  }

  // ------------------------------------------------------------------ the graph

  private build(tag: string): Record<Kind, ttg.TT<number, any, any>> {
    const edges = EDGES.map(([k, i]) => new ttg.Edge<number, unknown>(`${tag}-${k}-${i}`));
    const ins = (k: Kind) => edges.filter((_, j) => EDGES[j]![0] === k);
    const self = this;
    const plan = (k: number): Step => this.plans.get(k)!;
    const hint = (k: number): number => plan(k).hint as number;  // undefined: the least loaded place
    const mk = (k: Kind, body: Function, consume?: number[]) => {
      const tt = ttg.make_tt(body as any, ins(k) as any, edges as any, { name: `${tag}-${k}`, ...(consume === undefined ? {} : { consume }) });
      if (DEVICE_KINDS.has(k)) (tt as any).set_devicehint(hint);
      return tt as unknown as ttg.TT<number, any, any>;
    };
    const tts = {
      // a task writes only inputs it consumes (the README's rule): one that another task still
      // holds (a reader whose kernels may still be queued) gets a private copy
      D1g: mk('D1g', function* (k: number, a: unknown, out: ttg.Out) { yield* self.device(plan(k), [a], out); }, [0]),
      D1a: mk('D1a', async function* (k: number, a: unknown, out: ttg.Out) { yield* self.device(plan(k), [a], out); }, [0]),
      D2g: mk('D2g', function* (k: number, a: unknown, b: unknown, out: ttg.Out) { yield* self.device(plan(k), [a, b], out); }, [0, 1]),
      D2a: mk('D2a', async function* (k: number, a: unknown, b: unknown, out: ttg.Out) { yield* self.device(plan(k), [a, b], out); }, [0, 1]),
      DCg: mk('DCg', function* (k: number, a: unknown, out: ttg.Out) { yield* self.device(plan(k), [a], out); }, [0]),
      HR: mk('HR', (k: number, a: unknown, out: ttg.Out) => { self.host(plan(k), [a], out); }),
      HC: mk('HC', (k: number, a: unknown, out: ttg.Out) => { self.host(plan(k), [a], out); }, [0]),
      HCa: mk('HCa', async (k: number, a: unknown, out: ttg.Out) => { await null; self.host(plan(k), [a], out); }, [0]),
    };
    ttg.make_graph_executable(...Object.values(tts));
    return tts;
  }

  private send(step: Step, role: number, carrier: unknown, b: ttg.Buffer, out: ttg.Out): void {
    const h = step.next[role];
    if (h === undefined) return;
    (out as any).send(edgeIndex(h.kind, h.input), h.key, h.same ? carrier : wrap(b, h.wrap));
  }

  private check(step: Step, role: number, what: string, got: ttg.Buffer, want: Float64Array): void {
    const m = mismatch(got.host, want);
    if (m !== undefined) this.problems.push(`${this.where(step, role)}: ${what}: ${m}\n${step.chains.map((c) => `  chain ${c} in this phase:\n    ${this.history(c!)}`).join("\n")}`);
  }

  /** The body of every device step. */
  *device(step: Step, carriers: unknown[], out: ttg.Out): Generator<unknown, void, unknown> {
    const bufs = carriers.map(unwrap);
    bufs.forEach((b, i) => { this.holds[step.chains[i]!] = b; this.seen.add(b); });
    let stream: ttg.device.Stream | undefined;
    let waits = 0;
    for (const act of step.acts) {
      switch (act.a) {
        case 'input':
          stream = ((yield ttg.device.input(...act.roles.map((i) => bufs[i]!))) as ttg.device.InputResult).stream;
          break;
        case 'daxpy':
          ttg.device.kernels.daxpy(stream!, act.n, act.alpha, bufs[act.x]!, bufs[act.y]!);
          break;
        case 'dscal':
          ttg.device.kernels.dscal(stream!, act.n, act.alpha, bufs[act.x]!);
          break;
        case 'wait':
          yield ttg.device.kernel(...act.back.map((i) => bufs[i]!));
          waits++;
          act.back.forEach((i, j) => this.check(step, i, `host copy after wait ${waits} (kernel(${act.back.join(', ')}))`, bufs[i]!, act.want[j]!));
          break;
        case 'write':
          applyWrite(bufs[act.role]!.host as Float64Array, act.lo, act.hi, act.salt, act.reset);
          break;
        case 'check':
          this.check(step, act.role, 'host read', bufs[act.role]!, act.want);
          break;
        case 'send':
          this.send(step, act.role, carriers[act.role], bufs[act.role]!, out);
          break;
        case 'throw':
          throw new Error(act.msg);
        case 'bad':
          ttg.device.kernels.dscal(stream!, 8, 2, new ttg.Buffer(8));  // not listed: E_INVALID_ARGUMENT
          break;
        case 'hang':
          yield new Promise(() => {});
          break;
      }
    }
  }

  /** The body of every host step. */
  host(step: Step, carriers: unknown[], out: ttg.Out): void {
    const b = unwrap(carriers[0]);
    this.holds[step.chains[0]!] = b;
    this.seen.add(b);
    for (const act of step.acts) {
      if (act.a === 'check') this.check(step, 0, 'host task read', b, act.want);
      else if (act.a === 'write') applyWrite(b.host as Float64Array, act.lo, act.hi, act.salt, act.reset);
      else if (act.a === 'send') this.send(step, 0, carriers[0], b, out);
    }
  }

  // ------------------------------------------------------------------ the generator

  /** Plans phase `p` (steps in one global order, linked per chain) and applies it to the model. */
  plan(p: number, mode: PhaseMode, reset: boolean): { steps: Step[]; first: Array<Hop | undefined> } {
    const steps: Step[] = [];
    const last: Array<[Step, number] | undefined> = Array(this.chains).fill(undefined);
    const first: Array<Hop | undefined> = Array(this.chains).fill(undefined);
    const dead = new Set<number>();
    let key = p * 100_000;
    const add = (kind: Kind, chains: number[], special?: Step['special']): Step => {
      const s: Step = { key: key++, kind, chains, hint: undefined, acts: [], next: chains.map(() => undefined) };
      if (special !== undefined) s.special = special;
      if (kind === 'D2g' || kind === 'D2a') s.mode = this.pick(on('peek') ? ['read', 'read', 'write', 'peek'] as const : ['read', 'write'] as const);
      if (DEVICE_KINDS.has(kind)) {
        const h = this.int(this.cfg.places + 1);
        s.hint = h === this.cfg.places || !on('hint') ? undefined : h;
      }
      chains.forEach((c, role) => {
        const hop: Hop = { kind, input: role, key: s.key, wrap: this.pick(WRAPS), same: this.r() < 0.3 && on('same') };
        const prev = last[c];
        if (prev === undefined) first[c] = { ...hop, same: false };
        else prev[0].next[prev[1]] = hop;
        last[c] = [s, role];
      });
      steps.push(s);
      this.plans.set(s.key, s);
      return s;
    };
    if (reset) for (let c = 0; c < this.chains; c++) add(this.pick(['HC', 'HCa'] as const), [c]);
    const n = this.chains * (6 + this.int(6));
    const bomb = mode === 'clean' ? -1 : Math.floor(n / 3) + this.int(Math.floor(n / 2));
    for (let i = 0; i < n; i++) {
      const live = [...Array(this.chains).keys()].filter((c) => !dead.has(c));
      const c0 = this.pick(live);
      if (i === bomb) {
        add(this.pick(['D1g', 'D1a'] as const), [c0], mode === 'hang' ? 'hang' : this.pick(['throw', 'bad'] as const));
        dead.add(c0);
        continue;
      }
      let kind = this.pick(['D1g', 'D1a', 'D2g', 'D2a', 'D2g', 'D2a', 'DCg', 'HR', 'HC', 'HCa'] as const);
      if (!on('consume') && (kind === 'DCg' || kind === 'HC' || kind === 'HCa')) kind = kind === 'DCg' ? 'D1g' : 'HR';
      if ((kind === 'D2g' || kind === 'D2a') && live.length < 2) kind = 'D1g';
      if (kind === 'D2g' || kind === 'D2a') add(kind, [c0, this.pick(live.filter((c) => c !== c0))]);
      else add(kind, [c0]);
    }
    // acts, in the global order, against the model
    for (const s of steps) this.acts(s, reset && steps.indexOf(s) < this.chains);
    return { steps, first };
  }

  private snap(role: number, s: Step): Float64Array {
    return this.model[s.chains[role]!]!.slice();
  }

  private acts(s: Step, isReset: boolean): void {
    const m = s.chains.map((c) => this.model[c]!);
    const len = s.chains.map((c) => this.lengths[c]!);
    const acts = s.acts;
    const write = (role: number, full: boolean, reset: boolean): void => {
      const lo = full ? 0 : this.int(len[role]!);
      const hi = full ? len[role]! : lo + 1 + this.int(len[role]! - lo);
      const salt = this.int(1000);
      acts.push({ a: 'write', role, lo, hi, salt, reset });
      applyWrite(m[role]!, lo, hi, salt, reset);
    };
    if (!DEVICE_KINDS.has(s.kind)) {
      if (isReset) write(0, true, true);
      else if (s.kind === 'HR') acts.push({ a: 'check', role: 0, want: this.snap(0, s) });
      else {
        if (this.r() < 0.5) acts.push({ a: 'check', role: 0, want: this.snap(0, s) });
        write(0, maxAbs(m[0]!) > 2 ** 30, false);
      }
      acts.push({ a: 'send', role: 0 });
      return;
    }
    if (s.special !== undefined) {
      acts.push({ a: 'input', roles: [0] });
      acts.push({ a: 'dscal', n: len[0]!, alpha: -1, x: 0 });
      if (this.r() < 0.5) acts.push({ a: 'wait', back: [], want: [] });
      acts.push(s.special === 'hang' ? { a: 'hang' } : s.special === 'bad' ? { a: 'bad' } : { a: 'throw', msg: `stress bomb, phase ${this.phase}` });
      return;
    }
    const two = s.chains.length === 2;
    const mode = s.mode;
    // the second buffer may go on before the wait to a task that consumes it, or reads it
    const after = s.next[1];
    const mayGoEarly = two && mode !== 'write' && on('early') && (after === undefined || ['HR', 'HC', 'HCa', 'DCg'].includes(after.kind)
      || (after.input === 1 && this.plans.get(after.key)!.mode !== 'write'));
    // a value grown large gets no more kernels; a host write after a wait folds it back into small
    // integers (or, without host writes in device tasks, the chain's next host write)
    const big = m.some((a) => maxAbs(a) > 2 ** 30);
    const fold = big && on('hostwrite');
    const split = two && mode !== 'peek' && this.cfg.ample && this.r() < 0.4;
    const listed = new Set<number>([0]);
    if (two && mode !== 'peek' && !split) listed.add(1);
    acts.push({ a: 'input', roles: [...listed] });
    let gone = false;   // role 1 was sent on before the wait (read or peeked only)
    const rounds = 1 + this.int(3);
    let pendingOps = false;
    const ends = s.next.every((h) => h === undefined);
    for (let round = 0; round < rounds; round++) {
      if (split && round === 1) {
        listed.add(1);
        acts.push({ a: 'input', roles: this.r() < 0.5 ? [1] : [1, 0] });
      } else if (round > 0 && this.r() < 0.4 && on('relist')) {
        const again = [...listed].filter((i) => !(i === 1 && gone) && this.r() < 0.7);
        acts.push({ a: 'input', roles: again.length === 0 ? [0] : again });
      }
      const ops = 1 + this.int(3);
      for (let o = 0; o < ops && !big; o++) {
        const choices: Array<() => void> = [() => {
          const alpha = this.pick([-1, 2, 3]);
          const n = this.r() < 0.7 ? len[0]! : 1 + this.int(len[0]!);
          acts.push({ a: 'dscal', n, alpha, x: 0 });
          for (let i = 0; i < n; i++) m[0]![i] *= alpha;
        }];
        if (two && listed.has(1) && !gone) {
          choices.push(() => {
            const alpha = this.pick([1, -1, 2, -2, 3]);
            const n = Math.min(len[0]!, len[1]!) - (this.r() < 0.3 ? this.int(64) : 0);
            acts.push({ a: 'daxpy', n, alpha, x: 1, y: 0 });
            for (let i = 0; i < n; i++) m[0]![i] += alpha * m[1]![i]!;
          });
          if (mode === 'write') {
            choices.push(() => {
              const alpha = this.pick([1, -1, 2]);
              const n = Math.min(len[0]!, len[1]!);
              acts.push({ a: 'daxpy', n, alpha, x: 0, y: 1 });
              for (let i = 0; i < n; i++) m[1]![i] += alpha * m[0]![i]!;
            }, () => {
              acts.push({ a: 'dscal', n: len[1]!, alpha: -1, x: 1 });
              for (let i = 0; i < len[1]!; i++) m[1]![i] *= -1;
            });
          }
        }
        this.pick(choices)();
        pendingOps = true;
      }
      // a buffer only read (or not touched) may be sent on before the wait
      if (mayGoEarly && !gone && (mode === 'peek' || listed.has(1)) && this.r() < 0.5) {
        acts.push({ a: 'send', role: 1 });
        gone = true;
      }
      const lastRound = round === rounds - 1;
      if (lastRound && ends && this.r() < 0.4 && pendingOps && on('nowait')) return;  // ends with kernels in flight: the fence waits for them
      const back: number[] = [];
      if (this.r() < 0.6 || fold) back.push(0);
      if (two && !gone && (mode === 'peek' ? this.r() < 0.7 : listed.has(1) && this.r() < 0.5)) back.push(1);
      acts.push({ a: 'wait', back, want: back.map((i) => this.snap(i, s)) });
      pendingOps = false;
      // host writes after the wait that copied the buffer back (folding large values back first)
      for (const i of back) {
        if (i === 1 && mode !== 'write') continue;
        if (fold || (this.r() < 0.35 && on('hostwrite'))) write(i, fold || this.r() < 0.3, false);
      }
    }
    for (let role = 0; role < s.chains.length; role++) if (!(role === 1 && gone)) acts.push({ a: 'send', role });
  }
}

/**
 * After a clean phase nothing may be left of earlier ones, also of failed and abandoned tasks: no
 * copy pinned, no stream loaded, device memory within capacity.
 */
function leftovers(st: Stress, tag: string): void {
  const r = deviceRuntime()!;
  const pinned: string[] = [];
  for (const b of st.seen) b.copies.forEach((c, d) => { if (c !== undefined && c.pins !== 0) pinned.push(`${b.length} doubles on device ${d}: ${c.pins} pin(s)`); });
  expect(pinned, `${tag}: copies still pinned after the fence`).to.deep.equal([]);
  const loaded = r.streams.all.filter((s) => s.load !== 0).map((s) => `stream ${s.id} (device ${s.device}): load ${s.load}`);
  expect(loaded, `${tag}: streams still loaded after the fence`).to.deep.equal([]);
  for (const d of ttg.device.stats().per_device) expect(d.used_bytes, `${tag}: used bytes`).to.be.at.most(d.capacity);
}

describe(`randomized device stress on the ${backend} backend${hostPlace > 0 ? ` with a host place of ${hostPlace}` : ''}`, function () {
  this.timeout(120_000);
  let cfg: Config;
  const savedHang = process.env['TTG_HANG_TIMEOUT'];

  before(async () => {
    process.env['TTG_HANG_TIMEOUT'] = String(HANG_S);
    await ttg.initialize(hostPlace > 0 ? { device: { host: hostPlace } } : undefined);
    const s = ttg.device.stats();
    expect(s.backend, 'the backend TTG_DEVICE names').to.equal(backend);
    const devCaps = s.per_device.filter((d) => d.place === 'device').map((d) => d.capacity);
    const capacity = Math.min(...devCaps);
    cfg = { places: s.per_device.length, capacity, ample: capacity >= 16 * 2 * 2048 * 8 };
  });
  after(() => {
    if (savedHang === undefined) delete process.env['TTG_HANG_TIMEOUT'];
    else process.env['TTG_HANG_TIMEOUT'] = savedHang;
  });

  for (const seed of SEEDS) {
    it(`seed ${seed}: every element of every buffer as the model says, through failures and hangs`, async () => {
      const st = new Stress(seed, cfg, `st${seed}`);
      const evictions0 = ttg.device.stats().evictions;
      const t0 = performance.now();
      const times: string[] = [];
      for (let p = 0; p < PHASES.length; p++) {
        const mode = on(PHASES[p]!.mode) ? PHASES[p]!.mode : 'clean';
        const reset = PHASES[p]!.reset;
        st.phase = p;
        const { first } = st.plan(p, mode, reset);
        const tp = performance.now();
        first.forEach((h, c) => {
          if (h !== undefined) (st.tts[h.kind] as any).in(h.input).send(h.key, wrap(st.holds[c]!, h.wrap));
        });
        const tag = `seed ${seed} phase ${p} (${mode})`;
        if (mode === 'hang') process.env['TTG_HANG_TIMEOUT'] = String(HANG_PHASE_S);
        let err: unknown;
        try {
          err = await within(ttg.fence({ quiet: true }).then(() => undefined, (e: unknown) => e ?? new Error('rejected')),
            (mode === 'hang' ? HANG_PHASE_S : HANG_S) * 1000 + 30_000, `${tag}: ttg.fence()`);
        } finally {
          process.env['TTG_HANG_TIMEOUT'] = String(HANG_S);
        }
        times.push(`${p}:${Math.round(performance.now() - tp)}ms`);
        if (st.problems.length > 0) throw new Error(`${tag}: ${st.problems.length} mismatch(es) seen in task bodies; first: ${st.problems[0]}`);
        if (mode === 'clean') {
          if (err !== undefined) {
            const cause = (err as Error).cause as Error | undefined;
            throw new Error(`${tag}: the fence rejected: ${String((err as Error).message ?? err)}${cause === undefined ? '' : ` (cause: ${String(cause.message ?? cause)})`}`);
          }
          for (let c = 0; c < st.chains; c++) {
            const b = st.holds[c]!;
            await within(b.toHost(), 10_000, `${tag}: chain ${c}: toHost()`);
            const m = mismatch(b.host, st.model[c]!);
            if (m !== undefined) throw new Error(`${tag}: chain ${c} (buffer of ${st.lengths[c]} doubles) after the fence: ${m}\n  chain ${c} in this phase:\n    ${st.history(c)}`);
          }
          leftovers(st, tag);
        } else if (mode === 'fail') {
          const e = err as ttg.TtgError | undefined;
          const text = e === undefined ? '' : `${e.message} ${String((e.cause as Error | undefined)?.message ?? '')}`;
          expect(e, `${tag}: the fence should reject with the failing task's error`).to.be.instanceOf(ttg.TtgError);
          expect(['E_TASK_FAILED', 'E_INVALID_ARGUMENT'] as string[], `${tag}: ${text}`).to.include(e!.code);
          expect(/stress bomb|kernels\.dscal/.test(text), `${tag}: names the failure: ${text}`).to.equal(true);
        } else {
          const e = err as ttg.TtgError | undefined;
          expect(e, `${tag}: the fence should reject with E_HANG`).to.be.instanceOf(ttg.TtgError);
          expect(e!.code, `${tag}: ${e!.message}`).to.equal('E_HANG');
        }
      }
      const pool = st.lengths.reduce((a, n) => a + n * 8, 0);
      if (backend !== 'host' && pool > 2 * cfg.capacity) {
        expect(ttg.device.stats().evictions - evictions0, `seed ${seed}: the pool (${pool} bytes) is over the memory: evictions`).to.be.greaterThan(0);
      }
      if (process.env['TTG_STRESS_VERBOSE'] !== undefined) {
        console.log(`seed ${seed}: ${st.chains} chains, ${pool} bytes, ${st.plans.size} steps, ${Math.round(performance.now() - t0)} ms (${times.join(' ')})`);
      }
    });
  }
});

