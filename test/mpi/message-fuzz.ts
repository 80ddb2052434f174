/**
 * A seeded fuzz of the message path, run by test/mpi/message-fuzz.test.ts under `mpirun`
 * (`node message-fuzz.js SEED PHASES`). It attacks two promises that the README makes about
 * values that cross ranks, with payloads from 8 B to 8 MiB that straddle the transport's limits
 * (4 KiB: staged by the addon; 64 KiB, TTG_EAGER_BYTES: inside the header message; above: sent
 * from and received into the arrays' own memory):
 *
 * - a value handed to a send reaches every receiver as it was when sent, whatever tasks of the
 *   sender's rank do to it next (a local consumer that overwrites it, a local task that moves it on);
 * - the messages of one sender reach a receiver in send order (a stream's end never overtakes
 *   its values; a reused key pairs its values in send order).
 *
 * Every rank derives the same plan for each phase from (SEED, phase). A driver task chain D on
 * each rank makes that rank's sends, in the plan's order, over several tasks, so that the local
 * receivers of one D task run (and overwrite) while the next D task sends more:
 *
 *   D ──broadcast v──▶ A(k) on several ranks, the sender's own included (consume: check, then
 *     │                 overwrite v, or refill it and move it on to Z, or broadcast it to Z and
 *     │                 send it once more)            Z(k) (consume: check, overwrite or move on to Z)
 *     │           └──▶ B(k) (reads only)
 *     ├─values, some broadcast to several keys──▶ Rc / Rs / Rf(k): a reducer summing in place,
 *     │      closed by a count(key) / set_argstream_size from any rank / finalize_argstream
 *     │      sent right after the values by their one sender
 *     └─a_0, b_0, a_1, b_1, ...──▶ J(k): two plain inputs, the same key again after each run
 *
 * Each value is numbered (vid, unique in its phase; its content a hash of (vid, element)), and
 * keys encode their phase and owner rank, so each receiver knows from the plan exactly what it
 * must get. Every rank prints `RESULT <json>`: mismatched values, tasks that never ran or ran
 * once too often, and fence rejections, each with a few examples.
 */
import * as ttg from 'ttg';
import { rng } from '../helpers.js';

const SEED = Number(process.argv[2] ?? 1) >>> 0;
const PHASES = Number(process.argv[3] ?? 6);
const world = await ttg.initialize();
const { rank, size } = world;

/** Ids of a phase are phase * SPAN + n; keys are id * size + owner rank. */
const SPAN = 100_000;
const EXAMPLES = 5;

// ---------------------------------------------------------------- values

type Kind = 'f64' | 'i32' | 'u8' | 'obj';
interface Shape { kind: Kind; bytes: number; ix: boolean }
interface Tile { tile: Float64Array; tag: number; ix?: Int32Array }
type Payload = Float64Array | Int32Array | Uint8Array | Tile;

/** Content of element j of value vid: integers below ~1e6, so sums of a few stay exact. */
function h(vid: number, j: number): number {
  return ((Math.imul(vid, 0x9e3779b1) ^ Math.imul(j + 1, 0x85ebca6b)) >>> 0) % 1_000_003;
}

/** Element j of a value of `kind` that is the sum of the values `vids` (one vid: the value itself). */
function want(kind: Kind, vids: readonly number[], j: number): number {
  let s = 0;
  for (const v of vids) s += kind === 'u8' ? h(v, j) & 15 : h(v, j);
  if (kind === 'f64') s += 0.25 * vids.length;
  if (kind === 'obj') s += 0.5 * vids.length;
  return s;
}

const IX = 1_000_000; // element offset of a tile's index array, so it differs from the tile's

