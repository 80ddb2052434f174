/**
 * Broadcast routing: one value to many (TT, terminal, key) targets. Keys owned here are delivered
 * at once; for every other rank the keys are grouped so the value travels once per rank, whatever
 * the number of keys and terminals it feeds there.
 */
import type { TaskRuntime, TTBase } from '../common/model.js';
import type { Target } from '../common/wire.js';

/** Keys of input `terminal` of `tt` that should receive the value. */
export interface RouteTarget {
  tt: TTBase;
  terminal: number;
  keys: readonly unknown[];
}

/** Delivers `value` to every target, shipping it once per remote rank. */
export function routeBroadcast(rt: TaskRuntime, targets: readonly RouteTarget[], value: unknown): void {
  let remote: Map<number, Target[]> | undefined;
  for (const { tt, terminal, keys } of targets) {
    // TTG_CHECK_SERIALIZE: a local broadcast target gets the check a send gets
    if (rt.checkTravel) rt.transport!.rehearse([tt.id, terminal, [...keys]], value);
    if (!tt.isRouted) {
      for (let k = 0; k < keys.length; k++) tt.assembly.receive(terminal, keys[k], value);
      continue;
    }
    let lastDest = -1;
    let lastTarget: Target | undefined;
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k];
      const owner = tt.ownerOf(key);
      if (owner === rt.rank) {
        tt.assembly.receive(terminal, key, value);
        continue;
      }
      if (owner !== lastDest) {
        remote ??= new Map();
        let list = remote.get(owner);
        if (list === undefined) remote.set(owner, (list = []));
        lastTarget = list.find((t) => t[0] === tt.id && t[1] === terminal);
        if (lastTarget === undefined) list.push((lastTarget = [tt.id, terminal, []]));
        lastDest = owner;
      }
      lastTarget![2].push(key);
    }
  }
  if (remote !== undefined) for (const [dest, list] of remote) rt.transport!.sendInput(dest, list, value, false);
}
