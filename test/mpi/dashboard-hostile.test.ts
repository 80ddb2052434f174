/**
 * The live dashboard's server (src/observe/dashboard/dashboard.ts, dashboard-guard.ts) against whatever can
 * reach its port, at 2 ranks while a graph runs: malformed, oversized and hostile requests get a
 * 4xx (garbage may just be cut off), connections left open do not hold the run, and the run ends
 * with its result; without a token only local Host names are answered (DNS rebinding); an IPv6
 * host in brackets serves. The requests are raw bytes (raw-http.ts).
 */
import { spawnSync } from 'node:child_process';
import { networkInterfaces } from 'node:os';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { within } from '../helpers.js';
import { startDashboardRun as start } from './dashboard-run.js';
import { resultLines } from './rank-results.js';
import { exchange, get, holdOpen, type RawAnswer } from './raw-http.js';

const BAD = fileURLToPath(new URL('../mpi/dashboard-bad.js', import.meta.url));

/** STEP's count over the ranks in the dashboard's state. */
async function stepsCounted(url: string): Promise<number> {
  const s = (await (await fetch(`${url}state`)).json()) as { ranks: Array<{ tts: Record<string, number[]> }> };
  return s.ranks.reduce((a, r) => a + (r.tts['STEP']?.[0] ?? 0), 0);
}

/** Polls until the whole chain of `length` is counted (each rank's last summary comes at its finalize). */
async function untilChainCounted(url: string, length: number): Promise<number> {
  let n = 0;
  for (let i = 0; i < 150 && n < length; i++) {
    n = await stepsCounted(url);
    await new Promise((r) => setTimeout(r, 200));
  }
  return n;
}

/** One hostile request: its bytes, whether to end the writing side after them, what must come back. */
interface Hostile {
  name: string;
  bytes: string | Buffer;
  end?: boolean;
  /** The status; `cut`: a 4xx, or the connection closed without one (bytes that are no HTTP at all). */
  want: number | 'cut';
}

function corpus(port: number): Hostile[] {
  const host = `127.0.0.1:${port}`;
  const big = 'a'.repeat(100 * 1024);
  const body = (method: string): Buffer =>
    Buffer.concat([Buffer.from(`${method} /state HTTP/1.1\r\nHost: ${host}\r\nContent-Length: ${10 << 20}\r\n\r\n`), Buffer.alloc(10 << 20, 0x41)]);
  return [
    // new URL() throws on these: the handler must not
    { name: 'GET //[', bytes: get('//[', host), want: 400 },
    { name: 'GET http://[', bytes: get('http://[', host), want: 400 },
    { name: 'an absolute URL of another server', bytes: get('http://attacker.example/state', host), want: 400 },
    { name: 'a scheme-relative path', bytes: get('//attacker.example/state', host), want: 400 },
    { name: 'a bare \\r\\n\\r\\n, then the end', bytes: '\r\n\r\n', end: true, want: 'cut' },
    { name: 'binary garbage', bytes: Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 131 + 7) & 0xff)), want: 'cut' },
    { name: 'a NUL in the path', bytes: get('/\0', host), want: 400 },
    { name: 'a 100 KB URL', bytes: get(`/${big}`, host), want: 431 },
    { name: 'a 100 KB header', bytes: get('/', host, `X-Big: ${big}\r\n`), want: 431 },
    { name: 'POST with a 10 MB body', bytes: body('POST'), want: 405 },
    { name: 'GET with a 10 MB body', bytes: body('GET'), want: 413 },
    { name: 'GET with a chunked body that never ends', bytes: `GET / HTTP/1.1\r\nHost: ${host}\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n`, want: 413 },
    { name: 'a Content-Length that is no number', bytes: get('/', host, 'Content-Length: many\r\n'), want: 400 },
    { name: 'POST', bytes: `POST / HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 0\r\n\r\n`, want: 405 },
    { name: 'PUT', bytes: `PUT /state HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 0\r\n\r\n`, want: 405 },
    { name: 'DELETE', bytes: `DELETE / HTTP/1.1\r\nHost: ${host}\r\n\r\n`, want: 405 },
    { name: 'CONNECT', bytes: `CONNECT ${host} HTTP/1.1\r\nHost: ${host}\r\n\r\n`, want: 405 },
    { name: 'OPTIONS *', bytes: `OPTIONS * HTTP/1.1\r\nHost: ${host}\r\n\r\n`, want: 405 },
    { name: 'a header without a colon', bytes: get('/', host, 'NoColonHere\r\n'), want: 400 },
    { name: 'HTTP/0.9, then the end', bytes: 'GET /\r\n', end: true, want: 400 },
    { name: 'a request line cut short, then the end', bytes: 'GET / HT', end: true, want: 400 },
    { name: 'the HTTP/2 preface', bytes: 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', want: 400 },
    { name: 'HTTP/1.0 without Host', bytes: 'GET /state HTTP/1.0\r\n\r\n', want: 421 },
    { name: 'a foreign Host', bytes: get('/state', 'attacker.example'), want: 421 },
  ];
}

