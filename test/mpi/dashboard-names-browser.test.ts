/**
 * The live dashboard's page in Chromium (test/mpi/browser.ts) for a 2-rank run whose TTs are named
 * like members of Object.prototype (test/mpi/dashboard-names.ts): the progress table lists each
 * name once with its counts summed over the ranks (ready, waiting, held, then run); the ranks table
 * says "ready" for queued tasks and "running" for started ones (none before the world executes).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';
import type { Browser, Page } from 'puppeteer-core';

import { within } from '../helpers.js';
import { launchChromium, rowTexts, until } from './browser.js';
import { startDashboardRun } from './dashboard-run.js';
import { scratchDir } from '../scratch-dir.js';

const SCRIPT = fileURLToPath(new URL('../mpi/dashboard-names.js', import.meta.url));
const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', '__defineGetter__', 'valueOf'];

/** A page expression: the #tts rows as `name:run,ready,waiting,held` joined by `|`, sorted by name. */
const TT_ROWS = `[...document.querySelectorAll('#tts tbody tr')].map((r) => r.cells[0].textContent + ':' + [1, 2, 3, 4].map((i) => r.cells[i].textContent).join(',')).sort().join('|')`;
const rowsOf = (want: (j: number) => number[]): string => NAMES.map((n, j) => `${n}:${want(j).join(',')}`).sort().join('|');

describe('the dashboard\'s page with TTs named like members of Object.prototype (Chromium)', function () {
  this.timeout(90_000);
  let browser: Browser;
  let page: Page;

  before(async () => { browser = await launchChromium(); });
  after(async () => { await browser?.close(); });

  it('lists each name with its counts over both ranks, then its runs; the ranks table separates ready from running', async () => {
    page = await browser.newPage();
    const scriptErrors: string[] = [];
    page.on('pageerror', (e) => scriptErrors.push(String(e)));
    const signal = join(scratchDir('ttg-names-'), 'step');
    const run = await startDashboardRun('0', [signal], SCRIPT, {}, 2);
    try {
      await page.goto(run.url);
      // per rank j + 1 ready, j + 2 waiting, 3 held
      await until(page, `${TT_ROWS} === ${JSON.stringify(rowsOf((j) => [0, 2 * (j + 1), 2 * (j + 2), 6]))}`, 'every name with its waiting counts');
      expect((await rowTexts(page, '#ranks thead tr')).map((r) => r.slice(0, 3))).to.deep.equal([['rank', 'ready', 'running']]);
      // 21 queued per rank, none started: the world does not execute yet
      await until(page, `[...document.querySelectorAll('#ranks tbody tr')].map((r) => r.cells[1].textContent + '/' + r.cells[2].textContent).join() === '21/0,21/0'`, 'ready 21 and running 0 on each rank');
      expect(await page.$eval('#summary', (e) => e.textContent)).to.match(/42 ready, 0 running$/);
      writeFileSync(`${signal}.counted`, '');
      await until(page, `${TT_ROWS} === ${JSON.stringify(rowsOf((j) => [2 * (2 * j + 6), 0, 0, 0]))}`, 'every name with its runs');
      writeFileSync(`${signal}.done`, '');
      expect(await page.evaluate('Object.keys(Object.prototype).length + String([10, 20][2])')).to.equal('0undefined');
      expect(scriptErrors).to.deep.equal([]);
      expect(await within(run.exited, 20_000, 'the run'), run.output()).to.equal(0);
    } finally {
      writeFileSync(`${signal}.counted`, '');
      writeFileSync(`${signal}.done`, '');
      await page.close();
    }
  });
});
