/**
 * ttg's pages in a real browser (the system's Chromium, test/mpi/browser.ts): what a person sees
 * on the live dashboard of a 2-rank run (TTs and their counts rising, the task stream drawn, both
 * ranks, the planted error; the token's gate when bound to another host) and in the HTML report
 * opened from its file. The page's DOM contract: ids #tts, #stream, #ranks, #errors, #summary.
 */

import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { expect } from 'chai';
import type { Browser, Page } from 'puppeteer-core';

import { mpirun } from '../../bench/lib/mpirun.js';
import { within } from '../helpers.js';
import { launchChromium, rowTexts, STREAM_INK, until } from './browser.js';
import { startDashboardRun } from './dashboard-run.js';
import { scratchDir } from '../scratch-dir.js';

const REPORT = fileURLToPath(new URL('../mpi/report.js', import.meta.url));

/** A page expression: STEP's run count in the TT table (0 before its row shows). */
const STEP_RUNS = `Number([...document.querySelectorAll('#tts tbody tr')].find((r) => r.cells[0].textContent.trim() === 'STEP')?.cells[1].textContent ?? 0)`;

/** A page expression: the report's task rects, colored (its background and lanes are gray) and laid out with an area. */
const DRAWN_RECTS = `[...document.querySelectorAll('.stream svg rect')].filter((r) => {
  const box = r.getBoundingClientRect();
  const [red, green, blue] = getComputedStyle(r).fill.match(/\\d+/g).map(Number);
  return box.width > 0 && box.height > 0 && Math.max(red, green, blue) - Math.min(red, green, blue) > 40;
}).length`;

/** A page expression: the first cells of the report's table under "Per TT" (charts may come between), or null. */
const PER_TT_NAMES = `(() => {
  let e = [...document.querySelectorAll('h2')].find((h) => h.textContent.trim() === 'Per TT');
  do e = e?.nextElementSibling; while (e && e.tagName !== 'TABLE' && e.tagName !== 'H2');
  return e?.tagName === 'TABLE' ? [...e.tBodies[0].rows].map((r) => r.cells[0].textContent.trim()) : null;
})()`;

describe('the dashboard and the report in a browser (Chromium)', function () {
  this.timeout(60_000);
  let browser: Browser;
  let page: Page;

  /** Uncaught errors of the page's scripts (what a person never sees, but which stop the page updating). */
  let scriptErrors: string[];

  before(async () => { browser = await launchChromium(); });
  after(async () => { await browser?.close(); });
  beforeEach(async () => {
    page = await browser.newPage();
    scriptErrors = [];
    page.on('pageerror', (e) => scriptErrors.push(String(e)));
  });
  afterEach(async () => { await page?.close(); });

  it('the live page of a 2-rank run shows STEP\'s count rising, the task stream, both ranks, then the planted error', async () => {
    // 1000 tasks (5 s or more): long enough to look twice while the chain runs
    const run = await startDashboardRun('0', ['1000']);
    await page.goto(run.url);
    await until(page, `${STEP_RUNS} > 0`, 'a STEP row with tasks run');
    const first = (await rowTexts(page, '#tts tbody tr')).find((r) => r[0] === 'STEP')!;
    expect(first[1]).to.match(/^\d+$/);
    const runs = Number(first[1]);
    expect(runs).to.be.above(0).and.below(1000);
    await until(page, `${STEP_RUNS} > ${runs}`, `STEP's count rising above ${runs}`);
    await until(page, `${STREAM_INK}.pixels > 0`, 'tasks drawn on the stream');
    expect((await page.evaluate(STREAM_INK) as { pixels: number }).pixels).to.be.above(0);
    await until(page, `document.querySelectorAll('#ranks tbody tr').length === 2`, 'two rows of ranks');
    expect((await rowTexts(page, '#ranks tbody tr')).map((r) => r[0])).to.deep.equal(['0', '1']);
    // uPlot's four charts (tasks, messages, bytes, device memory), served by rank 0
    await until(page, `document.querySelectorAll('#charts .uplot canvas').length === 4`, 'the four charts drawn');
    // each rank's emulated device, with the products' kernels counted
    await until(page, `[...document.querySelectorAll('#devices tbody tr')].filter((r) => r.cells[1]?.textContent === 'emulated 0' && Number(r.cells[5].textContent) > 0).length === 2`,
      'a device row with kernels per rank');
    await until(page, `[...document.querySelectorAll('#errors li')].some((li) => li.textContent.includes('BOOM'))`, 'the error of BOOM', 30_000);
    const errors = await page.$$eval('#errors li', (lis) => lis.map((li) => (li as unknown as { textContent: string }).textContent));
    expect(errors.find((e) => e.includes('BOOM'))).to.include('planted failure for the dashboard').and.to.include('E_TASK_FAILED');
    expect(scriptErrors).to.deep.equal([]);
    // with the page still open and polling: finalize must not wait on the browser's connection
    expect(await within(run.exited, 20_000, 'the run, with the page open,'), run.output()).to.equal(0);
  });

  it('bound to another host, the page without the token says it needs one; with it, it shows the tables', async () => {
    const run = await startDashboardRun('0.0.0.0:0');
    const url = new URL(run.url);
    const base = `http://127.0.0.1:${url.port}/`;
    const denied = await page.goto(base);
    expect(denied!.status()).to.equal(403);
    expect(await page.evaluate('document.body.innerText')).to.include('needs the token');
    expect(await page.$('#tts')).to.equal(null);
    await page.goto(`${base}?token=${url.searchParams.get('token')!}`);
    await until(page, `document.querySelectorAll('#tts tbody tr').length > 0 && document.querySelectorAll('#ranks tbody tr').length === 2`, 'the tables with the token');
    expect((await rowTexts(page, '#tts tbody tr')).map((r) => r[0])).to.include('STEP');
    expect(scriptErrors).to.deep.equal([]);
    expect(await within(run.exited, 20_000, 'the run, with the page open,'), run.output()).to.equal(0);
  });

  it('a report opened from its file shows the run\'s summary, the task stream drawn, and the TTs', async () => {
    const file = join(scratchDir('ttg-report-'), 'run.html');
    const run = mpirun(2, REPORT, [], 60_000, { TTG_REPORT: file });
    expect(run.status, run.output).to.equal(0);
    await page.goto(pathToFileURL(file).href);
    // report.ts runs 40 MAP and 4 REDUCE tasks (and may add others): the page must agree with itself
    const summary = /^2 rank\(s\), (\d+) tasks of (\d+) TT\(s\)/.exec(await page.$eval('#summary', (e) => e.textContent ?? ''));
    expect(summary, 'the summary: 2 rank(s), N tasks of M TT(s)').to.not.equal(null);
    const [tasks, tts] = [Number(summary![1]), Number(summary![2])];
    expect(tasks).to.be.at.least(44);
    expect(await page.evaluate(DRAWN_RECTS)).to.be.at.least(tasks);
    const names = await page.evaluate(PER_TT_NAMES) as string[] | null;
    expect(names).to.include.members(['MAP', 'REDUCE']).and.to.have.length(tts);
    expect(scriptErrors).to.deep.equal([]);
  });
});