function makePayload(s: Shape, vid: number): Payload {
  const n = s.kind === 'f64' || s.kind === 'obj' ? s.bytes / 8 : s.kind === 'i32' ? s.bytes / 4 : s.bytes;
  const a = s.kind === 'i32' ? new Int32Array(n) : s.kind === 'u8' ? new Uint8Array(n) : new Float64Array(n);
  const v: Payload = s.kind === 'obj' ? { tile: a as Float64Array, tag: vid } : a;
  if (s.kind === 'obj' && s.ix) (v as Tile).ix = new Int32Array(3);
  refill(v, s, vid);
  return v;
}

/** Rewrites `v` in place to the content of value `vid`. */
function refill(v: Payload, s: Shape, vid: number): void {
  const a = 'tile' in v ? v.tile : v;
  for (let j = 0; j < a.length; j++) a[j] = want(s.kind, [vid], j);
  if (!('tile' in v)) return;
  v.tag = vid;
  if (v.ix !== undefined) for (let j = 0; j < v.ix.length; j++) v.ix[j] = want('i32', [vid], IX + j);
}

/** What a consumer writes over a value it owns: never a value's content. */
function clobber(v: Payload): void {
  if ('tile' in v) {
    v.tile.fill(NaN);
    v.tag = -1;
    v.ix?.fill(-1);
  } else if (v instanceof Float64Array) v.fill(NaN);
  else if (v instanceof Int32Array) v.fill(-1);
  else v.fill(255);
}

/** Adds `v` into `acc` (the reducer: in place, as the README allows for an accumulator). */
function addInto(acc: Payload, v: Payload): Payload {
  if ('tile' in acc) {
    const t = v as Tile;
    addArrays(acc.tile, t.tile);
    acc.tag += t.tag;
    if (acc.ix !== undefined) addArrays(acc.ix, t.ix ?? new Int32Array(0));
  } else addArrays(acc, v as typeof acc);
  return acc;
}

function addArrays(acc: Float64Array | Int32Array | Uint8Array, v: ArrayLike<number>): void {
  for (let j = 0; j < acc.length; j++) acc[j] = acc[j]! + (v[j] ?? NaN);
}

/** Why `v` is not the sum of `vids` in shape `s` (first bad element, how many), or undefined. */
function verify(v: unknown, s: Shape, vids: readonly number[]): string | undefined {
  if (s.kind !== 'obj') return verifyArray(v, s.kind, s.bytes, vids, 0);
  if (typeof v !== 'object' || v === null || !('tile' in v)) return `not a tile: ${describe(v)}`;
  const t = v as Tile;
  const tags = vids.reduce((a, b) => a + b, 0);
  if (t.tag !== tags) return `tag ${t.tag}, want ${tags}`;
  if (s.ix !== (t.ix !== undefined)) return `ix ${t.ix === undefined ? 'missing' : 'extra'}`;
  if (t.ix !== undefined) {
    const bad = verifyArray(t.ix, 'i32', 12, vids, IX);
    if (bad !== undefined) return `ix: ${bad}`;
  }
  return verifyArray(t.tile, 'obj', s.bytes, vids, 0);
}

const CTOR = { f64: Float64Array, obj: Float64Array, i32: Int32Array, u8: Uint8Array } as const;

function verifyArray(v: unknown, kind: Kind, bytes: number, vids: readonly number[], offset: number): string | undefined {
  const ctor = CTOR[kind];
  if (!(v instanceof ctor)) return `not a ${ctor.name}: ${describe(v)}`;
  if (v.byteLength !== bytes) return `${v.byteLength} bytes, want ${bytes}`;
  let bad = 0;
  let first = -1;
  for (let j = 0; j < v.length; j++) {
    if (v[j] === want(kind, vids, offset + j)) continue;
    if (bad++ === 0) first = j;
  }
  if (bad === 0) return undefined;
  return `${bad}/${v.length} elements bad, first [${first}] = ${v[first]} want ${want(kind, vids, offset + first)}`;
}

/** Whether `v` has the type and length of shape `s`, so that it can be refilled. */
function fits(v: unknown, s: Shape): v is Payload {
  const a = s.kind === 'obj' && typeof v === 'object' && v !== null && 'tile' in v ? (v as Tile).tile : v;
  return a instanceof CTOR[s.kind] && a.byteLength === s.bytes;
}

