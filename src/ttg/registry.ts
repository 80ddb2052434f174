/**
 * TT ids are handed out in creation order, so every rank of an SPMD program gives the same TT the
 * same id; messages name TTs by id. Held weakly: a graph nobody references can be collected.
 */
import type { TTImpl } from './tt.js';

const byId = new Map<number, WeakRef<TTImpl>>();
const forget = new FinalizationRegistry<number>((id) => byId.delete(id));
let next = 0;

/** Assigns the next id to `tt`. */
export function registerTT(tt: TTImpl): number {
  const id = next++;
  byId.set(id, new WeakRef(tt));
  forget.register(tt, id);
  return id;
}

/** The TT with `id`, if it is still alive on this rank. */
export function ttById(id: number): TTImpl | undefined {
  return byId.get(id)?.deref();
}

/**
 * Whether a TT with `id` may still appear here: ranks build their graphs at their own pace, so a
 * message can arrive before this rank has made (or made executable) the TT it names.
 */
export function ttIsFuture(id: number): boolean {
  return id >= next;
}

const parked = new Map<number, Array<() => void>>();

/** Runs `fn` once TT `id` has been made executable on this rank. */
export function whenExecutable(id: number, fn: () => void): void {
  let list = parked.get(id);
  if (list === undefined) parked.set(id, (list = []));
  list.push(fn);
}

/** Called by `make_graph_executable`: replays what arrived early for TT `id`. */
export function flushParked(id: number): void {
  const list = parked.get(id);
  if (list === undefined) return;
  parked.delete(id);
  for (const fn of list) fn();
}

/** Messages waiting for a TT that is not executable here yet, per TT id (for hang reports). */
export function parkedMessages(): Array<[id: number, count: number]> {
  return [...parked].map(([id, list]) => [id, list.length]);
}
