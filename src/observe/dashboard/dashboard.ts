/**
 * The live dashboard (`TTG_DASHBOARD=[host:]port`): every rank sends rank 0 a summary
 * (summary.ts) four times a second over the runtime's own messages, outside termination
 * detection; rank 0 merges them (dashboard-state.ts) and serves the page (dashboard-page.ts), the
 * merged state as JSON and the chart library with `node:http`. It binds 127.0.0.1 unless a host is
 * given; then every request needs the token it prints on stderr, else its Host header must be a
 * local name (dashboard-guard.ts checks every request). Off unless asked for: nothing runs.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';

import { Errors } from '../../base/errors.js';
import type { Runtime } from '../../ttg/runtime/runtime.js';
import { Summarizer } from './summary.js';
import { SUMMARY_MS } from './task-sampler.js';
import { uplotFiles } from '../uplot-files.js';
import { guarded, guardServer, hostPort, SERVER_OPTIONS } from './dashboard-guard.js';
import { dashboardPage } from './dashboard-page.js';
import { DashboardState } from './dashboard-state.js';
import { deviceNotes } from './device-notes.js';

const LOCAL = new Set(['127.0.0.1', 'localhost', '::1']);

/** A running dashboard: stop it at finalize. */
export interface Dashboard {
  /** The page's URL (rank 0; with the token when one is needed), else undefined. */
  readonly url: string | undefined;
  stop(): Promise<void>;
}

/** Starts rank 0's server; resolves its URL once it listens. */
async function serve(state: DashboardState, at: { host: string; port: number }, rank: number): Promise<{ server: Server; url: string }> {
  const token = LOCAL.has(at.host) ? undefined : randomBytes(16).toString('hex');
  const uplot = uplotFiles();
  const page = dashboardPage(token === undefined ? '' : `?token=${token}`);
  const server = createServer(SERVER_OPTIONS, guarded({ token, host: at.host }, (path, res) => {
    const send = (type: string, body: string): void => void res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
    if (path === '/state') send('application/json', state.json());
    else if (path === '/') send('text/html; charset=utf-8', page);
    else if (path === '/uplot.js') send('text/javascript', uplot.js);
    else if (path === '/uplot.css') send('text/css', uplot.css);
    else res.writeHead(404).end();
  }));
  guardServer(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) => reject(Errors.invalidArgument('TTG_DASHBOARD', `cannot serve on ${hostPort(at.host, at.port)}: ${e.message}`, { rank })));
    server.listen(at.port, at.host, () => resolve());
  });
  server.unref();
  const port = (server.address() as { port: number }).port;
  return { server, url: `http://${hostPort(at.host, port)}/${token === undefined ? '' : `?token=${token}`}` };
}

/** Starts the dashboard's part on this rank; on rank 0 also the server (resolves once it listens). */
export async function startDashboard(rt: Runtime, at: { host: string; port: number }): Promise<Dashboard> {
  const transport = rt.transport!;
  let server: Server | undefined;
  let url: string | undefined;
  if (rt.rank === 0) {
    const state = new DashboardState(rt.size);
    ({ server, url } = await serve(state, at, rt.rank));
    transport.onSummary = (rank, json) => state.receive(rank, json);
    console.error(`ttg: dashboard on ${url}`);
  }
  const summarizer = new Summarizer(rt);
  const send = (): void => transport.sendSummary(JSON.stringify(summarizer.take(deviceNotes())));
  const timer = setInterval(send, SUMMARY_MS);
  timer.unref();
  return {
    url,
    async stop() {
      clearInterval(timer);
      send();
      summarizer.stop();
      transport.onSummary = undefined;
      if (server === undefined) return;
      const closed = new Promise<void>((resolve) => server!.close(() => resolve()));
      server.closeAllConnections();  // an open page keeps a connection alive
      await closed;
    },
  };
}