function describe(v: unknown): string {
  if (ArrayBuffer.isView(v)) return `${v.constructor.name}(${v.byteLength} B)`;
  return v === null || typeof v !== 'object' ? String(v) : Object.keys(v).join(',');
}

const shapeName = (s: Shape) => `${s.kind}${s.ix ? '+ix' : ''}[${s.bytes}B]`;

// ---------------------------------------------------------------- the plan


/** Payload sizes in bytes, with weights: around 4 KiB, around 64 KiB, large, and a few 8 MiB. */
const SIZES: ReadonlyArray<readonly [number, number]> = [
  [8, 2], [24, 1], [1024, 1], [4088, 2], [4096, 2], [4104, 2], [16384, 1],
  [65528, 2], [65536, 2], [65544, 2], [131072, 2], [1048584, 2], [8 << 20, 1],
];
const KINDS: ReadonlyArray<readonly [Kind, number]> = [['f64', 12], ['i32', 2], ['u8', 2], ['obj', 4]];

type Role = 'clobber' | 'forward' | 'twice';
type Mode = 'count' | 'sized' | 'final';
/** A broadcast receiver A(key): what it gets, and what it does with it. */
interface AEntry { src: number; vid: number; shape: Shape; role: Role; vid2: number; z: number[] }
/** A sink Z(key): the refilled value of A, from A's rank; refilled again and moved on to Z(next) when set. */
interface ZEntry { src: number; vid: number; shape: Shape; next: number | undefined }
interface Reduction { mode: Mode; keys: number[]; shape: Shape; vids: number[]; srcs: number[] }
interface Round { key: number; src: number; vid: number; shape: Shape; index: number }
type Action =
  | { t: 'bcast'; vid: number; shape: Shape; a: number[]; b: number[] }
  | { t: 'contrib'; r: Reduction; i: number }
  | { t: 'final'; r: Reduction }
  | { t: 'size'; r: Reduction }
  | { t: 'round'; r: Round };

interface Plan {
  /** D's work: actions per rank per D task (chunk), in send order. */
  chunks: Action[][][];
  a: Map<number, AEntry>;
  b: Map<number, { src: number; vid: number; shape: Shape }>;
  z: Map<number, ZEntry>;
  r: Map<number, Reduction>;
  /** J's rounds by their b value (the vid of their a). */
  rounds: Map<number, Round>;
  /** Task ids (see {@link ran}) that must run once on each rank. */
  expected: string[][];
}

/** Builds one phase's plan; every rank calls it in the same order, so all draw the same numbers. */
class Planner {
  private n = 0;
  private readonly seqs: Action[][][] = Array.from({ length: size }, () => []);
  readonly plan: Plan = {
    chunks: [], a: new Map(), b: new Map(), z: new Map(), r: new Map(), rounds: new Map(),
    expected: Array.from({ length: size }, () => []),
  };

  constructor(readonly phase: number, readonly rand: () => number) {}

  int(n: number): number { return Math.floor(this.rand() * n); }
  pick<T>(xs: ReadonlyArray<readonly [T, number]>): T {
    let x = this.rand() * xs.reduce((s, [, w]) => s + w, 0);
    for (const [v, w] of xs) if ((x -= w) < 0) return v;
    return xs[xs.length - 1]![0];
  }
  /** A rank other than `r` (r itself on one rank). */
  other(r: number): number { return size === 1 ? r : (r + 1 + this.int(size - 1)) % size; }
  id(): number { return this.phase * SPAN + this.n++; }
  key(owner: number): number { return this.id() * size + owner; }
  shape(maxBytes = Infinity): Shape {
    const kind = this.pick(KINDS);
    let bytes = this.pick(SIZES);
    while (bytes > maxBytes) bytes = this.pick(SIZES);
    return { kind, bytes, ix: kind === 'obj' && this.rand() < 0.5 };
  }
  expect(owner: number, id: string): void { this.plan.expected[owner]!.push(id); }
  /** Adds one sequence of actions of rank `src`, kept in order when the sequences are interleaved. */
  seq(src: number, actions: Action[]): void { this.seqs[src]!.push(actions); }

