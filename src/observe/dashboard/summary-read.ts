/**
 * A rank's summary as it arrives at rank 0 (JSON in a `Summary` message): rebuilt field by field
 * into a well-formed {@link RankSummary}, its counts per TT in a null-prototype object. A summary
 * comes from another process: an odd or hostile one (a TT named `__proto__`, a field of the wrong
 * type, counts that are not numbers) must neither throw in the transport's callback nor reach
 * `Object.prototype` when rank 0 merges it, so nothing of the parsed object is kept as it is.
 */
import { countsByName, type DeviceNote, type ErrorNote, type RankSummary, type TtCounts } from './summary.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown, fallback = 0): number => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** `v`'s first `n` entries as numbers (0 where one is missing or not a number). */
const numbers = (v: unknown, n: number): number[] => Array.from({ length: n }, (_, i) => num(list(v)[i]));

/**
 * The summary rank `rank` of a world of `size` ranks sent as `json`, or undefined when it is no
 * summary at all (not JSON, not an object, or from a rank outside the world).
 */
export function readSummary(json: unknown, rank: number, size: number): RankSummary | undefined {
  if (typeof json !== 'string' || !Number.isInteger(rank) || rank < 0 || rank >= size) return undefined;
  let s: unknown;
  try {
    s = JSON.parse(json);
  } catch {
    return undefined;
  }
  if (!isObject(s)) return undefined;
  const tts = countsByName();
  if (isObject(s['tts'])) {
    for (const [name, v] of Object.entries(s['tts'])) tts[name] = numbers(v, 4) as TtCounts;
  }
  const traffic = isObject(s['traffic']) ? s['traffic'] : {};
  const fence = isObject(s['fence']) ? { n: num(s['fence']['n']), ms: num(s['fence']['ms']) } : null;
  return {
    rank, at: num(s['at'], Date.now()), tts, ready: num(s['ready']), running: num(s['running']),
    sent: num(s['sent']), received: num(s['received']),
    traffic: { messages: numbers(traffic['messages'], size), bytes: numbers(traffic['bytes'], size) },
    fence,
    errors: list(s['errors']).filter(isObject).map(errorNote),
    slices: list(s['slices']).filter(Array.isArray).map((x): [string, number, number] => [str(x[0]), num(x[1]), num(x[2])]),
    every: Math.max(1, num(s['every'], 1)),
    devices: list(s['devices']).filter(isObject).map(deviceNote),
  };
}

function errorNote(e: Json): ErrorNote {
  return { code: str(e['code']), tt: str(e['tt']), key: str(e['key']), rank: num(e['rank']), message: str(e['message']), at: num(e['at']) };
}

function deviceNote(d: Json): DeviceNote {
  return {
    place: str(d['place']), used: num(d['used']), capacity: num(d['capacity']), pinned: num(d['pinned']),
    evictions: num(d['evictions']), h2d: num(d['h2d']), d2h: num(d['d2h']), kernels: num(d['kernels']),
    busyMs: num(d['busyMs']), streams: list(d['streams']).map((x) => num(x)),
  };
}
