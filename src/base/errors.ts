/**
 * Every error the runtime raises is a {@link TtgError} built by one of the factories below, so
 * codes and message wording stay consistent and each message names TT, terminal, key and rank.
 */
import { shortJson } from './short-json.js';

/** Machine-readable error codes carried by {@link TtgError.code}. */
export type TtgErrorCode =
  | 'E_TASK_FAILED'
  | 'E_DUPLICATE_INPUT'
  | 'E_TERMINAL_RANGE'
  | 'E_UNCONNECTED'
  | 'E_DUPLICATE_EDGE'
  | 'E_BAD_KEY'
  | 'E_SERIALIZE'
  | 'E_PROCMAP_RANGE'
  | 'E_REDUCER_COUNT'
  | 'E_ARITY'
  | 'E_NOT_EXECUTABLE'
  | 'E_NOT_INITIALIZED'
  | 'E_FINALIZED'
  | 'E_INVALID_ARGUMENT'
  | 'E_INCOMPLETE'
  | 'E_HANG'
  | 'E_CORRUPT'
  | 'E_TRANSPORT'
  | 'E_DEVICE_MEMORY'
  | 'E_DEVICE'
  | 'E_MOVED'
  | 'E_READ_ONLY'
  | 'E_COLLECTIVE';

/** Where an error happened; every field is optional because not every error has every part. */
export interface TtgErrorContext {
  tt?: string;
  terminal?: number;
  key?: unknown;
  rank?: number;
  cause?: unknown;
}

/** The one error class of ttg: `code` says what went wrong, the message says where. */
export class TtgError extends Error {
  /** Stable machine-readable code, e.g. `E_DUPLICATE_INPUT`. */
  readonly code: TtgErrorCode;
  /** Name of the template task involved, when there is one. */
  readonly tt: string | undefined;
  /** Input or output terminal index involved, when there is one. */
  readonly terminal: number | undefined;
  /** Task key involved, when there is one. */
  readonly key: unknown;
  /** Rank that detected the error. */
  readonly rank: number | undefined;
  /** The message without code and location (what other ranks are told). */
  readonly detail: string;
  /**
   * On the error a failed fence rejects with: the first error each rank raised in that phase, by
   * rank (the one the fence rejects with comes first); in one process, that error alone.
   */
  declare readonly errors?: readonly TtgError[];

  constructor(code: TtgErrorCode, message: string, ctx: TtgErrorContext = {}) {
    super(`${code}: ${message}${where(ctx)}`, ctx.cause === undefined ? undefined : { cause: ctx.cause });
    this.name = 'TtgError';
    this.code = code;
    this.detail = message;
    this.tt = ctx.tt;
    this.terminal = ctx.terminal;
    this.key = ctx.key;
    this.rank = ctx.rank;
  }
}

/** An error's fields as the dashboard and the report show them (the key rendered, '' when absent). */
export function errorFields(err: TtgError): { code: string; tt: string; key: string; message: string } {
  return { code: err.code, tt: err.tt ?? '', key: err.key === undefined ? '' : describeKey(err.key), message: err.detail };
}

/** Characters of a rendered key at most (a key of any size or shape stays one short line). */
const KEY_CHARS = 120;

/** Renders a key for humans: short (at most 120 characters, whatever the key's size), unambiguous, never throws (keys may be cyclic or exotic). */
export function describeKey(key: unknown): string {
  try {
    if (key === undefined) return '(none)';
    if (typeof key === 'number' || typeof key === 'boolean' || typeof key === 'bigint') return String(key);
    if (typeof key === 'function') return `[function ${key.name || 'anonymous'}]`;
    if (typeof key === 'symbol') return key.toString();
    return shortJson(key, KEY_CHARS);
  } catch {
    return '[unprintable key]';
  }
}