  /** Interleaves each rank's sequences at random, then cuts the result into 1 to 3 D tasks. */
  finish(): Plan {
    for (let r = 0; r < size; r++) {
      const seqs = this.seqs[r]!.map((s) => [...s]);
      const order: Action[] = [];
      while (seqs.length > 0) {
        const i = this.int(seqs.length);
        order.push(seqs[i]!.shift()!);
        if (seqs[i]!.length === 0) seqs.splice(i, 1);
      }
      const cuts = [0, ...Array.from({ length: this.int(3) }, () => this.int(order.length + 1)).sort((x, y) => x - y), order.length];
      const chunks = cuts.slice(1).map((end, c) => order.slice(cuts[c], end));
      this.plan.chunks.push(chunks);
      chunks.forEach((_, c) => this.expect(r, `D:${this.phase}:${c}`));
    }
    return this.plan;
  }
}

/** One broadcast to A keys (the sender's rank, another rank, more at random) and maybe B keys. */
function planBroadcast(p: Planner): void {
  const src = p.int(size);
  const vid = p.id();
  const shape = p.shape();
  const owners = [src, p.other(src), ...Array.from({ length: p.int(3) }, () => p.int(size))];
  const a = owners.map((o) => planA(p, o, src, vid, shape));
  const b = Array.from({ length: p.rand() < 0.5 ? 0 : 1 + p.int(2) }, () => p.key(p.int(size)));
  for (const k of b) {
    p.plan.b.set(k, { src, vid, shape });
    p.expect(k % size, `B:${k}`);
  }
  p.seq(src, [{ t: 'bcast', vid, shape, a, b }]);
}

function planA(p: Planner, owner: number, src: number, vid: number, shape: Shape): number {
  const key = p.key(owner);
  const role = p.pick<Role>([['clobber', 2], ['forward', 1], ['twice', 1]]);
  const vid2 = p.id();
  const z: number[] = [];
  // twice: broadcast to Z keys on this rank and others, then send to one more Z
  if (role === 'twice') z.push(p.key(owner), ...Array.from({ length: p.int(3) }, () => p.key(p.int(size))));
  if (role !== 'clobber') z.push(p.key(p.other(owner)));
  for (const k of z) planZ(p, k, owner, vid2, shape, p.rand() < 0.4);
  p.plan.a.set(key, { src, vid, shape, role, vid2, z });
  p.expect(owner, `A:${key}`);
  return key;
}

function planZ(p: Planner, key: number, src: number, vid: number, shape: Shape, moveOn: boolean): void {
  const next = moveOn ? p.key(p.rand() < 0.5 ? key % size : p.other(key % size)) : undefined;
  p.plan.z.set(key, { src, vid, shape, next });
  p.expect(key % size, `Z:${key}`);
  if (next !== undefined) planZ(p, next, key % size, p.id(), shape, false);
}

/** A group of reducing keys that get the same values (broadcast when the group has several keys). */
function planReduction(p: Planner): void {
  const mode = p.pick<Mode>([['count', 1], ['sized', 1], ['final', 1]]);
  const keys = Array.from({ length: 1 + p.int(p.rand() < 0.6 ? 1 : 3) }, () => p.key(p.int(size)));
  const shape = p.shape(p.rand() < 0.85 ? 1 << 20 : Infinity);
  const n = 1 + p.int(6);
  // a stream that finalize closes has one sender: only its own values are ordered before the end
  const one = mode === 'final' ? p.other(keys[0]! % size) : -1;
  const srcs = Array.from({ length: n }, () => (one >= 0 ? one : p.int(size)));
  const r: Reduction = { mode, keys, shape, vids: srcs.map(() => p.id()), srcs };
  for (const k of keys) {
    p.plan.r.set(k, r);
    p.expect(k % size, `R:${k}`);
  }
  if (mode === 'final') p.seq(one, [{ t: 'final', r }]);
  else srcs.forEach((s, i) => p.seq(s, [{ t: 'contrib', r, i }]));
  if (mode === 'sized') p.seq(p.int(size), [{ t: 'size', r }]);
}

