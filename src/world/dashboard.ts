/**
 * The live dashboard (`TTG_DASHBOARD=[host:]port`): every rank sends rank 0 a summary
 * (src/ttg/summary.ts) four times a second over the runtime's own messages, outside termination
 * detection; rank 0 serves the page (dashboard-page.ts) and the merged state as JSON with
 * `node:http`. It binds 127.0.0.1 unless a host is given; then every request needs the token it
 * prints on stderr. Off unless asked for: nothing runs and the hot paths test the tracer as before.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';

import { Errors } from '../base/errors.js';
import type { Runtime } from '../ttg/runtime.js';
import { Summarizer, type RankSummary } from '../ttg/summary.js';
import type { Tracer } from '../ttg/trace.js';
import { DASHBOARD_PAGE } from './dashboard-page.js';

const SUMMARY_MS = 250;
/** How long the task stream of the page reaches back. */
const STREAM_MS = 5000;
const LOCAL = new Set(['127.0.0.1', 'localhost', '::1']);

/** Rank 0's view: each rank's latest summary, the recent task slices, the errors seen. */
class DashboardState {
  readonly ranks = new Map<number, RankSummary & { sentPerS: number; at: number }>();
  private stream: Array<[number, string, number, number]> = [];
  private readonly errors: string[] = [];

  constructor(private readonly size: number) {}

  add(s: RankSummary): void {
    const now = Date.now();
    const before = this.ranks.get(s.rank);
    const sentPerS = before === undefined ? 0 : ((s.sent - before.sent) * 1000) / Math.max(1, now - before.at);
    this.ranks.set(s.rank, { ...s, slices: [], errors: [], sentPerS, at: now });
    for (const [tt, start, dur] of s.slices) this.stream.push([s.rank, tt, start, dur]);
    const since = now - STREAM_MS;
    if (this.stream.length > 0 && this.stream[0]![2] + this.stream[0]![3] < since) this.stream = this.stream.filter((x) => x[2] + x[3] >= since);
    for (const e of s.errors) if (!this.errors.includes(e)) this.errors.push(e);
  }

  json(): string {
    return JSON.stringify({ size: this.size, now: Date.now(), ranks: Object.fromEntries(this.ranks), stream: this.stream, errors: this.errors });
  }
}

/** A running dashboard: stop it at finalize. */
export interface Dashboard {
  /** The page's URL (rank 0; with the token when one is needed), else undefined. */
  readonly url: string | undefined;
  stop(): Promise<void>;
}

/** Starts the dashboard's part on this rank; on rank 0 also the server (resolves once it listens). */
export async function startDashboard(rt: Runtime, tracer: Tracer, at: { host: string; port: number }, keepEvents: boolean): Promise<Dashboard> {
  const transport = rt.transport!;
  const offset = Date.now() - tracer.now() / 1000;
  const summarizer = new Summarizer(rt, tracer, offset, !keepEvents);
  const announce = rt.scheduler.onFirstError;
  rt.scheduler.onFirstError = (err) => {
    summarizer.noteError(err);
    announce?.(err);
  };
  let server: Server | undefined;
  let url: string | undefined;
  if (rt.rank === 0) {
    const state = new DashboardState(rt.size);
    transport.onSummary = (_rank, json) => state.add(JSON.parse(json) as RankSummary);
    const token = LOCAL.has(at.host) ? undefined : randomBytes(16).toString('hex');
    server = createServer((req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      if (token !== undefined && u.searchParams.get('token') !== token) {
        res.writeHead(403, { 'content-type': 'text/plain' }).end('ttg dashboard: this page needs the token printed on stderr (?token=...)\n');
        return;
      }
      if (u.pathname === '/state') res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(state.json());
      else if (u.pathname === '/') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(DASHBOARD_PAGE);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve, reject) => {
      server!.once('error', (e) => reject(Errors.invalidArgument('TTG_DASHBOARD', `cannot serve on ${at.host}:${at.port}: ${e.message}`, { rank: rt.rank })));
      server!.listen(at.port, at.host, () => resolve());
    });
    server.unref();
    const port = (server.address() as { port: number }).port;
    url = `http://${at.host.includes(':') ? `[${at.host}]` : at.host}:${port}/${token === undefined ? '' : `?token=${token}`}`;
    console.error(`ttg: dashboard on ${url}`);
  }
  const send = (): void => transport.sendSummary(JSON.stringify(summarizer.take()));
  const timer = setInterval(send, SUMMARY_MS);
  timer.unref();
  return {
    url,
    async stop() {
      clearInterval(timer);
      send();
      rt.scheduler.onFirstError = announce;
      transport.onSummary = undefined;
      if (server !== undefined) await new Promise<void>((resolve) => server!.close(() => resolve()));
    },
  };
}
