/**
 * The property stress of the device layer under faults (issue 56). Per seed, a generator writes
 * device programs over a pool of buffers larger than a device's memory and runs them in many
 * phases (fences) of one process. In a phase every task owns the buffers it writes (no other task
 * of the phase touches them) and reads shared constants, so a model that applies each task's
 * operations, in order, to plain arrays (what the host backend computes in place) gives every
 * value whatever the interleaving. The shapes it mixes:
 *
 * - generator and async bodies; `input()`s that list a buffer twice (also nested: `input([a, a], a)`),
 *   that re-list what the task holds, that add buffers later; async bodies with two `input()`s in
 *   flight at once, or one they give up on (the task ends with it pending);
 * - dscal, daxpy and a program's kernel (axpby, test/fixtures/kernels) on devicehints to every place
 *   or none, so buffers move between devices and are evicted under pressure;
 * - waits that copy buffers home (also `kernel(a, a)`), host writes after them, bodies that end
 *   with kernels in flight;
 * - between phases, host writes by the program: in place after `await b.toHost()`, through
 *   `kernels.callHere` on the raw `b.host`, and on constants the devices still hold;
 * - fault phases: the nth device enqueue refused (`TTG_FAULT_DEVOP`), the nth completion failed
 *   (`TTG_FAULT_DEVDONE`), or a task's kernel that sets its error (fail_with). The fence must then
 *   resolve with every value right (the fault never came) or reject with E_DEVICE; the program
 *   brings every buffer home and writes it afresh.
 *
 * After every phase: nothing pinned on any place, no stream loaded, no task holding buffers, each
 * device's used bytes those of the copies it holds (and within its capacity); after a clean phase
 * every element of every buffer as the model says. Every 10th phase, one task takes a whole
 * device. A failure names the seed and the phase; `TTG_FAULT_STRESS_SEEDS=a,b,...` and
 * `TTG_FAULT_STRESS_PHASES=n` change the run (default: 10 seeds of 20 phases, 200 phases).
 */
import { expect } from 'chai';
import * as ttg from 'ttg';

import { deviceRuntime } from '../../../src/device/runtime.js';
import { rng, within } from '../../helpers.js';
import { faults } from './hostile-kit.js';
import { backend, onSuiteDevices } from './suite.js';
import { applyWrite, maxAbs, mismatch } from './stress-model.js';
import { build, specs } from './test-kernels.js';

const SEEDS = (process.env['TTG_FAULT_STRESS_SEEDS'] ?? '1,2,3,4,5,6,7,8,9,10').split(',').filter((x) => x !== '').map((x) => Number(x) >>> 0);
const PHASES = Number(process.env['TTG_FAULT_STRESS_PHASES'] ?? 20);
/** TTG_HANG_TIMEOUT of this suite: a deadlock fails its phase with E_HANG. */
const HANG_S = 5;

type Mode = 'clean' | 'devop' | 'devdone' | 'kernel';

type Act =
  | { a: 'input'; roles: Array<number | number[]> }
  | { a: 'inflight'; first: number[]; then: number[] }
  | { a: 'giveup'; roles: number[] }
  | { a: 'dscal'; x: number; n: number; alpha: number }
  | { a: 'daxpy'; x: number; y: number; n: number; alpha: number }
  | { a: 'axpby'; x: number; y: number; alpha: number; beta: number }
  | { a: 'fail' }
  | { a: 'wait'; back: number[]; want: Float64Array[] }
  | { a: 'write'; role: number; lo: number; hi: number; salt: number };

interface Plan {
  key: number;
  async: boolean;
  hint: number | undefined;
  /** Global buffer index of each role: the task's own buffers first, then constants. */
  roles: number[];
  acts: Act[];
}


class FaultStress {
  readonly r: () => number;
  /** Buffers tasks write (one owner per phase). */
  readonly own: ttg.Buffer[];
  /** Buffers tasks only read within a phase (the program rewrites them between phases). */
  readonly consts: ttg.Buffer[];
  readonly model: Float64Array[];
  readonly plans = new Map<number, Plan>();
  readonly problems: string[] = [];
  /** What happened to each buffer, per phase (for failure messages). */
  readonly log: string[][] = [];
  phase = 0;
  mode: Mode = 'clean';
  private gen!: ttg.TT<number, any, any>;
  private asy!: ttg.TT<number, any, any>;

