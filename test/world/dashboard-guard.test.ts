/**
 * The dashboard's request guard (src/world/dashboard-guard.ts) on a server of its own, in this
 * process: a route that throws is a 500 and the server goes on; a listening socket's error is a
 * warning, not an exception. The same server under a real run, with raw hostile requests:
 * test/mpi/dashboard-hostile.test.ts.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';

import { expect } from 'chai';

import { guarded, guardServer, SERVER_OPTIONS } from '../../src/world/dashboard-guard.js';
import { exchange, get } from '../mpi/raw-http.js';

/** A guarded server on 127.0.0.1 whose routes are `route`; resolves it and its port. */
async function serve(route: (path: string, res: ServerResponse) => void, token?: string): Promise<{ server: Server; port: number }> {
  const server = createServer(SERVER_OPTIONS, guarded({ token }, route));
  guardServer(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { server, port: (server.address() as { port: number }).port };
}

function stop(server: Server): Promise<void> {
  const closed = new Promise<void>((r) => server.close(() => r()));
  server.closeAllConnections();
  return closed;
}

describe('the dashboard\'s request guard', () => {
  it('a route that throws answers 500, or cuts a response under way, and the server goes on serving', async () => {
    const { server, port } = await serve((path, res) => {
      if (path === '/throws') throw new Error('a route broke');
      if (path === '/throws-late') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('partial');
        throw new Error('a route broke after its head');
      }
      res.writeHead(200).end('fine');
    });
    try {
      const host = `127.0.0.1:${port}`;
      expect((await exchange(port, get('/throws', host))).status).to.equal(500);
      const late = await exchange(port, get('/throws-late', host), { waitMs: 2000 });
      // the head may not have left before the cut; a second status line never comes
      expect(late.status === null ? late.closed : late.status === 200, JSON.stringify(late)).to.equal(true);
      expect((await exchange(port, get('/', host))).status).to.equal(200);
    } finally {
      await stop(server);
    }
  });

  it('an error of the listening socket after it listens is one warning on stderr, not an exception', async () => {
    const { server } = await serve((_path, res) => void res.writeHead(200).end());
    const seen: string[] = [];
    const error = console.error;
    console.error = (...args: unknown[]) => void seen.push(args.join(' '));
    try {
      server.emit('error', new Error('accept EMFILE'));
      server.emit('error', new Error('accept EMFILE'));
    } finally {
      console.error = error;
      await stop(server);
    }
    expect(seen).to.deep.equal(['ttg: dashboard: accept EMFILE (it goes on serving)']);
  });
});
