/**
 * What a failing task threw, as it travels with the failure's announcement (src/transport/error-cause.ts),
 * encoded and decoded as the wire does.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';

import { causeFromTravel, causeToTravel, type TravellingCause } from '../../src/transport/error-cause.js';
import { decode, encode } from '../../src/serialize/codec.js';

const travel = (e: unknown): unknown => causeFromTravel(decode<TravellingCause | null>(encode(causeToTravel(e)).bytes).msg);

describe('a failure\'s cause across ranks', () => {
  it('a built-in error class stays its class, with message, stack and own properties that can travel', () => {
    const e = Object.assign(new TypeError('bad type'), { code: 'E_X', where: { line: 3 }, fn: () => 1 });
    const r = travel(e) as TypeError & Record<string, unknown>;
    expect(r).to.be.instanceOf(TypeError);
    expect([r.name, r.message, r.stack, r['code'], r['where']]).to.deep.equal(['TypeError', 'bad type', e.stack, 'E_X', { line: 3 }]);
    expect(r).to.not.have.property('fn');
  });

  it('an unknown class is an Error with its name; causes nest, four levels deep at most', () => {
    class Mine extends Error {
      constructor(m: string, cause?: unknown) {
        super(m, { cause });
        this.name = 'Mine';
      }
    }
    let e: Error = new RangeError('level 5');
    for (let i = 4; i >= 1; i--) e = new Mine(`level ${i}`, e);
    const levels: string[] = [];
    for (let r = travel(e) as Error | undefined; r !== undefined; r = r.cause as Error | undefined) {
      expect(r.constructor).to.equal(Error);
      levels.push(`${r.name}: ${r.message}`);
    }
    expect(levels).to.deep.equal(['Mine: level 1', 'Mine: level 2', 'Mine: level 3', 'Mine: level 4']);
  });

  it('a TtgError keeps its code and detail; a thrown value that is no error travels as itself, or as text', () => {
    const t = new ttg.TtgError('E_ARITY', 'too few', { tt: 'T' });
    const r = travel(t) as ttg.TtgError;
    expect(r).to.be.instanceOf(ttg.TtgError);
    expect([r.code, r.detail, r.message]).to.deep.equal(['E_ARITY', 'too few', t.message]);
    expect(travel('oops')).to.equal('oops');
    expect(travel({ n: 1 })).to.deep.equal({ n: 1 });
    expect(travel({ f: () => 0 })).to.equal('[object Object]');
    expect(travel(undefined)).to.equal(undefined);
  });
});
