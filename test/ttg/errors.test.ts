/**
 * Errors of SPEC §6 raised while tasks run or are invoked: a body that throws (all four forms),
 * a second value on a plain input, an output terminal out of range, invoke with the wrong number
 * of values or before make_graph_executable. Each is a TtgError with an exact code and a message
 * that names the TT (and terminal/key where relevant); the process keeps working afterwards.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';
import { expectHealthy, expectTtgError, fence, mine, rejection, thrown, tick } from '../helpers.js';

type LooseOut = { send(i: number, k: unknown, v: unknown): void; sendk(i: number, k: unknown): void; sendv(i: number, v: unknown): void };

describe('errors', () => {
  before(async () => {
    await ttg.initialize();
  });

  it('TtgError is an Error with a code, and carries tt, terminal and key', () => {
    const e = new ttg.Edge<number, number>('err-shape');
    const tt = ttg.make_tt((_k: number, _v: number) => {}, [e], [], { name: 'err-shape' });
    const err = expectTtgError(thrown(() => tt.invoke(1, 0)), 'E_NOT_EXECUTABLE', ["'err-shape'"]);
    expect(err).to.be.instanceOf(Error);
    expect(err.name).to.equal('TtgError');
    expect(err.tt).to.equal('err-shape');
  });

  describe('a body that throws rejects the fence with E_TASK_FAILED, keeping the cause', () => {
    const boom = () => new Error('kaboom');
    const forms: Record<string, (cause: Error) => ttg.Body<number, readonly [ttg.Edge<number, number>], readonly []>> = {
      plain: (cause) => () => {
        throw cause;
      },
      async: (cause) => async () => {
        await tick(1);
        throw cause;
      },
      'function*': (cause) => function* () {
        yield Promise.resolve(1);
        throw cause;
      },
      'async function*': (cause) => async function* () {
        yield Promise.resolve(1);
        throw cause;
      },
    };
    for (const [form, make] of Object.entries(forms)) {
      it(`${form} body`, async () => {
        const e = new ttg.Edge<number, number>(`err-throw-${form}`);
        const cause = boom();
        const others: number[] = [];
        const tt = ttg.make_tt(make(cause), [e], [], { name: `err-throw-${form}` });
        const e2 = new ttg.Edge<number, number>(`err-throw-ok-${form}`);
        const ok = ttg.make_tt((k: number) => { others.push(k); }, [e2], [], { name: `err-throw-ok-${form}` });
        ttg.make_graph_executable(tt, ok);
        tt.invoke(13, 0);
        const err = expectTtgError(await rejection(fence()), 'E_TASK_FAILED', [`'err-throw-${form}'`, 'key 13', 'kaboom']);
        expect(err.cause).to.equal(cause);
        expect(err.tt).to.equal(`err-throw-${form}`);
        expect(err.key).to.equal(13);
        // one rank: the phase's first error is the only one listed
        expect(err.errors).to.deep.equal([err]);
        // the process keeps working
        ok.invoke(1, 0);
        await fence();
        expect(others).to.deep.equal([1]);
      });
    }

    it('a thrown value whose text cannot be read (a Symbol message, a throwing toString, a Proxy) still fails the task with E_TASK_FAILED', async () => {
      const hostile: unknown[] = [
        Object.assign(new Error(), { message: Symbol('m') }),
        Object.assign(new Error(), { message: { toString() { throw new Error('no text'); } } }),
        new Proxy({}, { get() { throw new Error('trap'); }, getPrototypeOf() { throw new Error('trap'); } }),
      ];
      for (const [i, thrownValue] of hostile.entries()) {
        const e = new ttg.Edge<number, number>(`err-throw-hostile-${i}`);
        const tt = ttg.make_tt(() => {
          throw thrownValue;
        }, [e], [], { name: `err-throw-hostile-${i}` });
        ttg.make_graph_executable(tt);
        tt.invoke(1, 0);
        const err = expectTtgError(await rejection(fence()), 'E_TASK_FAILED', [`'err-throw-hostile-${i}'`]);
        expect(err.cause).to.equal(thrownValue);
      }
    });

    it('a thrown non-Error value is kept as the cause too', async () => {
      const e = new ttg.Edge<number, number>('err-throw-str');
      const tt = ttg.make_tt(() => {
        throw 'plain string'; // eslint-disable-line no-throw-literal
      }, [e], [], { name: 'err-throw-str' });
      ttg.make_graph_executable(tt);
      tt.invoke(1, 0);
      const err = expectTtgError(await rejection(fence()), 'E_TASK_FAILED', ["'err-throw-str'", 'plain string']);
      expect(err.cause).to.equal('plain string');
    });

    it('the process keeps working after failed tasks', async () => {
      await expectHealthy('err');
    });
  });

  describe('a second value on a plain input (E_DUPLICATE_INPUT)', () => {
    it('from invoke at top level: thrown synchronously, naming TT, terminal and key', async () => {
      // input 0 reduces (its stream stays open), input 1 is plain: a second invoke of key 4
      // brings a second value to plain input 1 while the task is still collecting inputs
      const r = new ttg.Edge<number, number>('err-dup-r');
      const p = new ttg.Edge<number, string>('err-dup-p');
      const runs: unknown[] = [];
      const tt = ttg.make_tt((k: number, sum: number, s: string) => { runs.push([k, sum, s]); }, [r, p], [], { name: 'err-dup' })
        .set_input_reducer(0, (a, b) => a + b);
      ttg.make_graph_executable(tt);
      tt.invoke(4, 1, 'first');
      const err = expectTtgError(thrown(() => tt.invoke(4, 2, 'second')), 'E_DUPLICATE_INPUT', ["'err-dup'", 'terminal 1', 'key 4']);
      expect(err.terminal).to.equal(1);
      expect(err.key).to.equal(4);
      // the first value stays; the task completes normally
      tt.finalize_argstream(0, 4);
      const report = await fence();
      expect(runs).to.have.length(1);
      expect((runs[0] as unknown[])[2]).to.equal('first');
      expect(mine(report, 'err-dup').incomplete).to.deep.equal([]);
    });

    it('a key whose task already became ready starts a new task (C++ TTG semantics, documented)', async () => {
      // Duplicates are detected while a task collects its inputs. Once every input is there the
      // task leaves the key table (so memory does not grow with completed tasks) and a later
      // value for the same key starts a new task, exactly as in C++ TTG. See README "Inputs".
      const e1 = new ttg.Edge<number, number>('err-dup2-one');
      const a = new ttg.Edge<number, number>('err-dup2-a');
      const b = new ttg.Edge<number, number>('err-dup2-b');
      const runs: string[] = [];
      const one = ttg.make_tt((k: number, v: number) => { runs.push(`one ${k} ${v}`); }, [e1], [], { name: 'err-dup2-one' });
      const two = ttg.make_tt((k: number, x: number, y: number) => { runs.push(`two ${k} ${x} ${y}`); }, [a, b], [], { name: 'err-dup2-two' });
      ttg.make_graph_executable(one, two);
      one.invoke(1, 10);
      one.invoke(1, 20);
      two.invoke(1, 10, 11);
      two.invoke(1, 20, 21);
      await fence();
      expect(runs.sort()).to.deep.equal(['one 1 10', 'one 1 20', 'two 1 10 11', 'two 1 20 21']);
    });

    it('from a send inside a body: the fence rejects with E_DUPLICATE_INPUT naming the receiving TT', async () => {
      const go = new ttg.Edge<number, number>('err-dupb-go');
      const a = new ttg.Edge<string, number>('err-dupb-a');
      const b = new ttg.Edge<string, number>('err-dupb-b');
      const runs: unknown[] = [];
      const src = ttg.make_tt((_k: number, _v: number, out) => {
        out.send(0, 'kk', 1);
        out.send(0, 'kk', 2);
      }, [go], [a, b], { name: 'err-dupb-src' });
      const j = ttg.make_tt((k: string, x: number, y: number) => { runs.push([k, x, y]); }, [a, b], [], { name: 'err-dupb-J' });
      ttg.make_graph_executable(src, j);
      src.invoke(0, 0);
      const err = expectTtgError(await rejection(fence()), 'E_DUPLICATE_INPUT', ["'err-dupb-J'", 'terminal 0', 'key "kk"']);
      expect(err.key).to.equal('kk');
      expect(runs).to.deep.equal([]);
    });

    it('the process keeps working after duplicate inputs', async () => {
      await expectHealthy('err');
    });
  });

  describe('an output terminal out of range inside a body (E_TERMINAL_RANGE)', () => {
    const sends: Record<string, (out: LooseOut, k: number) => void> = {
      send: (out, k) => out.send(2, k, 1),
      sendk: (out, k) => out.sendk(5, k),
      sendv: (out) => out.sendv(-1, 1),
    };
    for (const [what, doSend] of Object.entries(sends)) {
      it(`${what} on a terminal the TT does not have rejects the fence, naming TT and terminal`, async () => {
        const go = new ttg.Edge<number, number>(`err-range-${what}-go`);
        const e = new ttg.Edge<number, number>(`err-range-${what}-e`);
        const src = ttg.make_tt((k: number, _v: number, out) => {
          doSend(out as unknown as LooseOut, k);
        }, [go], [e], { name: `err-range-${what}` });
        const dst = ttg.make_tt(() => {}, [e], [], { name: `err-range-${what}-dst` });
        ttg.make_graph_executable(src, dst);
        src.invoke(8, 0);
        const err = expectTtgError(await rejection(fence()), 'E_TERMINAL_RANGE', [`'err-range-${what}'`, 'terminal', 'key 8']);
        expect(err.tt).to.equal(`err-range-${what}`);
      });
    }

    it('the process keeps working after terminal range errors', async () => {
      await expectHealthy('err');
    });
  });

  describe('invoke misuse', () => {
    it('invoke with the wrong number of values throws E_ARITY naming the TT', () => {
      const a = new ttg.Edge<number, number>('err-arity-a');
      const b = new ttg.Edge<number, number>('err-arity-b');
      const tt = ttg.make_tt((_k: number, _x: number, _y: number) => {}, [a, b], [], { name: 'err-arity' });
      ttg.make_graph_executable(tt);
      const loose = tt as unknown as { invoke(...args: unknown[]): void };
      expectTtgError(thrown(() => loose.invoke(1, 2)), 'E_ARITY', ["'err-arity'", '2', '1']);
      expectTtgError(thrown(() => loose.invoke(1, 2, 3, 4)), 'E_ARITY', ["'err-arity'", '2', '3']);
      // invoke(1) with no values is the control-input form (tt.invoke(key)): types reject it for data inputs
    });

    it('invoke before make_graph_executable throws E_NOT_EXECUTABLE naming the TT', () => {
      const e = new ttg.Edge<number, number>('err-notexec');
      const tt = ttg.make_tt((_k: number, _v: number) => {}, [e], [], { name: 'err-notexec' });
      expectTtgError(thrown(() => tt.invoke(1, 0)), 'E_NOT_EXECUTABLE', ["'err-notexec'"]);
    });

    it('the process keeps working after invoke misuse', async () => {
      await expectHealthy('err');
    });
  });

  it('a runtime error raised inside a body (a bad kernel argument) names the failing TT, key and rank', async () => {
    const e = new ttg.Edge<number, number>('err-kernel');
    const tt = ttg.make_tt(function* (_k: number, _v: number) {
      const buf = new ttg.Buffer(4);
      const { stream } = (yield ttg.device.input(buf)) as ttg.device.InputResult;
      ttg.device.kernels.dscal(stream, -3, 2.0, buf); // negative length: E_INVALID_ARGUMENT
      yield ttg.device.kernel();
    }, [e], [], { name: 'err-kernel' });
    ttg.make_graph_executable(tt);
    tt.invoke(42, 0);
    const err = expectTtgError(await rejection(fence()), 'E_INVALID_ARGUMENT', ["'err-kernel'", 'key 42', 'rank 0']);
    expect(err.tt).to.equal('err-kernel');
    expect(err.key).to.equal(42);
    expect(err.cause).to.be.instanceOf(ttg.TtgError);
    await expectHealthy('err-kernel');
  });
});