function where(ctx: TtgErrorContext): string {
  const parts: string[] = [];
  if (ctx.tt !== undefined) parts.push(`TT '${ctx.tt}'`);
  if (ctx.terminal !== undefined) parts.push(`terminal ${String(ctx.terminal)}`);
  if ('key' in ctx) parts.push(`key ${describeKey(ctx.key)}`);
  if (ctx.rank !== undefined) parts.push(`rank ${ctx.rank}`);
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

/** `e instanceof TtgError`; false for a value whose prototype cannot be read (a Proxy that traps it). */
export function isTtgError(e: unknown): e is TtgError {
  try {
    return e instanceof TtgError;
  } catch {
    return false;
  }
}

/** What a thrown value says: its message, or itself as text; never throws. */
export function causeText(cause: unknown): string {
  // a thrown value may be a Proxy, an Error whose message is a Symbol or whose toString throws
  try {
    return String(cause instanceof Error ? cause.message : cause);
  } catch {
    return '[unprintable]';
  }
}

/** Named factories: the only places that construct {@link TtgError}. */
export const Errors = {
  taskFailed(tt: string, key: unknown, rank: number, cause: unknown): TtgError {
    return new TtgError('E_TASK_FAILED', `task body threw: ${causeText(cause)}`, { tt, key, rank, cause });
  },
  duplicateInput(tt: string, terminal: number, key: unknown, rank: number): TtgError {
    return new TtgError(
      'E_DUPLICATE_INPUT',
      'a second value arrived on a plain (non-reducing) input for a task that already has one',
      { tt, terminal, key, rank },
    );
  },
  outputRange(tt: string, terminal: number, count: number, key: unknown, rank: number): TtgError {
    return new TtgError('E_TERMINAL_RANGE', `output terminal ${String(terminal)} out of range: the TT has ${count} output terminal(s)`, {
      tt, terminal, key, rank,
    });
  },
  inputRange(tt: string, terminal: number, count: number, rank: number): TtgError {
    return new TtgError('E_TERMINAL_RANGE', `input terminal ${String(terminal)} out of range: the TT has ${count} input terminal(s)`, {
      tt, terminal, rank,
    });
  },
  unconnected(tt: string, terminal: number, edge: string, rank: number): TtgError {
    return new TtgError('E_UNCONNECTED', `output terminal ${terminal} (edge '${edge}') is not connected to any input terminal`, {
      tt, terminal, rank,
    });
  },
  duplicateEdge(tt: string, edge: string, side: 'input' | 'output', rank: number): TtgError {
    return new TtgError('E_DUPLICATE_EDGE', `edge '${edge}' is listed more than once among the ${side}s`, { tt, rank });
  },
  badKey(tt: string | undefined, key: unknown, why: string, rank: number, terminal?: number): TtgError {
    return new TtgError('E_BAD_KEY', `invalid key: ${why}`, { tt, terminal, key, rank });
  },
  serialize(what: string, tt: string | undefined, terminal: number | undefined, key: unknown, rank: number, cause: unknown): TtgError {
    return new TtgError('E_SERIALIZE', `cannot serialize ${what}: ${causeText(cause)}`, { tt, terminal, key, rank, cause });
  },
  /**
   * A send to another rank whose `what` cannot travel. `from` is the task whose body sent it
   * (undefined outside any task); `tt` and `terminal` are where it was going.
   */
  serializeSend(what: 'key' | 'value' | 'message', from: { tt: string; key: unknown } | undefined, tt: string | undefined, terminal: number | undefined,
    key: unknown, rank: number, cause: unknown): TtgError {
    const by = from === undefined ? '' : ` sent by TT '${from.tt}' (task ${describeKey(from.key)})`;
    const to = tt === undefined ? '' : ` to ${terminal === undefined ? '' : `input terminal ${terminal} of `}TT '${tt}'`;
    return new TtgError('E_SERIALIZE', `cannot serialize the ${what}${by}${to}: ${causeText(cause)}`, { tt, terminal, key, rank, cause });
  },
  procmapRange(tt: string, key: unknown, result: unknown, size: number, rank: number): TtgError {
    return new TtgError('E_PROCMAP_RANGE', `procmap returned ${String(result)}, not an integer rank in [0, ${size})`, { tt, key, rank });
  },
  reducerCount(tt: string, terminal: number, key: unknown, detail: string, rank: number): TtgError {
    return new TtgError('E_REDUCER_COUNT', `reducer stream size exceeded: ${detail}`, { tt, terminal, key, rank });
  },
  arity(tt: string, expected: number, got: number, key: unknown, rank: number): TtgError {
    return new TtgError('E_ARITY', `invoke expects ${expected} input value(s), one per input terminal (or none when every input is a control edge), got ${got}`, { tt, key, rank });
  },
  arityControl(tt: string, terminal: number, edge: string, key: unknown, rank: number): TtgError {
    return new TtgError('E_ARITY', `invoke(key) without values needs every input to be a control edge, but input #${terminal} (edge '${edge}') carries values: pass one value per input`, { tt, terminal, key, rank });
  },
  bodyArity(tt: string, declared: number, inputs: number, rank: number): TtgError {
    return new TtgError('E_ARITY', `the body declares ${declared} parameters, but it is called with (key, one value per input (${inputs}), out): ${inputs + 2} at most`, { tt, rank });
  },
  valueOnControl(what: string, edge: string, ctx: TtgErrorContext): TtgError {
    return new TtgError('E_INVALID_ARGUMENT', `${what} sends a value on control edge '${edge}', which carries keys only (sendk, or undefined)`, ctx);
  },
  notExecutable(tt: string, rank: number): TtgError {
    return new TtgError('E_NOT_EXECUTABLE', 'call ttg.make_graph_executable(...) on this graph before invoking it', { tt, rank });
  },
  notInitialized(what: string): TtgError {
    return new TtgError('E_NOT_INITIALIZED', `${what} needs the world: call 'await ttg.initialize()' first`);
  },
  finalized(what: string, rank: number): TtgError {
    return new TtgError('E_FINALIZED', `${what} after ttg.finalize(): the world is gone`, { rank });
  },
  invalidArgument(what: string, detail: string, ctx: TtgErrorContext = {}): TtgError {
    return new TtgError('E_INVALID_ARGUMENT', `${what} ${detail}`, ctx);
  },
  /** `e`, thrown while handling a message, as the error of the run. */
  handling(e: unknown, rank: number): TtgError {
    return isTtgError(e) ? e : Errors.transport(`handling a message failed: ${causeText(e)}`, rank, e);
  },
  transport(detail: string, rank: number, cause?: unknown): TtgError {
    return new TtgError('E_TRANSPORT', detail, { rank, cause });
  },
  hang(seconds: number, summary: string, rank: number): TtgError {
    return new TtgError('E_HANG', `fence() saw no progress for ${seconds} s while work remains (TTG_HANG_TIMEOUT): ${summary}`, { rank });
  },
  corrupt(edge: string | undefined, tt: string | undefined, terminal: number | undefined, key: unknown, src: number, rank: number): TtgError {
    const on = edge === undefined ? 'a message' : `a value on edge '${edge}'`;
    return new TtgError('E_CORRUPT', `${on} from rank ${src} failed its TTG_CHECKSUM check (payload corrupted in transit)`, {
      tt, terminal, key, rank,
    });
  },
  moved(tt: string, terminal: number, key: unknown, rank: number): TtgError {
    return new TtgError('E_MOVED', 'this typed array was already moved to another rank by an earlier send of this consumed input (its buffer is detached); send it before moving it, or send a copy', {
      tt, terminal, key, rank,
    });
  },
  collective(detail: string, rank: number): TtgError {
    return new TtgError('E_COLLECTIVE', detail, { rank });
  },
  incomplete(count: number, summary: string, rank: number): TtgError {
    return new TtgError('E_INCOMPLETE', `${count} task(s) still miss inputs at fence: ${summary}`, { rank });
  },
} as const;

/**
 * A runtime error raised inside a body without a TT of its own (e.g. a kernel's bad argument)
 * gets the failing task's TT, key and rank, so the message says where it happened.
 */
export function withTask(e: TtgError, tt: string, key: unknown, rank: number): TtgError {
  if (e.tt !== undefined) return e;
  return new TtgError(e.code, e.detail, { tt, terminal: e.terminal, key, rank, cause: e });
}
