/**
 * The live dashboard (`TTG_DASHBOARD`, src/observe/dashboard/dashboard.ts) at 2 ranks, over HTTP: rank 0
 * serves the page and the merged state of both ranks while the program runs (progress per TT, the
 * task stream, messages and bytes per destination, fences, devices, the charts' history, an error
 * after a planted failure); a dashboard bound to another host needs the token it prints. The page
 * in a real browser: dashboard-browser.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { startDashboardRun as start } from './dashboard-run.js';
import { resultLines } from './rank-results.js';

const BAD = fileURLToPath(new URL('../mpi/dashboard-bad.js', import.meta.url));

interface Rank {
  rank: number;
  tts: Record<string, [number, number, number, number]>;
  sent: number;
  traffic: { messages: number[]; bytes: number[] };
  fence: { n: number; ms: number } | null;
  every: number;
  devices: Array<{ place: string; streams: number[]; used: number; capacity: number; kernels: number; h2d: number; evictions: number }>;
}
interface State {
  size: number;
  ranks: Rank[];
  stream: Array<[number, string, number, number]>;
  errors: Array<{ code: string; tt: string; key: string; rank: number; message: string }>;
  history: { t: number[]; tasks: number[][]; messages: number[]; bytes: number[] };
}

const SPLIT = fileURLToPath(new URL('../mpi/dashboard-split.js', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The page's state, read every 200 ms until `done` holds, the run ends or 16 s pass. */
async function statesUntil(url: string, done: (s: State) => boolean): Promise<State[]> {
  const states: State[] = [];
  for (let i = 0; i < 80; i++) {
    try {
      const s = (await (await fetch(`${url}state`)).json()) as State;
      states.push(s);
      if (done(s)) break;
    } catch {
      break;
    }
    await sleep(200);
  }
  return states;
}

