/**
 * Observability and robustness: TTG_TRACE (one process and merged across 2 ranks, with device ops
 * and message flows; `trace:svg`), the hang watchdog (E_HANG, every rank reports, in one process
 * and under mpirun), fence({ strict }) under mpirun, TTG_CHECKSUM (a payload corrupted on purpose
 * is E_CORRUPT), and a rank killed with SIGKILL ending the job non-zero within seconds.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { expect } from 'chai';
import * as ttg from 'ttg';

import { renderSvg, type SvgEvent } from '../../src/observe/trace-svg.js';
import { expectHealthy, expectTtgError, rejection, within } from '../helpers.js';
import { mpirun } from '../../bench/lib/mpirun.js';

const fixture = fileURLToPath(new URL('../mpi/observability.js', import.meta.url));

/** mpirun with extra environment variables for the ranks. */
function mpirunEnv(np: number, mode: string, env: Record<string, string>, timeoutMs = 60_000) {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    return mpirun(np, fixture, [mode], timeoutMs);
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

function lines(stdout: string, tag: string): Array<{ rank: number; code?: string; message?: string; ok?: boolean; got?: number; s?: number }> {
  return stdout.split('\n').filter((l) => l.startsWith(`${tag} `)).map((l) => JSON.parse(l.slice(tag.length + 1)) as { rank: number })
    .sort((a, b) => a.rank - b.rank);
}

function readTrace(file: string): SvgEvent[] {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as { traceEvents: SvgEvent[] };
  expect(doc.traceEvents).to.be.an('array');
  return doc.traceEvents;
}

describe('observability', function () {
  this.timeout(120_000);
  let dir = '';

  before(async () => {
    await ttg.initialize();
    dir = mkdtempSync(join(tmpdir(), 'ttg-obs-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  describe('TTG_TRACE', () => {
    it('writes Chrome trace events for tasks (with keys), async spans and device ops in one process', () => {
      const file = join(dir, 'one.json');
      const run = spawnSync(process.execPath, [fixture, 'trace'], { encoding: 'utf8', env: { ...process.env, TTG_TRACE: file }, timeout: 60_000 });
      expect(run.status, run.stderr).to.equal(0);
      const ev = readTrace(file);
      expect(ev.find((e) => e.ph === 'M' && e.name === 'process_name')?.args?.['name']).to.equal('rank 0');
      const tasks = ev.filter((e) => e.ph === 'X' && e.name === 'tW');
      expect(tasks).to.have.length(4);
      expect(tasks.map((e) => e.args?.['key']).sort()).to.deep.equal(['0', '1', '2', '3']);
      expect(ev.filter((e) => e.ph === 'b' && e.name === 'Dev')).to.have.length(2);
      const kernels = ev.filter((e) => e.ph === 'X' && e.name === 'dscal');
      expect(kernels).to.have.length(2);
      expect(kernels.every((e) => e.tid >= 100)).to.equal(true);
      // device stamps and JS times share one clock: the kernels fall inside the tasks' time range
      const js = ev.filter((e) => e.ph === 'X' && e.tid === 0);
      const lo = Math.min(...js.map((e) => e.ts));
      const hi = Math.max(...js.map((e) => e.ts + e.dur!));
      for (const k of kernels) expect(k.ts).to.be.within(lo, hi);
    });

    it('merges the events of 2 ranks into one file at finalize, with message flows between them', () => {
      const file = join(dir, 'two.json');
      const run = mpirunEnv(2, 'trace', { TTG_TRACE: file });
      expect(run.status, run.output).to.equal(0);
      const ev = readTrace(file);
      const procs = ev.filter((e) => e.ph === 'M' && e.name === 'process_name').map((e) => e.pid).sort();
      expect(procs).to.deep.equal([0, 1]);
      for (const r of [0, 1]) expect(ev.filter((e) => e.pid === r && e.ph === 'X' && e.name === 'tV'), `rank ${r}`).to.have.length(4);
      const starts = new Set(ev.filter((e) => e.ph === 's').map((e) => e.id));
      const ends = ev.filter((e) => e.ph === 'f');
      expect(ends.length).to.be.greaterThan(0);
      for (const f of ends) expect(starts.has(f.id), `flow ${f.id}`).to.equal(true);
      expect(ev.some((e) => e.pid === 1 && e.name === 'dscal')).to.equal(true);
      expect(existsSync(`${file}`)).to.equal(true);

      // trace:svg renders it (library call and command line)
      const svg = renderSvg(ev);
      expect(svg).to.match(/^<svg /).and.to.include('rank 0').and.to.include('rank 1').and.to.include('dscal');
      const out = join(dir, 'two.svg');
      const cli = spawnSync(process.execPath, [fileURLToPath(new URL('../../src/observe/trace-svg-cli.js', import.meta.url)), file, '-o', out], { encoding: 'utf8' });
      expect(cli.status, cli.stderr).to.equal(0);
      expect(readFileSync(out, 'utf8')).to.include('</svg>');
    });

    it('costs one check when off', () => {
      // the scheduler's hot path tests `tracer` once per task; with TTG_TRACE unset it stays undefined
      expect(process.env['TTG_TRACE']).to.equal(undefined);
    });
  });

  describe('hang report (TTG_HANG_TIMEOUT)', () => {
    let saved: string | undefined;
    beforeEach(() => {
      saved = process.env['TTG_HANG_TIMEOUT'];
      process.env['TTG_HANG_TIMEOUT'] = '0.3';
    });
    afterEach(() => {
      if (saved === undefined) delete process.env['TTG_HANG_TIMEOUT'];
      else process.env['TTG_HANG_TIMEOUT'] = saved;
    });

    for (const form of ['async', 'generator'] as const) {
      it(`an ${form} body that never settles: fence() rejects with E_HANG naming what is held, then the process keeps working`, async () => {
        const start = new ttg.Edge<number, number>(`hang-${form}-start`);
        const c = new ttg.SequencedKeysConstraint((k: number) => k);
        const body = form === 'async'
          ? async (k: number, _v: number) => { if (k === 1) await new Promise(() => {}); }
          : function* (k: number, _v: number) { if (k === 1) yield new Promise(() => {}); };
        const stuck = ttg.make_tt(body, [start], [], { name: `hang-${form}-Stuck` });
        const heldIn = new ttg.Edge<number, number>(`hang-${form}-held`);
        const held = ttg.make_tt((_k: number, _v: number) => {}, [heldIn], [], { name: `hang-${form}-Held` }).add_constraint(c);
        ttg.make_graph_executable(stuck, held);
        c.release(0);
        stuck.invoke(0, 0);
        stuck.invoke(1, 0);
        held.invoke(3, 0);
        ttg.execute();
        const printed: string[] = [];
        const orig = console.error;
        console.error = (...a: unknown[]) => { printed.push(a.join(' ')); };
        let e: unknown;
        try {
          e = await within(rejection(ttg.fence({ quiet: true })), 5000, 'hung fence');
        } finally {
          console.error = orig;
        }
        expectTtgError(e, 'E_HANG', ['no progress', `hang-${form}-Stuck[1]`, '1 held by constraints']);
        const text = printed.join('\n');
        expect(text).to.include(`running: hang-${form}-Stuck[1]`).and.to.include(`held: hang-${form}-Held[3] by a constraint at ordinal 3`);
        await expectHealthy(`hang-${form}`);
      });
    }

    it('a hang after a recorded error rejects with E_HANG whose cause is that error', async () => {
      const go = new ttg.Edge<number, number>('hang-cause');
      const tt = ttg.make_tt(async (k: number, _v: number) => {
        if (k === 0) await new Promise(() => {}); // never settles: the fence can only end on the watchdog
        else throw new Error('the recorded failure');
      }, [go], [], { name: 'hang-cause' });
      ttg.make_graph_executable(tt);
      tt.invoke(0, 0);
      tt.invoke(1, 0);
      ttg.execute();
      const orig = console.error;
      console.error = () => {};
      let e: unknown;
      try {
        e = await within(rejection(ttg.fence({ quiet: true })), 5000, 'hung fence');
      } finally {
        console.error = orig;
      }
      expectTtgError(e, 'E_HANG', ['no progress']);
      expectTtgError((e as Error).cause, 'E_TASK_FAILED', ["'hang-cause'", 'key 1', 'the recorded failure']);
      await expectHealthy('hang-cause');
    });

    it('does not fire while tasks keep finishing', async () => {
      const e = new ttg.Edge<number, number>('hang-busy');
      let n = 0;
      const slow = ttg.make_tt(async (k: number, _v: number, out) => {
        await new Promise((r) => setTimeout(r, 100));
        n++;
        if (k < 8) out.send(0, k + 1, 0);
      }, [e], [e], { name: 'hang-busy' });
      ttg.make_graph_executable(slow);
      slow.invoke(0, 0);
      ttg.execute();
      await within(ttg.fence({ quiet: true }), 5000, 'fence');
      expect(n).to.equal(9);
    });

    for (const np of [2, 3]) {
      it(`under mpirun -np ${np}: every rank prints its report and rejects with E_HANG; the job ends non-zero`, () => {
        const run = mpirunEnv(np, 'hang', { TTG_HANG_TIMEOUT: '1' });
        expect(run.status, run.output).to.not.equal(0);
        expect(run.seconds).to.be.below(20);
        const rej = lines(run.stdout, 'REJECTED');
        expect(rej.map((r) => r.rank), run.output).to.deep.equal([...Array(np).keys()]);
        for (const r of rej) expect(r.code, r.message).to.equal('E_HANG');
        expect(rej[np - 1]!.message).to.include(`Stuck[${np - 1}]`);
        for (let r = 0; r < np; r++) {
          expect(run.output).to.include(`ttg: rank ${r}: fence() made no progress`);
          expect(run.output).to.include(`held: Held[5] by a constraint at ordinal 5`);
          expect(run.output).to.include('incomplete: Lonely[7] missing input #1 (never)');
        }
        for (const s of lines(run.stdout, 'SECONDS')) expect(s.s).to.be.within(0.9, 10);
      });
    }
  });

  it('fence({ strict: true }) rejects with E_INCOMPLETE on every rank under mpirun -np 2, and the world keeps working', () => {
    const run = mpirunEnv(2, 'strict', {});
    expect(run.status, run.output).to.equal(0);
    const strict = lines(run.stdout, 'STRICT');
    expect(strict.map((r) => r.code)).to.deep.equal(['E_INCOMPLETE', 'E_INCOMPLETE']);
    expect(strict[0]!.message).to.include('J[2] missing input #1 (b)');
    expect(lines(run.stdout, 'AFTER').map((r) => r.got)).to.deep.equal([2, 2]);
  });

  it('TTG_CHECKSUM=1: clean messages pass; a payload corrupted after its checksum is E_CORRUPT naming edge, key and source rank', () => {
    const run = mpirunEnv(2, 'corrupt', { TTG_CHECKSUM: '1' });
    expect(run.status, run.output).to.not.equal(0);
    expect(lines(run.stdout, 'CLEAN').map((r) => r.ok)).to.deep.equal([true, true]);
    const rej = lines(run.stdout, 'REJECTED');
    expect(rej.map((r) => r.rank), run.output).to.deep.equal([0, 1]);
    for (const r of rej) {
      expect(r.code).to.equal('E_CORRUPT');
      expect(r.message).to.include("edge 'payload'").and.to.include('from rank 0').and.to.include('key 20');
    }
  });

  it('a rank killed with SIGKILL ends the whole job non-zero within seconds', () => {
    const run = mpirunEnv(2, 'kill', {}, 60_000);
    expect(run.status, run.output).to.not.equal(0);
    expect(run.seconds).to.be.below(15);
    expect(run.stdout).to.not.include('NOT-KILLED');
  });
});
