/**
 * uPlot, the charts of the live dashboard and of the HTML report: its script and style, read from
 * the package's own dependency (served by rank 0 or inlined; never fetched from elsewhere).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

let files: { js: string; css: string } | undefined;

/** uPlot's minified script (it defines the global `uPlot`) and its style sheet. */
export function uplotFiles(): { js: string; css: string } {
  if (files !== undefined) return files;
  const main = createRequire(import.meta.url).resolve('uplot');
  const dir = main.slice(0, main.lastIndexOf('/') + 1);
  files = { js: readFileSync(`${dir}uPlot.iife.min.js`, 'utf8'), css: readFileSync(`${dir}uPlot.min.css`, 'utf8') };
  return files;
}