describe('the live dashboard (TTG_DASHBOARD) at 2 ranks', function () {
  this.timeout(120_000);

  it('serves the page and both ranks\' state while the run goes: progress per TT, the task stream, messages, then the planted error', async () => {
    const run = await start('0');
    const page = await (await fetch(run.url)).text();
    expect(page).to.include('<title>ttg dashboard</title>').and.to.include('Progress per TT');
    // nothing from elsewhere: the chart library comes from rank 0 too
    expect(page).to.not.match(/https?:\/\//);
    expect([...page.matchAll(/(?:src|href)="([^"]*)"/g)].map((m) => m[1])).to.deep.equal(['uplot.css', 'uplot.js']);
    expect(await (await fetch(`${run.url}uplot.js`)).text()).to.match(/uPlot/);
    expect(() => new Function(/<script>([\s\S]*)<\/script>/.exec(page)![1]!)).to.not.throw();
    const counted = (s: State): number => s.ranks.reduce((a, r) => a + (r.tts['STEP']?.[0] ?? 0), 0);
    // until the error shows and every rank's last summary counts the whole chain (each reports every 250 ms)
    const states = await statesUntil(run.url, (s) => s.errors.length > 0 && counted(s) === 400);
    expect(await run.exited, run.output()).to.equal(0);
    const during = states.find((s) => s.ranks.length === 2 && s.stream.length > 0 && s.ranks[0]!.fence !== null && s.history.t.length > 2)!;
    expect(during, JSON.stringify(states.at(-1))).to.not.equal(undefined);
    expect(during.size).to.equal(2);
    for (const r of during.ranks) {
      expect(r.tts['STEP']![0]).to.be.above(0);
      expect(r.fence!.n).to.equal(1);
      expect(r.every).to.be.at.least(1);
      // each STEP message goes to the other rank: messages and bytes to it, none to itself
      expect(r.traffic.messages[1 - r.rank]).to.be.above(0);
      expect(r.traffic.bytes[1 - r.rank]).to.be.above(r.traffic.messages[1 - r.rank]!);
      expect(r.traffic.bytes[r.rank]).to.equal(0);
      expect(r.devices.map((d) => d.place)).to.deep.equal(['emulated 0']);
      expect(r.devices[0]!.capacity).to.equal(2 << 20);
    }
    expect([...new Set(during.stream.map(([rank, tt]) => `${rank}:${tt}`))]).to.include.members(['0:STEP', '1:STEP']);
    expect(during.history.tasks).to.have.length(2);
    expect(Math.max(...during.history.tasks[1]!)).to.be.above(0);
    const last = states.at(-1)!;
    expect(last.errors).to.have.length(1);
    expect(last.errors[0]).to.include({ code: 'E_TASK_FAILED', tt: 'BOOM', key: '0', rank: 0 });
    expect(last.errors[0]!.message).to.match(/planted failure for the dashboard/);
    expect(counted(last)).to.equal(400);
    // 40 products of 256×256 on 2 MiB per rank: operands copied in, kernels run, copies evicted
    expect(last.ranks.map((r) => r.tts['GEMM']![0])).to.deep.equal([20, 20]);
    for (const r of last.ranks) {
      const d = r.devices[0]!;
      expect(d.kernels).to.equal(20);
      expect(d.h2d).to.be.at.least(3 * 512 * 1024);
      expect(d.evictions).to.be.above(0);
    }
    expect(states.some((s) => s.ranks.some((r) => r.devices[0]!.used > 0))).to.equal(true);
  });

  it('at 3 ranks with split worlds: their tasks, messages between job ranks and errors count', async () => {
    const run = await start('0', [], SPLIT, {}, 3);
    const subs = (s: State): number => s.ranks.reduce((a, r) => a + (r.tts['SUB']?.[0] ?? 0), 0);
    const states = await statesUntil(run.url, (s) => s.errors.length > 0 && subs(s) === 120);
    expect(await run.exited, run.output()).to.equal(0);
    const last = states.at(-1)!;
    expect(last.ranks.map((r) => r.tts['SUB']![0])).to.deep.equal([30, 60, 30]);
    // the world of ranks 0 and 2 talks between them only, in job ranks
    expect(last.ranks[0]!.traffic.messages[2]).to.be.above(0);
    expect(last.ranks[2]!.traffic.messages[0]).to.be.above(0);
    expect(last.ranks[1]!.traffic.messages.reduce((a, b) => a + b, 0), JSON.stringify(last.ranks.map((r) => r.traffic))).to.equal(0);
    expect(last.errors).to.have.length(1);
    expect(last.errors[0]).to.include({ code: 'E_TASK_FAILED', tt: 'FAIL', key: '5', rank: 2 });
    expect(last.errors[0]!.message).to.match(/planted failure in a split world/);
  });

  it('bound to another host, every request needs the token it prints', async () => {
    const run = await start('0.0.0.0:0');
    const url = new URL(run.url);
    const token = url.searchParams.get('token');
    expect(token).to.match(/^[0-9a-f]{32}$/);
    const base = `http://127.0.0.1:${url.port}`;
    expect((await fetch(`${base}/`)).status).to.equal(403);
    expect((await fetch(`${base}/state?token=wrong`)).status).to.equal(403);
    // as long as the token, one letter off
    expect((await fetch(`${base}/state?token=${token!.replace(/.$/, (c) => (c === '0' ? '1' : '0'))}`)).status).to.equal(403);
    expect((await fetch(`${base}/state?token=${token}`)).status).to.equal(200);
    expect(await run.exited, run.output()).to.equal(0);
  });

  it('a TTG_DASHBOARD that is no [host:]port, or a port in use, fails initialize with E_INVALID_ARGUMENT', async () => {
    const error = (value: string): string => {
      const run = spawnSync(process.execPath, [BAD], { encoding: 'utf8', env: { ...process.env, TTG_DASHBOARD: value } });
      return resultLines<{ rank: number; error: string }>(run.stdout)[0]!.error;
    };
    expect(error('abc')).to.match(/^E_INVALID_ARGUMENT: .*TTG_DASHBOARD must be \[host:\]port .*'abc'/);
    expect(error('70000')).to.match(/^E_INVALID_ARGUMENT: .*TTG_DASHBOARD/);
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
    const port = (busy.address() as { port: number }).port;
    try {
      expect(error(`127.0.0.1:${port}`)).to.match(new RegExp(`^E_INVALID_ARGUMENT: .*TTG_DASHBOARD cannot serve on 127.0.0.1:${port}: .*EADDRINUSE`));
    } finally {
      busy.close();
    }
  });
});
