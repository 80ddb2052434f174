/**
 * What rank 0's dashboard server lets through (dashboard.ts). The server runs inside
 * rank 0, so an exception in a request handler is an uncaught exception that ends the whole job:
 * every request is checked here before a route sees it, every refusal is a 4xx, and a route that
 * throws becomes a 500. Anything that can reach the port can send anything, so nothing here trusts
 * the request line, the headers or the body.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/**
 * The server's limits: headers (with the request line) over 16 KiB are 431; a client gets 10 s to
 * send its headers and 15 s for its whole request, checked every second, so slow or silent
 * connections go away on their own long before anyone would notice them.
 */
export const SERVER_OPTIONS: ServerOptions = {
  maxHeaderSize: 16 * 1024,
  headersTimeout: 10_000,
  requestTimeout: 15_000,
  keepAliveTimeout: 5_000,
  connectionsCheckingInterval: 1_000,
};

/**
 * Body bytes read and thrown away before a refused request's connection is cut. Most clients write
 * their whole body before they read, and one whose write fails on a cut connection drops the answer
 * it has not read yet (Node's does): up to this much they get their 4xx; past it, rank 0 has read
 * enough.
 */
const MAX_BODY = 16 << 20;

/** The names under which a dashboard with no token may be asked for (the Host header's host). */
const LOCAL_NAMES = ['localhost', '127.0.0.1', '[::1]'];

/** Who may ask: the token every request must carry, or none (then only local Host names). */
export interface Gate {
  token: string | undefined;
  /** The host the server listens on, as given (an IPv6 address without brackets). */
  host: string;
}

/** A host as a URL writes it: an IPv6 address in brackets. */
const bracketed = (host: string): string => (host.includes(':') ? `[${host}]` : host);

/** `host:port`, with an IPv6 host in brackets (as in a URL). */
export const hostPort = (host: string, port: number): string => `${bracketed(host)}:${port}`;

/**
 * Whether `given` is the token, in time that does not depend on where they differ: digests of
 * both are compared, so their lengths never show either.
 */
export function sameToken(given: string, token: string): boolean {
  const digest = (s: string): Buffer => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(token));
}

/**
 * Whether a Host header names this server by a local name and the port it was reached on. Without
 * a token this is what stops DNS rebinding: a page of another site whose name now resolves to
 * 127.0.0.1 still sends its own name as Host.
 */
export function localHost(header: string | undefined, host: string, port: number): boolean {
  if (header === undefined) return false;
  const h = header.toLowerCase();
  return [...LOCAL_NAMES, bracketed(host).toLowerCase()].some((n) => h === `${n}:${port}` || (port === 80 && h === n));
}

/** A request's path if it may be served, else the refusal to send. */
type Verdict = { path: string } | { status: number; message: string };

/** Checks a request: its method, its target, who it is for and whether it carries a body. */
function admit(req: IncomingMessage, gate: Gate): Verdict {
  if (req.method !== 'GET' && req.method !== 'HEAD') return { status: 405, message: 'only GET and HEAD are served' };
  const target = req.url ?? '';
  // only a path: `//host/...` and absolute URLs name another server, and some make URL() throw
  if (!target.startsWith('/') || target.startsWith('//')) return { status: 400, message: 'the request target must be a path' };
  let url: URL;
  try {
    url = new URL(target, 'http://dashboard');
  } catch {
    return { status: 400, message: 'the request target is no URL' };
  }
  if (gate.token === undefined) {
    if (!localHost(req.headers.host, gate.host, req.socket.localPort ?? 0)) {
      return { status: 421, message: 'this dashboard answers only to localhost, 127.0.0.1 or [::1] with its port' };
    }
  } else if (!sameToken(url.searchParams.get('token') ?? '', gate.token)) {
    return { status: 403, message: 'this page needs the token printed on stderr (?token=...)' };
  }
  if (hasBody(req)) return { status: 413, message: 'requests carry no body here' };
  return { path: url.pathname };
}

const hasBody = (req: IncomingMessage): boolean =>
  req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

/**
 * Sends a refusal. A body the request still carries is read and dropped up to MAX_BODY, then the
 * connection is cut, so a body never ties up rank 0; but not before the answer is out: the body
 * can arrive with the headers, before Node writes the answer it holds back for a tick. No
 * `connection: close`: Node would cut the connection as soon as the answer is written, with the
 * body still coming.
 */
function refuse(req: IncomingMessage, res: ServerResponse, status: number, message: string): void {
  if (hasBody(req)) {
    let read = 0;
    let answered = false;
    const cutIfDone = (): void => void (answered && read > MAX_BODY && req.socket.destroy());
    res.once('finish', () => { answered = true; cutIfDone(); });
    req.on('data', (chunk: Buffer) => { read += chunk.length; cutIfDone(); });
  }
  if (status === 405) res.setHeader('allow', 'GET, HEAD');
  res.writeHead(status, { 'content-type': 'text/plain', 'cache-control': 'no-store' }).end(`ttg dashboard: ${message}\n`);
}

/**
 * The server's request listener: checks each request, then hands its path to `route` (which
 * answers 200s and 404s). Nothing it or `route` throws leaves it: a request that makes either
 * throw gets a 500, or its connection is cut when the answer has begun.
 */
export function guarded(gate: Gate, route: (path: string, res: ServerResponse) => void): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    try {
      const v = admit(req, gate);
      if ('path' in v) route(v.path, res);
      else refuse(req, res, v.status, v.message);
    } catch {
      fail(req, res);
    }
  };
}

/** Answers 500 to a request whose handling threw; when its answer has begun (or cannot be sent), cuts it. */
function fail(req: IncomingMessage, res: ServerResponse): void {
  try {
    if (!res.headersSent) {
      res.writeHead(500, { 'content-type': 'text/plain', connection: 'close' }).end('ttg dashboard: internal error\n');
      return;
    }
  } catch {
    // nothing more can be said on this connection
  }
  req.socket.destroy();
}

/** Writes a bare status (no request came through Node's parser) and cuts the connection. */
function answerRaw(socket: Duplex, status: number): void {
  const s = socket as Socket;
  // a response already under way cannot take a second status line
  if (s.writable && s.bytesWritten === 0) {
    s.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
  }
  s.destroy();
}

/**
 * Handles what never reaches the request listener: bytes Node cannot parse as HTTP (400), headers
 * too large (431), a request too slow (408), CONNECT (405; an Upgrade with no listener is a plain
 * request), and errors of the listening socket after it listens (file descriptors run out):
 * warned once on stderr, the run goes on.
 */
export function guardServer(server: Server): void {
  server.on('clientError', (err: Error & { code?: string }, socket: Duplex) => {
    if (err.code === 'ECONNRESET') return void socket.destroy();
    answerRaw(socket, err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400);
  });
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => answerRaw(socket, 405));
  // before it listens, an error is the caller's (the port is taken): it rejects
  server.once('listening', () => {
    let warned = false;
    server.on('error', (e) => {
      if (!warned) console.error(`ttg: dashboard: ${e.message} (it goes on serving)`);
      warned = true;
    });
  });
}
