import { expect } from 'chai';

import { wavePauseUs } from '../../src/transport/waves.js';

describe('fence waves: pause between waves', () => {
  it('is none at the start of a fence, a small share of its length later, and bounded', () => {
    expect(wavePauseUs(0)).to.equal(0);
    expect(wavePauseUs(0.01)).to.equal(0);
    const at100ms = wavePauseUs(100);
    expect(at100ms).to.be.above(0).and.at.most(100_000 / 16);
    expect(wavePauseUs(10_000)).to.equal(wavePauseUs(1e9));
    expect(wavePauseUs(1e9)).to.be.at.most(10_000);
  });
});
