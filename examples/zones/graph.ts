/**
 * The zones example's task graph: one device task per zone and step, the solver sweep a native
 * kernel (sweep.c), the zones' edges exchanged through edges.
 *
 *   ZONE [z, t] ──edge values──▶ ZONE [each neighbour, t+1]   (its halo input counts its neighbours)
 *        └──────zone──────────▶ ZONE [z, t+1]                  (after the last step: done(z, zone))
 *
 * Where a ZONE task runs is the schedule's: a devicehint per zone (static, proportional) or the
 * runtime's placement by measured times (dynamic).
 */
import * as ttg from 'ttg';

import { edgeOf, fillGhost, neighbours, zone, type Layout } from './zones.js';

type ZoneKey = [zone: number, step: number];
type Edges = Array<[number, Float64Array]>;

/** Builds the graph; `hint(z)` names zone z's place, or undefined to let the runtime choose. */
export function make_zones(l: Layout, steps: number, sweep: ttg.device.KernelFn, owner: (z: number) => number,
  hint: ((z: number) => number) | undefined, done: (z: number, u: Float64Array) => void) {
  const data = new ttg.Edge<ZoneKey, Float64Array>('zone');
  const halo = new ttg.Edge<ZoneKey, Edges>('zone-edges');
  const tt = ttg.make_tt(function* (key: ZoneKey, u: Float64Array, edges: Edges | undefined, out) {
    const [z, t] = key;
    const [, , w, h] = zone(l, z);
    for (const [side, e] of edges ?? []) fillGhost(l, z, u, side, e);
    const U = new ttg.Buffer(u), V = new ttg.Buffer(new Float64Array(u.length));
    const { stream } = (yield ttg.device.input(U, V)) as ttg.device.InputResult;
    sweep(stream, { buffers: [U, V], scalars: [w, h, l.alpha, l.reps] });
    yield ttg.device.kernel(U);
    if (t + 1 === steps) {
      done(z, u);
      return;
    }
    for (const [side, n] of neighbours(l, z)) out.send(1, [n, t + 1], [[side ^ 1, edgeOf(l, z, side, u)]]);
    out.send(0, [z, t + 1], u);
  }, [data, halo], [data, halo], { name: 'ZONE' });
  tt.set_input_reducer(1, (acc, more) => { acc.push(...more); }, (key) => (key[1] === 0 ? 0 : neighbours(l, key[0]).length));
  tt.set_procmap((key) => owner(key[0]));
  if (hint !== undefined) tt.set_devicehint((key) => hint(key[0]));
  ttg.make_graph_executable(tt);
  return { zones: tt };
}