/** Rounds a_i, b_i of one sender to one J key (reused in later phases), the first rounds large. */
function planJoin(p: Planner, slot: number): void {
  const src = p.int(size);
  const key = slot * size + (p.rand() < 0.8 ? p.other(src) : src);
  const rounds = Array.from({ length: 2 + p.int(3) }, (_, index): Round => (
    { key, src, vid: p.id(), shape: index === 0 && p.rand() < 0.6 ? { kind: 'f64', bytes: 1048584, ix: false } : p.shape(), index }));
  for (const r of rounds) {
    p.plan.rounds.set(r.vid, r);
    p.expect(key % size, `J:${key}:${r.vid}`);
  }
  p.seq(src, rounds.map((r) => ({ t: 'round', r })));
}

const plans = new Map<number, Plan>();

/** The plan of `phase`, made on first use (a message of the next phase may come before its fence). */
function planOf(phase: number): Plan {
  let plan = plans.get(phase);
  if (plan !== undefined) return plan;
  const p = new Planner(phase, rng(Math.imul(SEED, 0x2c1b3c6d) ^ Math.imul(phase + 1, 0x297a2d39)));
  for (let i = 2 + p.int(3); i > 0; i--) planBroadcast(p);
  for (let i = 2 + p.int(3); i > 0; i--) planReduction(p);
  for (let slot = 1 + p.int(2); slot > 0; slot--) planJoin(p, slot);
  plan = p.finish();
  plans.set(phase, plan);
  return plan;
}

const byKeyOwner = (k: number) => k % size;
const phaseOfKey = (key: number) => Math.floor(Math.floor(key / size) / SPAN);
const phaseOfVid = (vid: number) => Math.floor(vid / SPAN);

// ---------------------------------------------------------------- what this rank saw

/** Runs of each task id on this rank. */
const ran = new Map<string, number>();
const mismatches: string[] = [];
let mismatched = 0;
/** Mismatches by the TT that saw them (J's order separately). */
const byTT: Record<string, number> = {};

function record(id: string): void {
  ran.set(id, (ran.get(id) ?? 0) + 1);
}

function mismatch(what: string): void {
  const tt = what.startsWith('J') && what.includes(' ran after ') ? 'J order' : what.split(' ')[0]!;
  byTT[tt] = (byTT[tt] ?? 0) + 1;
  if (mismatched++ < EXAMPLES) mismatches.push(what.slice(0, 240));
}

/** Checks `v` against `vids`; `what` names the task, `from` the rank its value came from. */
function check(what: string, from: number | string, v: unknown, s: Shape, vids: readonly number[]): boolean {
  const bad = verify(v, s, vids);
  if (bad !== undefined) mismatch(`${what} ${shapeName(s)} from rank ${from}${from === rank ? ' (local)' : ''}: ${bad}`);
  return bad === undefined;
}

/** Runs a body; a throw is a mismatch (never a failed run, which would hide the other findings). */
function guarded(what: () => string, body: () => void): void {
  try {
    body();
  } catch (e) {
    mismatch(`${what()} threw ${e instanceof Error ? e.message : String(e)}`);
  }
}

// ---------------------------------------------------------------- the graph

