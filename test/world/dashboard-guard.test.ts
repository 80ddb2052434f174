/**
 * The dashboard's request guard (src/observe/dashboard/dashboard-guard.ts) on a server of its own, in this
 * process: a route that throws is a 500 and the server goes on; a token is compared whole, at any
 * length; the Host allow-list; a listening socket's error is a warning, not an exception; and
 * TTG_DASHBOARD's bracketed IPv6 form (src/base/settings.ts). The same server under a real run, with
 * raw hostile requests: test/mpi/dashboard-hostile.test.ts.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';

import { expect } from 'chai';

import { dashboardAddress } from '../../src/base/settings.js';
import { guarded, guardServer, localHost, sameToken, SERVER_OPTIONS } from '../../src/observe/dashboard/dashboard-guard.js';
import { exchange, get } from '../mpi/raw-http.js';

/** A guarded server on 127.0.0.1 whose routes are `route`; resolves it and its port. */
async function serve(route: (path: string, res: ServerResponse) => void, token?: string): Promise<{ server: Server; port: number }> {
  const server = createServer(SERVER_OPTIONS, guarded({ token, host: '127.0.0.1' }, route));
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

  it('with a token, any request without it, or with one of another length or one letter off, is 403; with it, 200 from any Host', async () => {
    const token = 'ab'.repeat(16);
    const { server, port } = await serve((_path, res) => void res.writeHead(200).end('fine'), token);
    try {
      const host = `127.0.0.1:${port}`;
      for (const q of ['', '?token=', '?token=ab', `?token=${token}0`, `?token=${'ab'.repeat(15)}ac`, `?token=${token.toUpperCase()}`]) {
        expect((await exchange(port, get(`/state${q}`, host))).status, q).to.equal(403);
      }
      expect((await exchange(port, get(`/state?token=${token}`, host))).status).to.equal(200);
      // bound to another host, the token is the gate: the names it is reached by are not known
      expect((await exchange(port, get(`/state?token=${token}`, 'dashboard.example:80'))).status).to.equal(200);
    } finally {
      await stop(server);
    }
  });

  it('sameToken is true for the token only', () => {
    const token = '0123456789abcdef0123456789abcdef';
    expect(sameToken(token, token)).to.equal(true);
    for (const t of ['', '0', token.slice(0, -1), `${token}0`, token.replace(/f$/, 'e'), token.toUpperCase()]) expect(sameToken(t, token), t).to.equal(false);
  });

  it('localHost accepts the local names with the port (without it only on port 80), and nothing else', () => {
    expect(localHost('127.0.0.1:8080', '127.0.0.1', 8080)).to.equal(true);
    expect(localHost('LocalHost:8080', '127.0.0.1', 8080)).to.equal(true);
    expect(localHost('[::1]:8080', '::1', 8080)).to.equal(true);
    expect(localHost('localhost', '127.0.0.1', 80)).to.equal(true);
    expect(localHost('[0:0:0:0:0:0:0:1]:8080', '0:0:0:0:0:0:0:1', 8080)).to.equal(true);
    for (const h of [undefined, '', 'localhost', '127.0.0.1', 'localhost:8081', 'localhost.:8080', 'attacker.example:8080', '127.0.0.1.attacker.example:8080', '::1:8080', 'localhost:8080 ']) {
      expect(localHost(h, '127.0.0.1', 8080), String(h)).to.equal(false);
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

  it('TTG_DASHBOARD takes an IPv6 host in brackets and returns it without them', () => {
    const saved = process.env['TTG_DASHBOARD'];
    const at = (v: string): unknown => {
      process.env['TTG_DASHBOARD'] = v;
      try {
        return dashboardAddress();
      } catch (e) {
        return (e as Error).message;
      }
    };
    try {
      expect(at('[::1]:18112')).to.deep.equal({ host: '::1', port: 18112 });
      expect(at('[fe80::1%lo]:0')).to.deep.equal({ host: 'fe80::1%lo', port: 0 });
      expect(at('localhost:8080')).to.deep.equal({ host: 'localhost', port: 8080 });
      expect(at('8080')).to.deep.equal({ host: '127.0.0.1', port: 8080 });
      for (const bad of ['[::1]', '[::1]:', '[]:80', '[::1]:70000', 'a[::1]:80']) expect(at(bad), bad).to.match(/TTG_DASHBOARD must be \[host:\]port/);
    } finally {
      if (saved === undefined) delete process.env['TTG_DASHBOARD'];
      else process.env['TTG_DASHBOARD'] = saved;
    }
  });
});