/** Whether an answer is what `want` asks for. */
function matches(a: RawAnswer, want: Hostile['want']): boolean {
  return want === 'cut' ? (a.status !== null ? a.status >= 400 && a.status < 500 : a.closed) : a.status === want;
}

describe('the live dashboard\'s server against hostile requests, at 2 ranks', function () {
  this.timeout(180_000);

  it('answers each malformed, oversized or hostile request with a 4xx while a graph runs; open connections do not hold it; the run ends with its result', async () => {
    // 1000 tasks of 5 ms: 5 s or more, the corpus takes well under one
    const run = await start('0', ['1000']);
    const port = Number(new URL(run.url).port);
    const host = `127.0.0.1:${port}`;
    // half-open: nothing sent, a request line cut short, headers never ended, blank lines
    const held = await Promise.all(['', 'GET / HT', `GET /state HTTP/1.1\r\nHost: ${host}\r\n`, '\r\n\r\n'].map((b) => holdOpen(port, b)));
    const wrong: string[] = [];
    for (const h of corpus(port)) {
      const a = await exchange(port, h.bytes, { end: h.end });
      if (!matches(a, h.want)) wrong.push(`${h.name}: wanted ${h.want}, got ${a.status ?? (a.closed ? 'closed' : 'nothing')} ${JSON.stringify(a.head.slice(0, 80))}`);
      // and it still serves after each
      const ok = await exchange(port, get('/state', host));
      if (ok.status !== 200) wrong.push(`after ${h.name}: /state answered ${ok.status ?? 'nothing'}\n${run.output()}`);
    }
    expect(wrong, run.output()).to.deep.equal([]);
    expect(await stepsCounted(run.url), 'STEP tasks counted when the corpus was through').to.be.below(1000);
    // HEAD is served too, without a body
    expect((await exchange(port, `HEAD /state HTTP/1.1\r\nHost: ${host}\r\n\r\n`)).status).to.equal(200);
    expect(await untilChainCounted(run.url, 1000), run.output()).to.equal(1000);
    expect(await within(run.exited, 60_000, 'the run, with connections held open,'), run.output()).to.equal(0);
    expect(resultLines<{ rank: number; failed: string }>(run.output()).map((r) => r.failed)).to.deep.equal(['E_TASK_FAILED', 'E_TASK_FAILED']);
    for (const s of held) s.destroy();
  });

  it('without a token, answers only a local Host with its port (no DNS rebinding)', async () => {
    const run = await start('0');
    const port = Number(new URL(run.url).port);
    const status = async (hostHeader: string): Promise<number | null> => (await exchange(port, get('/state', hostHeader))).status;
    for (const local of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) expect(await status(local), local).to.equal(200);
    for (const foreign of ['attacker.example', `attacker.example:${port}`, `127.0.0.1.attacker.example:${port}`, 'localhost', `localhost:${port + 1}`, '']) {
      expect(await status(foreign), foreign).to.equal(421);
    }
    const refused = await exchange(port, get('/', 'attacker.example'));
    expect(refused.head).to.not.include('text/html');
    expect(await within(run.exited, 60_000, 'the run'), run.output()).to.equal(0);
  });

  it('at TTG_DASHBOARD=[::1]:port serves on the IPv6 loopback and prints the URL in brackets', async () => {
    const loopback6 = Object.values(networkInterfaces()).flat().some((i) => i?.family === 'IPv6' && i.address === '::1');
    if (!loopback6) {
      // the documented fallback: initialize fails with E_INVALID_ARGUMENT naming the address
      const bad = spawnSync(process.execPath, [BAD], { encoding: 'utf8', env: { ...process.env, TTG_DASHBOARD: '[::1]:0' } });
      expect(resultLines<{ error: string }>(bad.stdout)[0]!.error).to.match(/^E_INVALID_ARGUMENT: .*TTG_DASHBOARD cannot serve on \[::1\]:0: /);
      return;
    }
    const run = await start('[::1]:0');
    expect(run.url).to.match(/^http:\/\/\[::1\]:\d+\/$/);
    const port = Number(new URL(run.url).port);
    expect((await fetch(`${run.url}state`)).status).to.equal(200);
    expect((await exchange(port, get('/state', `[::1]:${port}`), { host: '::1' })).status).to.equal(200);
    expect((await exchange(port, get('/state', `attacker.example:${port}`), { host: '::1' })).status).to.equal(421);
    expect((await exchange(port, get('//[', `[::1]:${port}`), { host: '::1' })).status).to.equal(400);
    expect(await within(run.exited, 60_000, 'the run'), run.output()).to.equal(0);
  });
});
