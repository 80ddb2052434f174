/**
 * Whole-graph operations: validation before execution and the DOT picture of the template graph.
 */
import { Errors } from '../base/errors.js';
import type { TTBase } from './common/model.js';
import { TT, type TTImpl } from './tt.js';

/** Every TT connected to the given ones, in discovery order. */
function reachable(roots: readonly TTImpl[]): TTImpl[] {
  const seen = new Set<TTBase>();
  const stack: TTBase[] = [...roots];
  while (stack.length !== 0) {
    const tt = stack.pop()!;
    if (seen.has(tt)) continue;
    seen.add(tt);
    for (const e of tt.outputs) for (const s of e.sinks) stack.push(s.tt);
    for (const e of tt.inputEdges) for (const m of e.members()) for (const src of m.sources) stack.push(src.tt);
  }
  // edges know TTs as the runtime sees them, and every TT is made by make_tt
  return [...seen] as TTImpl[];
}

/**
 * Checks the graph reachable from `tts` (every output terminal connected, no edge listed twice on
 * one TT) and makes it executable. Throws a `TtgError` naming the TT and terminal at fault.
 */
export function make_graph_executable(...tts: TTImpl[]): void {
  if (tts.length === 0) throw Errors.invalidArgument('make_graph_executable()', 'needs at least one TT');
  tts.forEach((tt, i) => {
    if (!((tt as unknown) instanceof TT)) throw Errors.invalidArgument('make_graph_executable(...tts)', `takes TTs made by make_tt; argument ${i} is not one`);
  });
  const rt = tts[0]!.rt;
  if (!rt.running) rt.check('make_graph_executable()');
  const all = reachable(tts);
  for (const tt of all) {
    if (tt.rt !== rt) {
      throw Errors.invalidArgument('make_graph_executable()', `connects TTs of two worlds ('${tts[0]!.name}' and '${tt.name}'): an edge joins TTs of one world only`, { tt: tt.name, rank: rt.rank });
    }
  }
  for (const tt of all) {
    const ins = new Set<unknown>();
    for (const e of tt.inputEdges) {
      for (const m of e.members()) {
        if (ins.has(m)) throw Errors.duplicateEdge(tt.name, m.name, 'input', rt.rank);
        ins.add(m);
      }
    }
    const outs = new Set<unknown>();
    tt.outputs.forEach((e, i) => {
      if (outs.has(e)) throw Errors.duplicateEdge(tt.name, e.name, 'output', rt.rank);
      outs.add(e);
      if (e.sinks.length === 0) throw Errors.unconnected(tt.name, i, e.name, rt.rank);
    });
  }
  for (const tt of all) tt.markExecutable();
}

/** The template graph reachable from `tts` in Graphviz DOT: TTs as boxes, edges labelled by name. */
export function dot(...tts: TTImpl[]): string {
  const all = reachable(tts);
  const q = (s: string) => JSON.stringify(s);
  const lines = ['digraph ttg {', '  rankdir=LR;', '  node [shape=box];'];
  for (const tt of all) lines.push(`  n${tt.id} [label=${q(`${tt.name}\n${tt.inputs.length} in, ${tt.outputs.length} out`)}];`);
  for (const tt of all) {
    tt.outputs.forEach((e, i) => {
      for (const s of e.sinks) lines.push(`  n${tt.id} -> n${s.tt.id} [label=${q(`${e.name} (${i}->${s.index})`)}];`);
    });
    // inputs fed by no TT (only by invoke) still show, from a point of their own
    tt.inputEdges.forEach((e, i) => {
      for (const m of e.members()) {
        if (m.sources.length !== 0) continue;
        const id = `in${tt.id}_${i}_${lines.length}`;
        lines.push(`  ${id} [shape=point];`, `  ${id} -> n${tt.id} [label=${q(`${m.name} (->${i})`)}];`);
      }
    });
  }
  lines.push('}');
  return lines.join('\n');
}
