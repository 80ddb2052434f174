/**
 * What a failing task threw, as it travels with the failure's announcement (src/transport/error-cause.ts),
 * encoded and decoded as the wire does: intact, or a well-formed stand-in; announcing never throws.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';

import { causeFromTravel, causeToTravel, UNDESCRIBABLE, type TravellingCause } from '../../src/transport/error-cause.js';
import { announcedError, encodeFailure } from '../../src/transport/failures.js';
import { decode, encode } from '../../src/serialize/codec.js';
import type { WireMessage } from '../../src/ttg/common/wire.js';
import { arrivalProblems, OnlyOnThrower, registerClasses, throwables, view } from '../mpi/error-causes.js';

const travel = (e: unknown): unknown => causeFromTravel(decode<TravellingCause | null>(encode(causeToTravel(e)).bytes).msg);

/** `err` announced and received: the header alone (a Failure message has no payload parts), decoded. */
function announced(err: ttg.TtgError): ttg.TtgError {
  const { msg, parts } = decode<WireMessage>(encodeFailure(err, 1));
  expect(parts).to.have.length(0);
  return announcedError(msg);
}

const wellFormed = (s: unknown) => typeof s === 'string' && (s as string & { isWellFormed(): boolean }).isWellFormed();

describe('a failure\'s cause across ranks', () => {
  it('a built-in error class stays its class, with message, stack and own properties that can travel', () => {
    const e = Object.assign(new TypeError('bad type'), { code: 'E_X', where: { line: 3 }, fn: () => 1 });
    const r = travel(e) as TypeError & Record<string, unknown>;
    expect(r).to.be.instanceOf(TypeError);
    expect([r.name, r.message, r.stack, r['code'], r['where']]).to.deep.equal(['TypeError', 'bad type', e.stack, 'E_X', { line: 3 }]);
    expect(r).to.not.have.property('fn');
  });

  it('an unknown class is its nearest built-in class with its name; causes nest, four levels deep at most', () => {
    class Mine extends Error {
      constructor(m: string, cause?: unknown) {
        super(m, { cause });
        this.name = 'Mine';
      }
    }
    class MyType extends TypeError {}
    let e: Error = new RangeError('level 5');
    for (let i = 4; i >= 1; i--) e = new Mine(`level ${i}`, e);
    const levels: string[] = [];
    for (let r = travel(e) as Error | undefined; r !== undefined; r = r.cause as Error | undefined) {
      expect(r.constructor).to.equal(Error);
      levels.push(`${r.name}: ${r.message}`);
    }
    expect(levels).to.deep.equal(['Mine: level 1', 'Mine: level 2', 'Mine: level 3', 'Mine: level 4']);
    expect(travel(new MyType('t'))).to.be.instanceOf(TypeError);
  });

  it('a TtgError keeps its code and detail; a thrown value that is no error travels as itself, or as its inspected text', () => {
    const t = new ttg.TtgError('E_ARITY', 'too few', { tt: 'T' });
    const r = travel(t) as ttg.TtgError;
    expect(r).to.be.instanceOf(ttg.TtgError);
    expect([r.code, r.detail, r.message]).to.deep.equal(['E_ARITY', 'too few', t.message]);
    expect(travel('oops')).to.equal('oops');
    expect(travel({ n: 1 })).to.deep.equal({ n: 1 });
    expect(travel({ f: () => 0 })).to.equal('{ f: [Function: f] }');
    expect(travel(undefined)).to.equal(undefined);
  });

  it('every value of the generator arrives intact or as a well-formed stand-in, through the Failure header alone', () => {
    registerClasses(true);
    const problems: string[] = [];
    for (const c of throwables(51)) {
      const v = c.make();
      const got = announced(new ttg.TtgError('E_TASK_FAILED', 'task body threw', { tt: 'T', key: 3, rank: 1, cause: v }));
      expect(got.code, c.label).to.equal('E_TASK_FAILED');
      // one process: the split class of the thrower is registered here too, so it arrives intact
      for (const p of arrivalProblems(view(v), view(got.cause), c.text)) problems.push(`${c.label}: ${p}`);
    }
    expect(problems, problems.join('\n')).to.deep.equal([]);
  });

  it('announcing never throws: a hostile proxy, text with lone surrogates, a key that cannot travel', () => {
    const hostile = new Proxy({}, new Proxy({}, { get: () => () => { throw new Error('trap'); } }));
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    for (const [cause, key] of [[hostile, 1], [new Proxy(new Error('e'), { get() { throw new Error('get'); }, ownKeys() { throw new Error('keys'); } }), cyclic],
      [new Error('fine'), { a: new Float64Array(2) }], [new Error('fine'), '\udc00']] as [unknown, unknown][]) {
      const err = new ttg.TtgError('E_TASK_FAILED', 'task body threw: \ud800', { tt: 'T\udfff', key, rank: 1, cause });
      const got = announced(err);
      expect([got.code, got.tt, got.detail]).to.deep.equal(['E_TASK_FAILED', 'T\ufffd', 'task body threw: \ufffd [announced by rank 1]']);
      expect(wellFormed(got.message), got.message).to.equal(true);
    }
    const withArrays = announced(new ttg.TtgError('E_TASK_FAILED', 'x', { rank: 1, key: { a: new Float64Array(2) } }));
    expect(withArrays.key).to.equal('{"a":{"0":0,"1":0}}'); // a key with arrays goes as text, not as zeros
    expect(announced(new ttg.TtgError('E_TASK_FAILED', 'x', { rank: 1, cause: hostile })).cause).to.be.a('string');
  });

  it('a value the receiver cannot rebuild (its split class unknown there) arrives as the sender\'s text', () => {
    registerClasses(true);
    const t = causeToTravel(new OnlyOnThrower(Uint32Array.of(7, 8))) as ['value', [string, string[], string]];
    expect(t[1][2]).to.equal('OnlyOnThrower { data: Uint32Array(2) [ 7, 8 ] }');
    expect(causeFromTravel(t)).to.be.instanceOf(OnlyOnThrower);
    // the same message from a rank that knows the class under another name: unknown here
    const header = Buffer.from(t[1][0], 'base64');
    header.set(Buffer.from('OnlyOnThrowe_'), header.indexOf('OnlyOnThrower'));
    expect(causeFromTravel(['value', [header.toString('base64'), t[1][1], t[1][2]]])).to.equal(t[1][2]);
    expect(causeFromTravel(['value', [t[1][0], [], '']])).to.equal(UNDESCRIBABLE); // its parts missing
    expect(causeFromTravel(['bogus'] as unknown as TravellingCause)).to.equal(UNDESCRIBABLE);
  });
});