const toA = new ttg.Edge<number, Payload>('toA');
const toB = new ttg.Edge<number, Payload>('toB');
const toZ = new ttg.Edge<number, Payload>('toZ');
const toRc = new ttg.Edge<number, Payload>('toRc');
const toRs = new ttg.Edge<number, Payload>('toRs');
const toRf = new ttg.Edge<number, Payload>('toRf');
const toJa = new ttg.Edge<number, Payload>('toJa');
const toJb = new ttg.Edge<number, number>('toJb');
const next = new ttg.Edge<number, number>('nextD');
const D_OUT = [toA, toB, toRc, toRs, toRf, toJa, toJb, next] as const;
type DOut = ttg.Out<typeof D_OUT>;

/** D(chunk * size + rank): one slice of this rank's sends of the phase it is given. */
const d = ttg.make_tt((k: number, phase: number, out) => {
  const chunk = Math.floor(k / size);
  record(`D:${phase}:${chunk}`);
  const chunks = planOf(phase).chunks[rank]!;
  for (const act of chunks[chunk] ?? []) perform(act, out);
  if (chunk + 1 < chunks.length) out.send(7, k + size, phase);
}, [next], D_OUT, { name: 'D' });

function perform(act: Action, out: DOut): void {
  switch (act.t) {
    case 'bcast': {
      const v = makePayload(act.shape, act.vid);
      if (act.b.length === 0) out.broadcast(0, act.a, v);
      else out.broadcast([0, 1], [act.a, act.b], v);
      return;
    }
    case 'contrib': return sendToStream(out, act.r, act.i);
    case 'final':
      for (let i = 0; i < act.r.vids.length; i++) sendToStream(out, act.r, i);
      for (const k of act.r.keys) out.finalize_argstream(4, k);
      return;
    case 'size':
      for (const k of act.r.keys) out.set_argstream_size(3, k, act.r.vids.length);
      return;
    case 'round':
      out.send(5, act.r.key, makePayload(act.r.shape, act.r.vid));
      out.send(6, act.r.key, act.r.vid);
  }
}

function sendToStream(out: DOut, r: Reduction, i: number): void {
  const v = makePayload(r.shape, r.vids[i]!);
  const t = r.mode === 'count' ? 2 : r.mode === 'sized' ? 3 : 4;
  if (r.keys.length === 1) out.send(t, r.keys[0]!, v);
  else out.broadcast(t, r.keys, v);
}

/** A: checks the broadcast value, then overwrites it, or refills it and moves it on to Z. */
const a = ttg.make_tt((key: number, v: Payload, out) => {
  const e = planOf(phaseOfKey(key)).a.get(key)!;
  record(`A:${key}`);
  guarded(() => `A ${key} (${e.role})`, () => {
    // a torn value is still refilled and sent on: what Z gets is checked on its own
    if (!check(`A ${key} (${e.role})`, e.src, v, e.shape, [e.vid]) && !fits(v, e.shape)) return;
    if (e.role === 'clobber') return clobber(v);
    refill(v, e.shape, e.vid2);
    if (e.role === 'twice') out.broadcast(0, e.z.slice(0, -1), v);
    out.send(0, e.z[e.z.length - 1]!, v);
  });
}, [toA], [toZ], { name: 'A', consume: [0] });

const b = ttg.make_tt((key: number, v: Payload) => {
  const e = planOf(phaseOfKey(key)).b.get(key)!;
  record(`B:${key}`);
  check(`B ${key}`, e.src, v, e.shape, [e.vid]);
}, [toB], [], { name: 'B' });

/** Z: checks A's refilled value, then overwrites it or moves it on to another Z. */
const z = ttg.make_tt((key: number, v: Payload, out) => {
  const e = planOf(phaseOfKey(key)).z.get(key)!;
  record(`Z:${key}`);
  guarded(() => `Z ${key}`, () => {
    if (!check(`Z ${key}`, e.src, v, e.shape, [e.vid]) && !fits(v, e.shape)) return;
    if (e.next === undefined) return clobber(v);
    // new content for the next hop, so that its check does not repeat this one
    refill(v, e.shape, planOf(phaseOfKey(e.next)).z.get(e.next)!.vid);
    out.send(0, e.next, v);
  });
}, [toZ], [toZ], { name: 'Z', consume: [0] });

