/**
 * Reducing inputs whose streams end at the fence (`set_input_reducer(i, reducer, 'fence')`): a
 * per-key reduction whose number of values nobody knows. Once the world is quiet but for them,
 * the fence ends the open ones of the TTs that no other TT with open ones feeds (transport waves,
 * or the local loop on one rank, so every rank decides alike from the same sums); their tasks run,
 * and the fence goes on until no stream is open. Upstream first: a reduction fed by another one
 * ends only after that one has run and sent. The TTs of a cycle end together, and what the cycle
 * feeds ends after them.
 */
import type { Runtime } from '../runtime/runtime.js';
import type { TTBase } from '../common/model.js';

/** Per TT of `rt.fenceTTs`: its pending tasks on this rank with an open stream that ends at the fence. */
function openTasks(rt: Runtime, tt: TTBase): Array<[unknown, number]> {
  const out: Array<[unknown, number]> = [];
  if (!rt.live.has(tt.assembly)) return out;
  for (const t of tt.assembly.pendingTasks()) {
    for (const term of tt.inputs) if (term.untilFence && (t.got & (1 << term.index)) === 0) out.push([t.key, term.index]);
  }
  return out;
}

/** How many such streams are open on this rank, per TT of `rt.fenceTTs`. */
export function openFenceStreams(rt: Runtime): number[] {
  return rt.fenceTTs.map((tt) => openTasks(rt, tt).length);
}

/** The TTs whose outputs reach `tt` through edges, transitively (itself excluded unless on a cycle). */
function feeders(tt: TTBase): Set<TTBase> {
  const seen = new Set<TTBase>();
  const todo = [tt];
  while (todo.length !== 0) {
    for (const e of todo.pop()!.inputEdges) {
      for (const m of e.members()) {
        for (const src of m.sources) {
          if (seen.has(src.tt)) continue;
          seen.add(src.tt);
          todo.push(src.tt);
        }
      }
    }
  }
  return seen;
}

/** Ends the open streams of the TTs that no other TT with open streams (summed over the world: `open`) feeds. */
export function closeFenceStreams(rt: Runtime, open: readonly number[]): void {
  const busy = rt.fenceTTs.filter((_, j) => open[j]! > 0);
  const up = new Map(busy.map((tt) => [tt, feeders(tt)]));
  // ready: every busy TT that feeds it is on a cycle with it (TTs downstream of a cycle wait for it)
  const ready = busy.filter((tt) => busy.every((other) => other === tt || !up.get(tt)!.has(other) || up.get(other)!.has(tt)));
  for (const tt of ready) for (const [key, i] of openTasks(rt, tt)) tt.assembly.finalizeStream(i, key);
}
