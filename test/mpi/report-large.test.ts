/**
 * The HTML report of large runs: a million tasks at 2 ranks gives a page of bounded size, soon,
 * that opens in Chromium without script errors and says it drew a sample of the stream; tasks
 * with keys of 100 KB give a small page; and the pieces that spread data-sized arrays as call
 * arguments (the stack overflows past ~125k) take any size: the SVG timeline of 300,000 slices,
 * a fence reporting 200,000 tasks held by a constraint.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { expect } from 'chai';
import * as ttg from 'ttg';

import { mpirun } from '../../bench/lib/mpirun.js';
import { renderSvg, type SvgEvent } from '../../src/observe/trace-svg.js';
import { fence } from '../helpers.js';
import { launchChromium } from './browser.js';
import { resultLines } from './rank-results.js';
import { scratchDir } from '../scratch-dir.js';

const SCRIPT = fileURLToPath(new URL('../mpi/report-large.js', import.meta.url));
/** The report of a million tasks stays under this (it draws a sample of a few thousand slices). */
const MAX_BYTES = 3 << 20;

describe('the HTML report of large runs', function () {
  this.timeout(300_000);

  it('a million tasks at 2 ranks: finalize resolves soon, the page is under 3 MB, counts every task, says it sampled the stream, and opens in Chromium without errors', async () => {
    const file = join(scratchDir('ttg-report-'), 'big.html');
    const run = mpirun(2, SCRIPT, ['many', '1000000'], 240_000, { TTG_REPORT: file });
    expect(run.status, run.output).to.equal(0);
    const results = resultLines<{ rank: number; ms: number; ran: number }>(run.stdout);
    expect(results.map((r) => r.ran).reduce((a, b) => a + b, 0)).to.equal(1_000_000);
    // gathering and rendering the digests: not proportional to the tasks (it was 5 s, then RangeError)
    for (const r of results) expect(r.ms, `finalize() on rank ${r.rank}`).to.be.below(3000);
    expect(statSync(file).size).to.be.below(MAX_BYTES);
    const html = readFileSync(file, 'utf8');
    expect(html).to.match(/<p id="summary">2 rank\(s\), 1000000 tasks of 1 TT\(s\)/);
    expect(html).to.match(/<p id="sampled">Sampled: the stream draws \d+ of the run's 1000000 slices/);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(pathToFileURL(file).href);
      expect(await page.$eval('#summary', (e) => e.textContent ?? '')).to.match(/^2 rank\(s\), 1000000 tasks/);
      expect(await page.$eval('#sampled', (e) => e.textContent ?? '')).to.include('Sampled');
      expect(await page.$$eval('.stream svg rect', (r) => r.length)).to.be.above(1000);
      expect(await page.$$eval('#charts canvas', (c) => c.length)).to.be.at.least(2);
      expect(errors).to.deep.equal([]);
    } finally {
      await browser.close();
    }
  });

  it('500 tasks with keys of 100 KB: a small page, the keys cut short', () => {
    const file = join(scratchDir('ttg-report-'), 'keys.html');
    const run = spawnSync(process.execPath, [SCRIPT, 'longkeys', '500'], { encoding: 'utf8', env: { ...process.env, TTG_REPORT: file }, timeout: 120_000 });
    expect(run.status, run.stderr).to.equal(0);
    // 500 keys of 100 KB are 50 MB: the page was 52 MB
    expect(statSync(file).size).to.be.below(1 << 20);
    const html = readFileSync(file, 'utf8');
    expect(html).to.include('1 rank(s), 500 tasks of 1 TT(s)');
    // the slowest tasks' keys and the stream's tooltips: `"<k>:kkk...` (quotes escaped in the page)
    const keys = [...html.matchAll(/&quot;(\d+:k+)\.\.\./g)].map((m) => `"${m[1]}...`);
    expect(keys.length).to.be.at.least(20);
    for (const k of keys) expect(k.length).to.be.at.most(120);
  });

  it('the SVG timeline of 300,000 slices: drawn from an even sample, the title says so', () => {
    const events: SvgEvent[] = Array.from({ length: 300_000 }, (_, i) => ({ name: `T${i % 3}`, ph: 'X', ts: i, dur: 1, pid: 0, tid: 0 }));
    const svg = renderSvg(events);
    expect(svg).to.include('(1 in 15 drawn)');
    expect(svg.length).to.be.below(5 << 20);
  });

  describe('in this process', () => {
    before(async () => { await ttg.initialize(); });

    it('a fence reports 200,000 tasks held by a constraint', async () => {
      const c = new ttg.SequencedKeysConstraint((k: number) => k + 1);
      const tt = ttg.make_tt((_k: number, _v: number) => {}, [new ttg.Edge<number, number>('large-held')], [], { name: 'large-held' }).add_constraint(c);
      ttg.make_graph_executable(tt);
      for (let k = 0; k < 200_000; k++) tt.invoke(k, k);
      const report = await fence();
      expect(report.held.filter((h) => h.tt === 'large-held')).to.have.length(200_000);
      c.release(200_000);
      await fence();
    });
  });
});