function reducerTT(mode: Mode, edge: ttg.Edge<number, Payload>) {
  return ttg.make_tt((key: number, v: Payload) => {
    const r = planOf(phaseOfKey(key)).r.get(key)!;
    record(`R:${key}`);
    const to = r.keys.length > 1 ? `, each broadcast to ranks ${r.keys.map(byKeyOwner).join('+')}` : '';
    check(`R${mode[0]} ${key} (${r.vids.length} values${to})`, r.srcs.join('+'), v, r.shape, r.vids);
  }, [edge], [], { name: `R${mode[0]}` });
}
const rc = reducerTT('count', toRc).set_input_reducer(0, addInto, (k) => planOf(phaseOfKey(k)).r.get(k)!.vids.length);
const rs = reducerTT('sized', toRs).set_input_reducer(0, addInto);
const rf = reducerTT('final', toRf).set_input_reducer(0, addInto);

/** Last round that ran per J key and phase: rounds of one sender must run in send order. */
const lastRound = new Map<string, number>();

const j = ttg.make_tt((key: number, v: Payload, vid: number) => {
  const r = planOf(phaseOfVid(vid)).rounds.get(vid);
  record(`J:${key}:${vid}`);
  if (r === undefined || r.key !== key) return mismatch(`J ${key}: b = ${vid} is no round of this key`);
  const order = `${phaseOfVid(vid)}:${key}`;
  const prev = lastRound.get(order) ?? -1;
  if (r.index !== prev + 1) mismatch(`J ${key} phase ${phaseOfVid(vid)}: round ${r.index} ran after round ${prev}`);
  lastRound.set(order, r.index);
  check(`J ${key} round ${r.index}`, r.src, v, r.shape, [vid]);
}, [toJa, toJb], [], { name: 'J' });

d.set_procmap(byKeyOwner);
for (const tt of [a, b, z, rc, rs, rf, j]) tt.set_procmap(byKeyOwner);
// some consumers run before anything else is ready: right after the send, while it is in flight
// (by the key's id, not its owner)
a.set_priomap((k) => (Math.floor(k / size) % 3 === 0 ? 0 : 1));
z.set_priomap((k) => Math.floor(k / size) % 2);
ttg.make_graph_executable(d, a, b, z, rc, rs, rf, j);
ttg.execute();

// ---------------------------------------------------------------- phases

const rejections: string[] = [];
let rejected = 0;
const t0 = performance.now();
for (let phase = 0; phase < PHASES; phase++) {
  d.invoke(rank, phase);
  try {
    await ttg.fence({ strict: true });
  } catch (e) {
    const err = e as ttg.TtgError;
    if (rejected++ < EXAMPLES) rejections.push(`phase ${phase}: ${err.code} ${String(err.message).slice(0, 300)}`);
    if (err.code === 'E_HANG') break; // the world cannot fence again
  }
}
const ms = Math.round(performance.now() - t0);

/** Expected task ids of this rank that never ran, and ids that ran unexpectedly or more than once. */
function tally() {
  const expected = new Set<string>();
  for (let p = 0; p < PHASES; p++) for (const id of planOf(p).expected[rank]!) expected.add(id);
  const missing = [...expected].filter((id) => !ran.has(id));
  const extra = [...ran].filter(([id, n]) => n > 1 || !expected.has(id)).map(([id, n]) => `${id} x${n}`);
  return { expected: expected.size, missing, extra };
}

const { expected, missing, extra } = tally();
// Summaries and a few examples: mpirun may split a long line of one rank with another's.
console.log(`RESULT ${JSON.stringify({
  rank, size, seed: SEED, phases: PHASES, ms, expected, ran: ran.size,
  mismatched, byTT, mismatches, missed: missing.length, missing: missing.slice(0, EXAMPLES),
  extras: extra.length, extra: extra.slice(0, EXAMPLES), rejected, rejections,
})}`);
await ttg.finalize();