  constructor(readonly seed: number, readonly places: number, readonly capacity: number, readonly kernels: Record<string, ttg.device.KernelFn> | undefined) {
    this.r = rng(seed * 104729 + 7);
    const len = () => 256 + this.int(769);   // at most 8 KiB: six of them fit a 48 KiB device
    this.own = Array.from({ length: 10 + this.int(5) }, () => new ttg.Buffer(len()));
    this.consts = Array.from({ length: 3 }, () => new ttg.Buffer(len()));
    this.log = [...this.own, ...this.consts].map(() => []);
    this.model = [...this.own, ...this.consts].map((b, i) => {
      const a = new Float64Array(b.length);
      applyWrite(a, 0, a.length, i, true);
      b.host.set(a);
      return a;
    });
  }

  int(n: number): number {
    return Math.floor(this.r() * n);
  }

  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }

  buffer(g: number): ttg.Buffer {
    return g < this.own.length ? this.own[g]! : this.consts[g - this.own.length]!;
  }

  /** The TTs of this seed, one per body form: every task runs its plan. */
  graph(tag: string): void {
    const self = this;
    const plan = (k: number): Plan => this.plans.get(k)!;
    this.gen = ttg.make_tt(function* (k: number): Generator<unknown, void, unknown> {
      yield* self.generatorBody(plan(k));
    }, [new ttg.Edge<number, number>(`${tag}-gen`)], [], { name: `${tag}-gen` });
    // its text names the device API: async context from its first task on
    this.asy = ttg.make_tt(async (k: number) => { await self.asyncBody(plan(k), ttg.device); }, [new ttg.Edge<number, number>(`${tag}-async`)], [], { name: `${tag}-async` });
    for (const tt of [this.gen, this.asy]) (tt as any).set_devicehint((k: number) => plan(k).hint);
    ttg.make_graph_executable(this.gen, this.asy);
  }

  private check(p: Plan, role: number, what: string, want: Float64Array): void {
    if (this.mode !== 'clean') return;
    const m = mismatch(this.buffer(p.roles[role]!).host, want);
    if (m !== undefined) this.problems.push(`seed ${this.seed} phase ${this.phase} task ${p.key} role ${role} (buffer ${p.roles[role]}): ${what}: ${m}\n${[...new Set(p.roles)].map((g) => this.history(g)).join('\n')}`);
  }

  /** The last phases of buffer `g` (for failure messages). */
  history(g: number): string {
    return `  buffer ${g} (${this.buffer(g).length} doubles), last phases:\n    ${this.log[g]!.slice(-4).join('\n    ')}`;
  }

  private note(g: number, what: string): void {
    this.log[g]!.push(`phase ${this.phase} (${this.mode}): ${what}`);
  }

  private describe(p: Plan): string {
    const acts = p.acts.map((a) => {
      switch (a.a) {
        case 'input': return `input(${JSON.stringify(a.roles)})`;
        case 'inflight': return `inflight(${a.first.join(',')} | ${a.then.join(',')})`;
        case 'giveup': return `giveup(${a.roles.join(',')})`;
        case 'dscal': return `dscal(${a.x},${a.n},${a.alpha})`;
        case 'daxpy': return `daxpy(${a.x}->${a.y},${a.n},${a.alpha})`;
        case 'axpby': return `axpby(${a.x}->${a.y},${a.alpha},${a.beta})`;
        case 'fail': return 'fail';
        case 'wait': return `kernel(${a.back.join(',')})`;
        case 'write': return `write${a.role}[${a.lo},${a.hi})`;
      }
    });
    return `task ${p.key} ${p.async ? 'async' : 'gen'} hint ${String(p.hint)} roles ${p.roles.join(',')}: ${acts.join(' ')}`;
  }

  private enqueue(p: Plan, stream: ttg.device.Stream, act: Act): void {
    const b = (role: number) => this.buffer(p.roles[role]!);
    switch (act.a) {
      case 'dscal': ttg.device.kernels.dscal(stream, act.n, act.alpha, b(act.x)); break;
      case 'daxpy': ttg.device.kernels.daxpy(stream, act.n, act.alpha, b(act.x), b(act.y)); break;
      case 'axpby': this.kernels!['axpby']!(stream, { buffers: [b(act.x), b(act.y)], scalars: [act.alpha, act.beta] }); break;
      case 'fail': this.kernels!['fail_with']!(stream, { buffers: [], scalars: [7] }); break;
      default: throw new Error(`not an op: ${act.a}`);
    }
  }

  private listed(p: Plan, roles: Array<number | number[]>): Array<ttg.Buffer | ttg.Buffer[]> {
    return roles.map((x) => (Array.isArray(x) ? x.map((i) => this.buffer(p.roles[i]!)) : this.buffer(p.roles[x]!)));
  }

  *generatorBody(p: Plan): Generator<unknown, void, unknown> {
    let stream: ttg.device.Stream | undefined;
    for (const act of p.acts) {
      if (act.a === 'input') stream = ((yield ttg.device.input(...this.listed(p, act.roles))) as ttg.device.InputResult).stream;
      else if (act.a === 'wait') {
        yield ttg.device.kernel(...act.back.map((i) => this.buffer(p.roles[i]!)));
        act.back.forEach((i, j) => this.check(p, i, 'host copy after a wait', act.want[j]!));
      } else if (act.a === 'write') applyWrite(this.buffer(p.roles[act.role]!).host as Float64Array, act.lo, act.hi, act.salt);
      else this.enqueue(p, stream!, act);
    }
  }

  async asyncBody(p: Plan, device: typeof ttg.device): Promise<void> {
    let stream: ttg.device.Stream | undefined;
    for (const act of p.acts) {
      if (act.a === 'input') stream = (await device.input(...this.listed(p, act.roles))).stream;
      else if (act.a === 'inflight') {
        // two acquisitions at once: the first goes on while the body waits for the second
        const first = device.input(...this.listed(p, act.first)).then((x) => x);
        first.then(undefined, () => {});
        stream = (await device.input(...this.listed(p, act.then))).stream;
        await first;
      } else if (act.a === 'giveup') {
        void device.input(...this.listed(p, act.roles)).then(() => {}, () => {});
      } else if (act.a === 'wait') {
        await device.kernel(...act.back.map((i) => this.buffer(p.roles[i]!)));
        act.back.forEach((i, j) => this.check(p, i, 'host copy after a wait', act.want[j]!));
      } else if (act.a === 'write') applyWrite(this.buffer(p.roles[act.role]!).host as Float64Array, act.lo, act.hi, act.salt);
      else this.enqueue(p, stream!, act);
    }
  }

  // ------------------------------------------------------------------ the generator

  /** Plans phase `ph`'s tasks, applying each to the model; returns their keys. */
  plan(ph: number, mode: Mode): number[] {
    const free = [...this.own.keys()];
    const tasks: Array<{ p: Plan; nOwn: number }> = [];
    const n = 3 + this.int(8);
    for (let t = 0; t < n && free.length > 0; t++) {
      const nOwn = Math.min(free.length, 1 + this.int(3));
      const mine: number[] = [];
      for (let i = 0; i < nOwn; i++) mine.push(free.splice(this.int(free.length), 1)[0]!);
      const cs = [...this.consts.keys()].filter(() => this.r() < 0.35).slice(0, 2).map((c) => this.own.length + c);
      const h = this.int(this.places + 1);
      tasks.push({ p: { key: ph * 1000 + t, async: this.r() < 0.45, hint: h === this.places ? undefined : h, roles: [...mine, ...cs], acts: [] }, nOwn });
    }
    // A task that holds buffers while it waits for room for more (a later input() that adds some,
    // two in flight, one given up) waits for tasks that end; two such tasks on a full device would
    // wait for each other for ever (E_HANG; docs/devices.md). So one per phase, unless every buffer
    // of the phase fits a device at once.
    const bytes = tasks.reduce((sum, { p }) => sum + p.roles.reduce((a, g) => a + (g < this.own.length ? this.buffer(g).bytes : 0), 0), 0)
      + this.consts.reduce((a, b) => a + b.bytes, 0);
    const ample = bytes <= this.capacity;
    const adder = this.int(tasks.length);
    const failing = mode === 'kernel' ? this.int(tasks.length) : -1;
    return tasks.map(({ p, nOwn }, t) => {
      this.acts(p, nOwn, t === failing, ample || t === adder);
      this.plans.set(p.key, p);
      const d = this.describe(p);
      for (const g of new Set(p.roles)) this.note(g, d);
      return p.key;
    });
  }

  private acts(p: Plan, nOwn: number, fails: boolean, adds: boolean): void {
    const m = p.roles.map((g) => this.model[g]!);
    const all = p.roles.map((_, i) => i);
    const acts = p.acts;
    // the first listing: everything, some twice, maybe split in two (async: both in flight)
    const order = [...all].sort(() => this.r() - 0.5);
    const dup = (roles: number[]): Array<number | number[]> => {
      const out: Array<number | number[]> = [...roles];
      if (roles.length > 0 && this.r() < 0.4) out.push(this.pick(roles));
      if (roles.length > 0 && this.r() < 0.2) out.push([this.pick(roles), this.pick(roles)]);
      return out;
    };
    let later: number[] = [];
    if (adds && p.async && order.length >= 2 && this.r() < 0.5) {
      const cut = 1 + this.int(order.length - 1);
      acts.push({ a: 'inflight', first: order.slice(0, cut), then: order.slice(cut) });
    } else if (adds && order.length >= 2 && this.r() < 0.3) {
      const cut = 1 + this.int(order.length - 1);
      acts.push({ a: 'input', roles: dup(order.slice(0, cut)) });
      later = order.slice(cut);
    } else acts.push({ a: 'input', roles: dup(order) });
    if (adds && p.async && this.r() < 0.2) {
      // an input() it gives up on: a constant it never uses (the task ends with the acquisition pending or done)
      const unused = [...this.consts.keys()].map((c) => this.own.length + c).filter((g) => !p.roles.includes(g));
      if (unused.length > 0) {
        p.roles.push(this.pick(unused));
        acts.push({ a: 'giveup', roles: [p.roles.length - 1] });
      }
    }
    const usable = all.filter((i) => !later.includes(i));
    const rounds = 1 + this.int(3);
    let pending = false;
    for (let round = 0; round < rounds; round++) {
      if (round > 0 && later.length > 0) {
        acts.push({ a: 'input', roles: dup(later) });
        usable.push(...later);
        later = [];
      } else if (round > 0 && this.r() < 0.3) {
        const again = usable.filter(() => this.r() < 0.6);
        if (again.length > 0) acts.push({ a: 'input', roles: dup(again) });
      }
      const mineNow = usable.filter((i) => i < nOwn);
      if (mineNow.length === 0) {
        if (fails && round === rounds - 1) acts.push({ a: 'fail' });
        continue;
      }
      const big = mineNow.some((i) => maxAbs(m[i]!) > 2 ** 28);
      const ops = big ? 0 : 1 + this.int(3);
      for (let o = 0; o < ops; o++) {
        const y = this.pick(mineNow);
        const ly = m[y]!.length;
        const choice = this.int(this.kernels === undefined ? 2 : 3);
        if (choice === 0) {
          const alpha = this.pick([-1, 2, 3]);
          const n = this.r() < 0.7 ? ly : 1 + this.int(ly);
          acts.push({ a: 'dscal', x: y, n, alpha });
          for (let i = 0; i < n; i++) m[y]![i]! *= alpha;
        } else if (choice === 1) {
          const x = this.pick(usable.filter((i) => i !== y));
          if (x === undefined) continue;
          const alpha = this.pick([1, -1, 2, -2]);
          const n = Math.min(ly, m[x]!.length);
          acts.push({ a: 'daxpy', x, y, n, alpha });
          for (let i = 0; i < n; i++) m[y]![i]! += alpha * m[x]![i]!;
        } else {
          // axpby reads x over y's length
          const x = this.pick(usable.filter((i) => i !== y && m[i]!.length >= ly));
          if (x === undefined) continue;
          const alpha = this.pick([1, -1, 2]), beta = this.pick([1, -1, 2]);
          acts.push({ a: 'axpby', x, y, alpha, beta });
          for (let i = 0; i < ly; i++) m[y]![i] = alpha * m[x]![i]! + beta * m[y]![i]!;
        }
        pending = true;
      }
      if (fails && round === rounds - 1) {
        acts.push({ a: 'fail' });
        pending = true;
      }
      if (round === rounds - 1 && pending && this.r() < 0.3) return;   // ends with kernels in flight
      const back = mineNow.filter(() => this.r() < 0.6);
      if (back.length > 0 && this.r() < 0.2) back.push(back[0]!);   // kernel(a, a)
      acts.push({ a: 'wait', back, want: back.map((i) => m[i]!.slice()) });
      pending = false;
      for (const i of new Set(back)) {
        if (this.r() < 0.3 || maxAbs(m[i]!) > 2 ** 28) {
          const lo = this.int(m[i]!.length), hi = lo + 1 + this.int(m[i]!.length - lo), salt = this.int(1000);
          acts.push({ a: 'write', role: i, lo, hi, salt });
          applyWrite(m[i]!, lo, hi, salt);
        }
      }
    }
  }

  // ------------------------------------------------------------------ a phase

  /** Runs phase `ph`; true when its fence rejected (a fault phase whose fault came). */
  async run(ph: number): Promise<boolean> {
    this.phase = ph;
    const roll = this.r();
    this.mode = roll < 0.55 ? 'clean' : roll < 0.7 ? 'devop' : roll < 0.85 ? 'devdone' : this.kernels !== undefined ? 'kernel' : 'clean';
    const keys = this.plan(ph, this.mode);
    const tag = `seed ${this.seed} phase ${ph} (${this.mode}, ${keys.length} tasks)`;
    if (this.mode === 'devop') faults({ faultDevOp: 1 + this.int(keys.length * 5) });
    if (this.mode === 'devdone') faults({ faultDevDone: 1 + this.int(keys.length * 3) });
    let err: unknown;
    try {
      for (const k of keys) (this.plans.get(k)!.async ? this.asy : this.gen).invoke(k, 0);
      ttg.execute();
      err = await within(ttg.fence({ quiet: true }).then(() => undefined, (e: unknown) => e ?? new Error('rejected')), HANG_S * 1000 + 20_000, `${tag}: ttg.fence()`);
    } finally {
      faults({ faultDevOp: 0, faultDevDone: 0 });
    }
    if (this.problems.length > 0) throw new Error(`${tag}: ${this.problems.length} mismatch(es) in task bodies; first: ${this.problems[0]}`);
    if (err !== undefined) {
      const e = err as ttg.TtgError;
      const text = `${String(e.message)} ${String((e.cause as Error | undefined)?.message ?? '')}`;
      expect(this.mode, `${tag}: the fence rejected: ${text}`).to.not.equal('clean');
      expect(e.code, `${tag}: ${text}`).to.equal('E_DEVICE');
      const why = this.mode === 'devop' ? 'TTG_FAULT_DEVOP' : this.mode === 'devdone' ? 'TTG_FAULT_DEVDONE' : 'error 7';
      expect(text, `${tag}: names the fault`).to.include(why);
    }
    const all = [...this.own, ...this.consts];
    for (const b of all) await within(b.toHost(), 10_000, `${tag}: toHost()`);
    if (err === undefined) {
      all.forEach((b, g) => {
        const m = mismatch(b.host, this.model[g]!);
        if (m !== undefined) throw new Error(`${tag}: buffer ${g} (${b.length} doubles) after the fence: ${m}\n${this.history(g)}`);
      });
    }
    resting(tag);
    if (ph % 10 === 9) await this.wholeDevices(tag);
    await this.between(err !== undefined);
    return err !== undefined;
  }

  /** The program's host writes before the next phase: afresh after a failure, else some of them. */
  private async between(failed: boolean): Promise<void> {
    const all = [...this.own, ...this.consts];
    for (let g = 0; g < all.length; g++) {
      const b = all[g]!, m = this.model[g]!;
      const fresh = failed || maxAbs(m) > 2 ** 28;
      if (!fresh && this.r() > 0.25) continue;
      await b.toHost();    // host arrays are the program's between fences once current there
      const salt = this.int(1000);
      if (fresh) {
        this.note(g, 'program writes it afresh');
        applyWrite(m, 0, m.length, salt, true);
        b.host.set(m);
      } else if (this.kernels !== undefined && g < this.own.length && this.r() < 0.4) {
        // the raw array (not the Buffer): the runtime is not told
        const x = new Float64Array(b.length).fill(2);
        this.note(g, 'program: axpby.here on b.host');
        this.kernels['axpby']!.here({ buffers: [x, b.host as Float64Array], scalars: [1, -1] });
        for (let i = 0; i < m.length; i++) m[i] = 2 - m[i]!;
      } else {
        const lo = this.int(m.length), hi = lo + 1 + this.int(m.length - lo);
        this.note(g, `program writes [${lo},${hi})`);
        applyWrite(m, lo, hi, salt);
        applyWrite(b.host as Float64Array, lo, hi, salt);
      }
    }
  }

  /** One task per device that takes the whole of it (8 KiB on the host backend): x3. */
  private async wholeDevices(tag: string): Promise<void> {
    const per = ttg.device.stats().per_device;
    for (let d = 0; d < per.length; d++) {
      if (per[d]!.place !== 'device') continue;
      const cap = per[d]!.capacity;
      const full = new ttg.Buffer(new Float64Array(Number.isFinite(cap) ? cap / 8 : 1024).fill(1));
      const e = new ttg.Edge<number, number>(`${tag}-whole-${d}`);
      const tt = ttg.make_tt(function* () {
        const { stream } = (yield ttg.device.input(full)) as ttg.device.InputResult;
        ttg.device.kernels.dscal(stream, full.length, 3, full);
        yield ttg.device.kernel(full);
      }, [e], [], { name: `${tag}-whole-${d}` }).set_devicehint(() => d);
      ttg.make_graph_executable(tt);
      tt.invoke(0, 0);
      await within(ttg.fence({ quiet: true }), HANG_S * 1000 + 20_000, `${tag}: the whole device ${d}`);
      expect(mismatch(full.host, new Float64Array(full.length).fill(3)), `${tag}: the whole device ${d}`).to.equal(undefined);
      if (Number.isFinite(cap)) expect(ttg.device.stats().per_device[d]!.used_bytes, `${tag}: device ${d} holds the whole-device buffer only`).to.equal(full.bytes);
    }
    resting(`${tag} (after the whole devices)`);
  }
}

