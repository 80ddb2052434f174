/**
 * A graph from a Matrix Market coordinate file, as bale's `sssp -f FILE` reads one (and writes
 * one with `-D`, as `sssp_inmat`): entry (i, j, w) is an edge from vertex i - 1 to vertex j - 1 of
 * weight w. Real, double, integer and pattern (weight 1) fields; general or symmetric (both
 * directions) matrices; bale's banner without a symmetry word is general.
 */
import { readFileSync } from 'node:fs';

import { fromEdges, type Graph } from './graph.js';

/** Reads `file`; throws naming the file and line on anything it cannot take. */
export function readMatrixMarket(file: string): Graph {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`--mtx ${file}: ${(e as Error).message}`);
  }
  const lines = text.split('\n');
  const fail = (line: number, what: string): never => {
    throw new Error(`--mtx ${file}:${line + 1}: ${what}`);
  };
  const banner = (lines[0] ?? '').trim().toLowerCase().split(/\s+/);
  if (banner[0] !== '%%matrixmarket' || banner[1] !== 'matrix' || banner[2] !== 'coordinate') {
    fail(0, `not a Matrix Market coordinate file (banner '${lines[0]?.slice(0, 60) ?? ''}')`);
  }
  const field = banner[3] ?? 'real';
  const symmetry = banner[4] ?? 'general';
  if (!['real', 'double', 'integer', 'pattern'].includes(field)) fail(0, `field '${field}' is not real, double, integer or pattern`);
  if (symmetry !== 'general' && symmetry !== 'symmetric') fail(0, `symmetry '${symmetry}' is not general or symmetric`);
  const pattern = field === 'pattern';

  let at = 1;
  while (at < lines.length && (lines[at]!.startsWith('%') || lines[at]!.trim() === '')) at++;
  const size = (lines[at] ?? '').trim().split(/\s+/).map(Number);
  if (size.length !== 3 || !size.every((s) => Number.isSafeInteger(s) && s >= 0)) fail(at, 'expected the size line: rows columns entries');
  const [rows, cols, entries] = size as [number, number, number];
  if (rows !== cols) fail(at, `a graph needs a square matrix, this one is ${rows} x ${cols}`);
  if (rows === 0) fail(at, 'the graph has no vertices');
  const both = symmetry === 'symmetric';
  const cap = both ? 2 * entries : entries;
  if (cap >= 2 ** 31) fail(at, `${cap} edges are too many (at most 2^31 - 1)`);
  const tails = new Int32Array(cap), heads = new Int32Array(cap), weights = new Float64Array(cap);
  let m = 0, seen = 0;
  for (at++; at < lines.length; at++) {
    const line = lines[at]!.trim();
    if (line === '' || line.startsWith('%')) continue;
    if (seen === entries) fail(at, `more than the ${entries} entries the size line announced`);
    seen++;
    const f = line.split(/\s+/);
    if (f.length < (pattern ? 2 : 3)) fail(at, `expected 'row column${pattern ? '' : ' weight'}', got '${line.slice(0, 60)}'`);
    const i = Number(f[0]), j = Number(f[1]);
    const w = pattern ? 1 : Number(f[2]);
    if (!Number.isInteger(i) || !Number.isInteger(j) || i < 1 || j < 1 || i > rows || j > rows) fail(at, `vertex out of 1..${rows}: '${line.slice(0, 60)}'`);
    // Dijkstra, which --check compares with, and the buckets both need weights of at least 0
    if (!(w >= 0) || !Number.isFinite(w)) fail(at, `weight must be a finite number at least 0, got '${f[2]}'`);
    tails[m] = i - 1;
    heads[m] = j - 1;
    weights[m++] = w;
    if (both && i !== j) {
      tails[m] = j - 1;
      heads[m] = i - 1;
      weights[m++] = w;
    }
  }
  if (seen !== entries) fail(lines.length - 1, `${seen} entries, the size line announced ${entries}`);
  return fromEdges(rows, tails.subarray(0, m), heads.subarray(0, m), weights.subarray(0, m));
}
