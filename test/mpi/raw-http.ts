/**
 * Raw HTTP over `node:net` for the dashboard's hostile-request tests (dashboard-hostile.test.ts):
 * `fetch` and `node:http` refuse to send most of what a hostile client sends (a broken request
 * line, a header without a colon, a wrong Host), so these write the bytes themselves.
 */
import { connect, type Socket } from 'node:net';

/** What came back: the status of the first response (null: none), its head, whether the server closed. */
export interface RawAnswer {
  status: number | null;
  head: string;
  closed: boolean;
}

/** Where and how long: the address (127.0.0.1), ms to wait for an answer (5000), end the writing side after the bytes. */
export interface RawOptions {
  host?: string;
  waitMs?: number;
  end?: boolean;
}

/**
 * Connects to the port, writes `bytes` and resolves once a response's head has arrived, the
 * server closed the connection, or `waitMs` passed. Errors writing (the server cut a large
 * request short) are part of the answer, not failures.
 */
export function exchange(port: number, bytes: string | Buffer, { host = '127.0.0.1', waitMs = 5000, end = false }: RawOptions = {}): Promise<RawAnswer> {
  return new Promise((resolve) => {
    let got = '';
    const socket = connect(port, host);
    const done = (closed: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      const head = got.split('\r\n\r\n')[0]!;
      const m = /^HTTP\/1\.[01] (\d{3}) /.exec(head);
      resolve({ status: m === null ? null : Number(m[1]), head, closed });
    };
    const timer = setTimeout(() => done(false), waitMs);
    socket.on('connect', () => (end ? socket.end(bytes) : socket.write(bytes)));
    socket.on('data', (d: Buffer) => {
      got += d.toString('latin1');
      if (got.includes('\r\n\r\n')) done(false);
    });
    socket.on('error', () => { /* a reset after the answer: the close below reports it */ });
    socket.on('close', () => done(true));
  });
}

/** `GET path` with the given Host (and more header lines), as a browser would send it. */
export const get = (path: string, hostHeader: string, more = ''): string => `GET ${path} HTTP/1.1\r\nHost: ${hostHeader}\r\n${more}\r\n`;

/** Opens a connection that writes `bytes` (perhaps nothing) and then stays open, for the caller to close. */
export function holdOpen(port: number, bytes: string, host = '127.0.0.1'): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, host, () => {
      socket.write(bytes);
      resolve(socket);
    });
    // read what comes (a 408 when the server gives up on it), or its close is never seen
    socket.resume();
    socket.on('error', reject);
  });
}
