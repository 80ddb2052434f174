/**
 * A tiny graph that combines one vector per rank on rank 0 (elementwise sum or max) — how the
 * example collects the check's row norms and the per-rank memory peaks for its JSON line.
 *
 *   PART (one invoke per rank) ─▶ REDUCE on rank 0 (reducing input, count = ranks)
 */
import * as ttg from 'ttg';

/** Combines `values` of every rank on rank 0; resolves there with the result, elsewhere undefined. Collective. */
export async function reduceToRoot(values: Float64Array, op: 'sum' | 'max'): Promise<Float64Array | undefined> {
  const part = new ttg.Edge<undefined, Float64Array>('part');
  let result: Float64Array | undefined;
  const tt = ttg.make_tt((_k: undefined, v: Float64Array) => { result = v; }, [part], [], { name: `REDUCE_${op}` });
  tt.set_input_reducer(0, op === 'sum'
    ? (acc, v) => { for (let e = 0; e < acc.length; e++) acc[e]! += v[e]!; }
    : (acc, v) => { for (let e = 0; e < acc.length; e++) acc[e] = Math.max(acc[e]!, v[e]!); }, tt.get_world().size);
  tt.set_procmap(() => 0);
  ttg.make_graph_executable(tt);
  tt.invoke(undefined, values);
  ttg.execute();
  await ttg.fence();
  return result;
}