/** After a phase: nothing pinned, no stream loaded, no task holding buffers, used bytes those of the copies held. */
function resting(tag: string): void {
  const r = deviceRuntime()!;
  const per = ttg.device.stats().per_device;
  per.forEach((s, d) => {
    expect(s.pinned_bytes, `${tag}: bytes pinned on place ${d}`).to.equal(0);
    const held = r.memory.resident(d).reduce((n, b) => n + b.bytes, 0);
    expect(s.used_bytes, `${tag}: bytes used on place ${d}: its copies'`).to.equal(held);
    expect(s.used_bytes, `${tag}: bytes used on place ${d}`).to.be.at.most(s.capacity);
  });
  const loaded = r.streams.all.filter((s) => s.load !== 0).map((s) => `stream ${s.id}: load ${s.load}`);
  expect(loaded, `${tag}: streams still loaded`).to.deep.equal([]);
  expect(r.holding.size, `${tag}: tasks still holding buffers`).to.equal(0);
}

describe(`device property stress under faults on the ${backend} backend`, function () {
  this.timeout(180_000);
  onSuiteDevices();
  let kernels: Record<string, ttg.device.KernelFn> | undefined;
  const savedHang = process.env['TTG_HANG_TIMEOUT'];
  before(() => {
    process.env['TTG_HANG_TIMEOUT'] = String(HANG_S);
    kernels = ttg.device.kernels.load(build(), specs()) as unknown as Record<string, ttg.device.KernelFn>;
  });
  after(() => {
    faults({ faultDevOp: 0, faultDevDone: 0 });
    if (savedHang === undefined) delete process.env['TTG_HANG_TIMEOUT'];
    else process.env['TTG_HANG_TIMEOUT'] = savedHang;
  });

  for (const seed of SEEDS) {
    it(`seed ${seed}: ${PHASES} phases of listings twice, inputs in flight, evictions, refused enqueues, failed completions and kernel errors; every value as a host-only run`, async () => {
      const per = ttg.device.stats().per_device;
      const st = new FaultStress(seed, per.length, Math.min(...per.map((d) => d.capacity)), kernels);
      st.graph(`fs${seed}`);
      const evictions = ttg.device.stats().evictions;
      const modes: Record<string, number> = {};
      for (let ph = 0; ph < PHASES; ph++) {
        const failed = await st.run(ph);
        const m = failed ? `${st.mode} (failed)` : st.mode;
        modes[m] = (modes[m] ?? 0) + 1;
      }
      if (backend !== 'host') expect(ttg.device.stats().evictions - evictions, `seed ${seed}: evictions`).to.be.greaterThan(0);
      if (process.env['TTG_STRESS_VERBOSE'] !== undefined) console.log(`seed ${seed}: ${JSON.stringify(modes)}, ${ttg.device.stats().evictions - evictions} evictions`);
    });
  }
});
