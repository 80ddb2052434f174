/**
 * Small helpers shared by the core test files (not a test file itself: mocha only runs *.test.js).
 */
import { expect } from 'chai';
import * as ttg from 'ttg';

/** Rejects with a descriptive error when `p` does not settle within `ms` (so a hang fails fast). */
export function within<T>(p: Promise<T>, ms = 5000, what = 'operation'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** A fence that must settle quickly; `quiet` by default because several tests leave tasks waiting on purpose. */
export function fence(options: ttg.FenceOptions = {}): Promise<ttg.FenceReport> {
  return within(ttg.fence({ quiet: true, ...options }), 10000, 'ttg.fence()');
}

/** The rejection reason of `p` (fails when `p` resolves). */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection, but the promise resolved');
}

/** The exception thrown synchronously by `fn` (fails when it returns). */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected a synchronous throw, but the call returned');
}

/**
 * Asserts that `e` is a TtgError with `code` whose message contains every string of `parts`
 * (TT name, terminal, key...). Returns it typed.
 */
export function expectTtgError(e: unknown, code: ttg.TtgErrorCode, parts: readonly string[] = []): ttg.TtgError {
  expect(e, `expected a TtgError ${code}, got ${String(e)}`).to.be.instanceOf(ttg.TtgError);
  const err = e as ttg.TtgError;
  expect(err.code, err.message).to.equal(code);
  for (const p of parts) expect(err.message, `message should name ${p}`).to.include(p);
  return err;
}

/** Report entries that belong to TTs whose name starts with `prefix` (other files may use the world too). */
export function mine(report: ttg.FenceReport, prefix: string): { incomplete: ttg.IncompleteTask[]; held: ttg.HeldTaskReport[] } {
  return {
    incomplete: report.incomplete.filter((t) => t.tt.startsWith(prefix)),
    held: report.held.filter((t) => t.tt.startsWith(prefix)),
  };
}

let healthyRuns = 0;

/**
 * Builds and runs a small healthy graph (a producer feeding a two-input join) and checks every
 * task ran exactly once and nothing was left behind: proof that the process still works after an
 * error.
 */
export async function expectHealthy(tag: string): Promise<void> {
  const id = `${tag}-healthy${healthyRuns++}`;
  const start = new ttg.Edge<number, number>(`${id}-start`);
  const left = new ttg.Edge<number, number>(`${id}-left`);
  const right = new ttg.Edge<number, string>(`${id}-right`);
  const seen: string[] = [];
  const p = ttg.make_tt((k: number, v: number, out) => {
    out.send(0, k, v * 2);
    out.send(1, k, `r${k}`);
  }, [start], [left, right], { name: `${id}-P` });
  const j = ttg.make_tt((k: number, a: number, b: string) => {
    seen.push(`${k}:${a}:${b}`);
  }, [left, right], [], { name: `${id}-J` });
  ttg.make_graph_executable(p, j);
  for (let k = 0; k < 5; k++) p.invoke(k, k + 10);
  ttg.execute();
  const report = await fence();
  expect(seen.sort()).to.deep.equal([0, 1, 2, 3, 4].map((k) => `${k}:${(k + 10) * 2}:r${k}`));
  expect(mine(report, id).incomplete).to.deep.equal([]);
}

/** Current JS stack depth in frames (with an unlimited trace, restored afterwards). */
export function stackDepth(): number {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = Infinity;
  const depth = (new Error().stack ?? '').split('\n').length;
  Error.stackTraceLimit = limit;
  return depth;
}

/** Resolves after the event loop has turned (timers and I/O had a chance to run). */
export function tick(ms = 0): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A small deterministic PRNG (mulberry32): the same numbers on every rank, so failures reproduce. */
export function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
