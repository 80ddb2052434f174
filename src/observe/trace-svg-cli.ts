/**
 * `npm run trace:svg -- trace.json [-o out.svg] [--width 1200] [--title TEXT]`: renders a ttg trace
 * (TTG_TRACE) as a static SVG timeline (src/observe/trace-svg.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

import { renderSvg, type SvgEvent, type SvgOptions } from './trace-svg.js';

function main(argv: string[]): void {
  let input: string | undefined;
  let output: string | undefined;
  const opts: SvgOptions = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-o' || a === '--out') output = argv[++i];
    else if (a === '--width') opts.width = Number(argv[++i]);
    else if (a === '--title') opts.title = argv[++i];
    else input = a;
  }
  if (input === undefined) {
    console.error('usage: npm run trace:svg -- trace.json [-o out.svg] [--width 1200] [--title TEXT]');
    process.exit(2);
  }
  const doc = JSON.parse(readFileSync(input, 'utf8')) as { traceEvents?: SvgEvent[] } | SvgEvent[];
  const events = Array.isArray(doc) ? doc : doc.traceEvents ?? [];
  const file = output ?? input.replace(/\.json$/i, '') + '.svg';
  writeFileSync(file, renderSvg(events, opts));
  console.log(file);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main(process.argv.slice(2));
