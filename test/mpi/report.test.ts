/**
 * The HTML report (`TTG_REPORT`, src/observe/report.ts): one self-contained file written at finalize
 * with every rank's tasks, at 1 and 2 ranks; tasks counted per execution when keys run again; and
 * the page of a run where nothing ran.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';

import { mpirun } from '../../bench/lib/mpirun.js';
import { renderReport } from '../../src/observe/report.js';
import { ReportDigest } from '../../src/observe/report-digest.js';
import { scratchDir } from '../scratch-dir.js';

const SCRIPT = fileURLToPath(new URL('../mpi/report.js', import.meta.url));
const REPEATS = fileURLToPath(new URL('../mpi/report-repeats.js', import.meta.url));

/** The rows of the table after heading `h2`, as arrays of cell texts. */
function rows(html: string, h2: string): string[][] {
  const at = html.indexOf(`<h2>${h2}</h2>`);
  const body = html.slice(at, html.indexOf('</table>', at));
  return [...body.matchAll(/<tr>(.*?)<\/tr>/g)].slice(1).map((m) => [...m[1]!.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((c) => c[1]!));
}

/** Nothing in the page is fetched from elsewhere: scripts and styles inline, no links, frames, images or CSS urls. */
function selfContained(html: string): void {
  expect(html).to.not.match(/<script[^>]*\bsrc|<link|<iframe|<img|\bsrc=|url\((?!data:)|@import|href="http/i);
}

describe('the HTML report (TTG_REPORT)', function () {
  this.timeout(120_000);

  for (const np of [1, 2]) {
    it(`at ${np} rank(s): one self-contained file with every rank's tasks, per-TT figures, the slowest task first, the task stream, fences, errors and rates`, () => {
      const file = join(scratchDir('ttg-report-'), 'run.html');
      const env = { TTG_REPORT: file };
      const run = np === 1
        ? spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8', env: { ...process.env, ...env } })
        : mpirun(np, SCRIPT, [], 60_000, env);
      expect(run.status, String(run.stderr)).to.equal(0);
      expect(existsSync(file)).to.equal(true);
      const html = readFileSync(file, 'utf8');
      selfContained(html);
      expect(html).to.match(new RegExp(`${np} rank\\(s\\), 45 tasks of 3 TT\\(s\\)`));
      const perTt = new Map(rows(html, 'Per TT').map((r) => [r[0], r]));
      expect(perTt.get('MAP')![1]).to.equal('40');
      expect(perTt.get('REDUCE')![1]).to.equal('4');
      if (np === 2) expect(perTt.get('MAP')![5]).to.equal('rank 0: 20, rank 1: 20');
      const slowest = rows(html, 'Slowest tasks');
      expect(slowest[0]!.slice(0, 3)).to.deep.equal(['MAP', '7', String(7 % np)]);
      expect(Number(slowest[0]![3])).to.be.at.least(30);
      expect(html).to.match(/<svg[^>]*>[\s\S]*<rect[\s\S]*<\/svg>/);
      if (np === 2) expect(rows(html, 'Messages between ranks').map((r) => r[0]).sort()).to.include('0 → 1');
      // every rank's two fences and finalize's, in order; the planted error with its rank, TT, key and message
      const fences = rows(html, 'Fences');
      expect(fences.map((r) => `${r[0]} ${r[1]}`).sort()).to.deep.equal([...Array(np).keys()].flatMap((r) => [`${r} fence 1`, `${r} fence 2`, `${r} fence 3`]));
      expect(fences.every((r) => Number(r[3]) >= 0)).to.equal(true);
      const errors = rows(html, 'Errors');
      expect(errors).to.have.length(1);
      expect(errors[0]!.slice(0, 5)).to.deep.equal([String(np - 1), 'E_TASK_FAILED', 'BOOM', '3', 'task body threw: planted failure for the report']);
      // the rates chart: uPlot inline, with one series per rank of the tasks that finished
      expect(html).to.include('tasks finished per second');
      const data = JSON.parse(/const d = (\{.*\});/.exec(html)![1]!) as { ranks: number[]; tasks: number[][]; x: number[] };
      expect(data.ranks).to.deep.equal([...Array(np).keys()]);
      const width = (data.x[1]! - data.x[0]!) / 1000;
      expect(Math.round(data.tasks.flat().reduce((a, b) => a + b, 0) * width)).to.equal(45);
    });
  }

  for (const np of [1, 2]) {
    it(`at ${np} rank(s): counts executions, not keys (a key run 5 times, a reduction finishing in each of 3 phases, a generator of 3 slices), and the slowest task is one execution`, () => {
      const file = join(scratchDir('ttg-report-'), 'run.html');
      const env = { TTG_REPORT: file };
      const run = np === 1
        ? spawnSync(process.execPath, [REPEATS], { encoding: 'utf8', env: { ...process.env, ...env } })
        : mpirun(np, REPEATS, [], 60_000, env);
      expect(run.status, String(run.stderr)).to.equal(0);
      const html = readFileSync(file, 'utf8');
      const perTt = new Map(rows(html, 'Per TT').map((r) => [r[0], r]));
      expect(perTt.get('AGAIN')![1]).to.equal('5');
      expect(perTt.get('SUM')![1]).to.equal('12');
      expect(perTt.get('STEPS')![1]).to.equal('4');
      expect(html).to.match(new RegExp(`${np} rank\\(s\\), 21 tasks of 3 TT\\(s\\)`));
      // each AGAIN execution is busy ~8 ms: the slowest is one of them, not the key's 5 summed
      const slowest = rows(html, 'Slowest tasks');
      expect(slowest.slice(0, 5).map((r) => r.slice(0, 3))).to.deep.equal(Array(5).fill(['AGAIN', '0', String(np - 1)]));
      expect(Number(slowest[0]![3])).to.be.within(7.9, 25);
      expect(Number(perTt.get('AGAIN')![4])).to.equal(Number(slowest[0]![3]));
    });
  }

  it('a run where no task ran still gives a page that says so', () => {
    const html = renderReport([new ReportDigest(0, 0).data()]);
    selfContained(html);
    expect(html).to.include('1 rank(s), 0 tasks of 0 TT(s)').and.to.include('no tasks ran');
  });
});
