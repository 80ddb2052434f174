/**
 * What the HTML report (report.ts) needs of one rank's run, gathered while it runs in memory that
 * does not grow with the number of tasks: per-TT figures over executions (a task that suspended is
 * one execution of several slices), the slowest executions, exact counts of executions and messages
 * over time, per-destination traffic and per-stream device work, and an even sample of the slices
 * for the task stream. Rank 0 merges every rank's digest into the page, so a run of a million
 * tasks gives a page of a few MB, rendered in a fraction of a second.
 */
import { describeKey, errorFields, type TtgError } from '../base/errors.js';
import { durationBucket } from './duration-histogram.js';
import { StrideSample } from './stride-sample.js';
import { TimeHistogram, type HistogramData } from './time-histogram.js';

/** Slices of the JS thread kept for the stream, and the same for device streams (even: halved when full). */
const BOXES = 6000;
/** The slowest executions kept. */
export const SLOWEST = 20;
/** Fences and errors kept per rank (the rest are counted). */
const FENCES = 1000;
const ERRORS = 200;
/** Characters of a TT name or an error message kept (a key: describeKey's limit). */
const TEXT_CHARS = 300;

/** Cuts `s` to {@link TEXT_CHARS}. */
const clip = (s: string): string => (s.length > TEXT_CHARS ? `${s.slice(0, TEXT_CHARS - 3)}...` : s);

/** One TT's executions on a rank: how many, JS-thread time (µs) in all and at most, durations' buckets. */
export interface TtFigures {
  runs: number;
  us: number;
  maxUs: number;
  buckets: Array<[number, number]>;
}

/** A sampled slice: track, name, start, duration (µs), key ('' for none). */
export type Box = [tid: number, name: string, ts: number, dur: number, key: string];

/** One rank's digest, as it travels to rank 0 (times in trace microseconds). */
export interface RankDigest {
  rank: number;
  threads: Array<[number, string]>;
  tts: Array<[string, TtFigures]>;
  /** The slowest executions: TT, key, µs. */
  slowest: Array<[string, string, number]>;
  boxes: Box[];
  /** Slices seen (`boxes` holds an even sample of them, all when no more than its cap). */
  slices: number;
  /** Start of the first and end of the last slice or fence; null when none. */
  span: [number, number] | null;
  ends: HistogramData;
  sends: HistogramData;
  /** Per destination (job rank): messages, bytes. */
  traffic: Array<[number, number, number]>;
  /** Per device stream track: ops, busy µs. */
  streams: Array<[number, number, number]>;
  fences: Array<[string, number, number]>;
  errors: Array<{ code: string; tt: string; key: string; message: string; ts: number }>;
  /** Fences and errors seen beyond those kept. */
  dropped: { fences: number; errors: number };
}

interface TtAcc {
  runs: number;
  us: number;
  maxUs: number;
  buckets: Map<number, number>;
}

/** A sampled slice whose key is rendered when the digest is (most sampled slices are dropped again). */
type RawBox = [tid: number, name: string, ts: number, dur: number, key: unknown];

/** Collects one rank's digest. */
export class ReportDigest {
  private readonly threads = new Map<number, string>();
  private readonly tts = new Map<string, TtAcc>();
  /** Ascending by time, at most {@link SLOWEST}. */
  private readonly slowest: Array<[string, string, number]> = [];
  private readonly jsBoxes = new StrideSample<RawBox>(BOXES);
  private readonly deviceBoxes = new StrideSample<RawBox>(BOXES);
  private first = Infinity;
  private last = -Infinity;
  private readonly ends: TimeHistogram;
  private readonly sends: TimeHistogram;
  private readonly traffic = new Map<number, [number, number]>();
  private readonly streams = new Map<number, [number, number]>();
  private readonly fences: Array<[string, number, number]> = [];
  private readonly errors: RankDigest['errors'] = [];
  private readonly dropped = { fences: 0, errors: 0 };

  /** `origin`: now, in trace microseconds (the histograms start there). */
  constructor(private readonly rank: number, origin: number) {
    this.ends = new TimeHistogram(origin);
    this.sends = new TimeHistogram(origin);
  }

