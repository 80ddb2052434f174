/**
 * Takes the docs' pictures of ttg's pages, 1200 px wide, in the system's Chromium: the live
 * dashboard of a 2-rank run (scripts/screenshots-run.mjs) once its tables and task stream are
 * full, and the HTML report of that run. Writes docs/dashboard.png and docs/report.png. Run with
 * `npm run screenshots` (it builds first: it uses the compiled test helpers in dist/).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { launchChromium, STREAM_INK, until } from '../dist/test/mpi/browser.js';
import { startDashboardRun } from '../dist/test/mpi/dashboard-run.js';

const WIDTH = 1200;
/** GEN's tasks: the run lasts 8 s or so. */
const N = 1200;
const docs = fileURLToPath(new URL('../docs/', import.meta.url));
const program = fileURLToPath(new URL('./screenshots-run.mjs', import.meta.url));
const report = join(mkdtempSync(join(tmpdir(), 'ttg-screenshots-')), 'report.html');

// By GEN's count, not by the stream's width: the page's look may change, the run's pace will not.
const FULL = `document.querySelectorAll('#ranks tbody tr').length === 2 && ${STREAM_INK}.pixels > 0
  && Number([...document.querySelectorAll('#tts tbody tr')].find((r) => r.cells[0].textContent.trim() === 'GEN')?.cells[1].textContent ?? 0) >= ${0.6 * N}`;

/** A picture of the whole page, 1200 px wide even where the page is wider (what a 1200 px window shows). */
async function shoot(page, file) {
  const height = await page.evaluate('document.documentElement.scrollHeight');
  await page.screenshot({ path: join(docs, file), clip: { x: 0, y: 0, width: WIDTH, height }, captureBeyondViewport: true });
}

const browser = await launchChromium();
try {
  const page = await browser.newPage();
  // short: the page's scroll height is then its content's, not the window's
  await page.setViewport({ width: WIDTH, height: 300 });
  const run = await startDashboardRun('0', [String(N)], program, { TTG_REPORT: report });
  await page.goto(run.url);
  await until(page, FULL, 'the dashboard with its tables and stream full', 60_000);
  await shoot(page, 'dashboard.png');
  const status = await run.exited;
  if (status !== 0) throw new Error(`the run exited with ${status}:\n${run.output()}`);
  await page.goto(pathToFileURL(report).href);
  await shoot(page, 'report.png');
  console.log(`screenshots: wrote ${join(docs, 'dashboard.png')} and ${join(docs, 'report.png')}`);
} finally {
  await browser.close();
}
