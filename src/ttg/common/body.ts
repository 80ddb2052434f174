/**
 * Task bodies come in four forms, told apart once at `make_tt` time from the function's
 * constructor, so running a task never has to guess.
 */

/** How the scheduler drives a body. */
export const enum BodyKind {
  /** `(key, ...inputs, out) => void`: run to completion, no promise per task. */
  Plain = 0,
  /** `async (...) => {}`: completes when its promise settles. */
  Async = 1,
  /** `function* (...)`: yields awaitables; the runtime resumes it with their results. */
  Generator = 2,
  /** `async function* (...)`: like Generator, but each step is itself asynchronous. */
  AsyncGenerator = 3,
}

const AsyncFunction = (async () => {}).constructor;
const GeneratorFunction = function* () {}.constructor;
const AsyncGeneratorFunction = async function* () {}.constructor;

/** Classifies a body function. */
export function bodyKind(fn: Function): BodyKind {
  if (fn instanceof AsyncGeneratorFunction) return BodyKind.AsyncGenerator;
  if (fn instanceof GeneratorFunction) return BodyKind.Generator;
  if (fn instanceof AsyncFunction) return BodyKind.Async;
  return BodyKind.Plain;
}

type AnyBody = (...a: unknown[]) => unknown;

/** Calls `body(key, ...args, out)` without spreading for the common arities. */
export function callBody(body: AnyBody, key: unknown, args: readonly unknown[], out: unknown): unknown {
  switch (args.length) {
    case 0: return body(key, out);
    case 1: return body(key, args[0], out);
    case 2: return body(key, args[0], args[1], out);
    case 3: return body(key, args[0], args[1], args[2], out);
    case 4: return body(key, args[0], args[1], args[2], args[3], out);
    default: return body(key, ...args, out);
  }
}

/** True for promises and other thenables. */
export function isThenable(v: unknown): v is PromiseLike<unknown> {
  return v !== null && (typeof v === 'object' || typeof v === 'function') && typeof (v as PromiseLike<unknown>).then === 'function';
}