  /** Names track `tid`. */
  thread(tid: number, name: string): void {
    this.threads.set(tid, name);
  }

  /** A slice of the JS thread (a task's body or a received message) from `ts` for `dur` µs. */
  slice(tid: number, name: string, key: unknown, ts: number, dur: number): void {
    this.extend(ts, dur);
    if (this.jsBoxes.take()) this.jsBoxes.keep([tid, name, ts, dur, key]);
  }

  /** A device op on stream track `tid`. */
  deviceOp(tid: number, name: string, ts: number, dur: number): void {
    this.extend(ts, dur);
    let s = this.streams.get(tid);
    if (s === undefined) this.streams.set(tid, (s = [0, 0]));
    s[0]++;
    s[1] += dur;
    if (this.deviceBoxes.take()) this.deviceBoxes.keep([tid, name, ts, dur, undefined]);
  }

  /** One execution of a task of `tt` ended at `end`, having run `us` µs on the JS thread. */
  execution(tt: string, key: unknown, us: number, end: number): void {
    let a = this.tts.get(tt);
    if (a === undefined) this.tts.set(tt, (a = { runs: 0, us: 0, maxUs: 0, buckets: new Map() }));
    a.runs++;
    a.us += us;
    if (us > a.maxUs) a.maxUs = us;
    const b = durationBucket(us);
    a.buckets.set(b, (a.buckets.get(b) ?? 0) + 1);
    this.ends.add(end);
    const s = this.slowest;
    if (s.length === SLOWEST && us <= s[0]![2]) return;
    let i = 0;
    while (i < s.length && s[i]![2] < us) i++;
    s.splice(i, 0, [clip(tt), describeKey(key), us]);
    if (s.length > SLOWEST) s.shift();
  }

  /** `n` messages (-1: one taken back) of `bytes` each to job rank `dest` at `t`. */
  sent(dest: number, bytes: number, n: number, t: number): void {
    let d = this.traffic.get(dest);
    if (d === undefined) this.traffic.set(dest, (d = [0, 0]));
    d[0] += n;
    d[1] += n * bytes;
    this.sends.add(t, n);
  }

  /** A fence from `ts` for `dur` µs. */
  fence(name: string, ts: number, dur: number): void {
    this.extend(ts, dur);
    if (this.fences.length < FENCES) this.fences.push([name, ts, dur]);
    else this.dropped.fences++;
  }

  /** A run failed with `err` at `ts`. */
  error(err: TtgError, ts: number): void {
    if (this.errors.length >= ERRORS) {
      this.dropped.errors++;
      return;
    }
    const f = errorFields(err);
    this.errors.push({ code: f.code, tt: clip(f.tt), key: f.key, message: clip(f.message), ts });
  }

  private extend(ts: number, dur: number): void {
    if (ts < this.first) this.first = ts;
    if (ts + dur > this.last) this.last = ts + dur;
  }

  /** The digest so far, for rank 0. */
  data(): RankDigest {
    const boxes = [...this.jsBoxes.items, ...this.deviceBoxes.items].map(([tid, name, ts, dur, key]): Box =>
      [tid, clip(name), ts, dur, key === undefined ? '' : describeKey(key)]);
    return {
      rank: this.rank,
      threads: [...this.threads].map(([tid, name]) => [tid, clip(name)]),
      tts: [...this.tts].map(([name, a]) => [clip(name), { runs: a.runs, us: a.us, maxUs: a.maxUs, buckets: [...a.buckets] }]),
      slowest: [...this.slowest],
      boxes,
      slices: this.jsBoxes.seen + this.deviceBoxes.seen,
      span: this.first <= this.last ? [this.first, this.last] : null,
      ends: this.ends.data(),
      sends: this.sends.data(),
      traffic: [...this.traffic].map(([dest, [n, bytes]]) => [dest, n, bytes]),
      streams: [...this.streams].map(([tid, [ops, us]]) => [tid, ops, us]),
      fences: [...this.fences],
      errors: [...this.errors],
      dropped: { ...this.dropped },
    };
  }
}
