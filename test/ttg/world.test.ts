/**
 * The world: initialize (idempotent), rank and size of a one-process world, tt.get_world(), and
 * what finalize leaves behind (E_FINALIZED), tested in a child process because finalize ends the
 * world of the whole process.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ttg from 'ttg';

const here = dirname(fileURLToPath(import.meta.url));

interface Outcome { ok: boolean; isTtgError?: boolean; code?: string; message?: string }

function runChild(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script], { timeout: 20000 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : null;
      resolve({ code, stdout, stderr });
    });
  });
}

describe('world', () => {
  let world: ttg.World;
  before(async () => {
    world = await ttg.initialize();
  });

  it('a process outside mpirun is rank 0 of a world of size 1', () => {
    expect(world.rank).to.equal(0);
    expect(world.size).to.equal(1);
  });

  it('initialize is idempotent: later calls return the same world', async () => {
    expect(await ttg.initialize()).to.equal(world);
  });

  it('tt.get_world() is that world', () => {
    const e = new ttg.Edge<number, number>('wd-gw');
    const tt = ttg.make_tt(() => {}, [e], [], { name: 'wd-gw' });
    const w = tt.get_world();
    expect(w).to.equal(world);
    expect(w.rank).to.equal(0);
    expect(w.size).to.equal(1);
  });

  it('world.execute() and world.fence() behave like ttg.execute() and ttg.fence()', async () => {
    const e = new ttg.Edge<number, number>('wd-methods');
    const ran: number[] = [];
    const tt = ttg.make_tt((k: number) => { ran.push(k); }, [e], [], { name: 'wd-methods' });
    ttg.make_graph_executable(tt);
    tt.invoke(3, 0);
    world.execute();
    const report = await world.fence({ quiet: true });
    expect(ran).to.deep.equal([3]);
    expect(report).to.have.property('incomplete').that.is.an('array');
    expect(report).to.have.property('held').that.is.an('array');
  });

  describe('after finalize (in a child process)', () => {
    let result: Record<string, unknown>;
    before(async function () {
      this.timeout(30000);
      const child = await runChild(join(here, '..', 'fixtures', 'finalize_child.js'));
      expect(child.code, `child failed: ${child.stderr}`).to.equal(0);
      const last = child.stdout.trim().split('\n').pop() ?? '';
      result = JSON.parse(last) as Record<string, unknown>;
    });

    const expectFinalized = (o: unknown, what: string) => {
      const out = o as Outcome;
      expect(out.ok, `${what} should fail`).to.equal(false);
      expect(out.isTtgError, `${what} should throw a TtgError`).to.equal(true);
      expect(out.code, out.message).to.equal('E_FINALIZED');
      expect(out.message).to.include(what);
    };

    it('the child ran a graph before finalizing (rank 0 of 1); nothing ran before its first execute()', () => {
      expect(result.ranBeforeExecute).to.equal(0);
      expect(result.ran).to.equal(5);
      expect(result.rank).to.equal(0);
      expect(result.size).to.equal(1);
    });

    it('finalize is idempotent', () => {
      expect(result.finalizeTwice).to.deep.equal({ ok: true });
    });

    it('initialize after finalize rejects with E_FINALIZED', () => {
      expectFinalized(result.initializeAfter, 'initialize()');
    });

    it('fence after finalize rejects with E_FINALIZED', () => {
      expectFinalized(result.fenceAfter, 'fence()');
    });

    it('execute and tt.get_world after finalize throw E_FINALIZED', () => {
      expectFinalized(result.executeAfter, 'execute()');
      expectFinalized(result.getWorldAfter, 'get_world()');
    });

    it('before initialize, make_graph_executable and fence fail with E_NOT_INITIALIZED', () => {
      for (const key of ['makeExecutableBeforeInit', 'fenceBeforeInit']) {
        const out = result[key] as Outcome;
        expect(out.ok, key).to.equal(false);
        expect(out.isTtgError, key).to.equal(true);
        expect(out.code, out.message).to.equal('E_NOT_INITIALIZED');
        expect(out.message).to.include('initialize');
      }
    });
  });
});
