/**
 * ttg.dot(...tts): the template graph in Graphviz DOT.
 */
import { expect } from 'chai';
import * as ttg from 'ttg';

/** Loose structural checks that a string is a DOT digraph: header, balanced braces, statements. */
function expectDotLike(text: string): void {
  const trimmed = text.trim();
  expect(trimmed).to.match(/^(strict\s+)?digraph\b[^{]*\{/);
  expect(trimmed.endsWith('}')).to.equal(true);
  let depth = 0;
  let inString = false;
  for (let i = 0; i < trimmed.length; i++) {
    const ch = trimmed[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{') depth++;
    else if (ch === '}') {
      depth--;
      expect(depth).to.be.at.least(0);
    }
  }
  expect(inString, 'unterminated string').to.equal(false);
  expect(depth, 'unbalanced braces').to.equal(0);
}

/** The lines of `text` that are DOT edges (`a -> b`). */
function arrows(text: string): string[] {
  return text.split('\n').filter((l) => /->/.test(l));
}

describe('ttg.dot', () => {
  before(async () => {
    await ttg.initialize();
  });

  function graph() {
    const toB = new ttg.Edge<number, number>('dot-toB');
    const b2c0 = new ttg.Edge<number, number>('dot-b2c0');
    const b2c1 = new ttg.Edge<number, number>('dot-b2c1');
    const loop = new ttg.Edge<number, number>('dot-loop');
    const ctl = new ttg.Edge<number, void>('dot-ctl');
    const tb = ttg.make_tt((_k: number, _a: number) => {}, [toB], [b2c0, b2c1], { name: 'dotB' });
    const tc = ttg.make_tt((_k: number, _x: number, _y: number) => {}, [b2c0, b2c1], [ctl], { name: 'dotC "quoted"' });
    const td = ttg.make_tt((_k: number, _c: void, _l: number) => {}, [ctl, ttg.fuse(loop)], [loop], { name: 'dotD' });
    return { tts: [tb, tc, td] as const, edges: ['dot-b2c0', 'dot-b2c1', 'dot-loop', 'dot-ctl'], entry: 'dot-toB' };
  }

  it('names every TT and every connecting edge, with one arrow per connection', () => {
    const g = graph();
    const text = ttg.dot(...g.tts);
    expectDotLike(text);
    expect(text).to.include('dotB');
    expect(text).to.include('dotD');
    // names must be escaped inside DOT strings
    expect(text).to.include('dotC \\"quoted\\"');
    for (const e of g.edges) expect(text, `edge ${e}`).to.include(e);
    // B->C twice (two terminals), C->D (control), D->D (the cycle), and the entry arrow into B
    expect(arrows(text)).to.have.length(5);
    for (const e of g.edges) expect(arrows(text).some((l) => l.includes(e)), `an arrow labelled ${e}`).to.equal(true);
  });

  it('also names the entry edges that are fed only by invoke', () => {
    const g = graph();
    const text = ttg.dot(...g.tts);
    expectDotLike(text);
    expect(text, `entry edge ${g.entry}`).to.include(g.entry);
  });

  it('two separate graphs give two different pictures', () => {
    const a = graph();
    const e = new ttg.Edge<number, number>('dot-other');
    const lone = ttg.make_tt((_k: number, _v: number) => {}, [e], [], { name: 'dot-lone' });
    const textA = ttg.dot(...a.tts);
    const textLone = ttg.dot(lone);
    expectDotLike(textLone);
    expect(textLone).to.include('dot-lone');
    expect(textLone).to.not.include('dotB');
    expect(textA).to.not.include('dot-lone');
  });
});
