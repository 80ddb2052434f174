/**
 * `World.split` over MPI. The ranks of the parent world agree that all called a split, then exchange color, key and the id each
 * reserved for the new world (an allreduce on the parent's communicator), so that none enters the
 * blocking MPI_Comm_split before all have. Splits of different worlds called at once enter
 * MPI_Comm_split in the order this process called them (the comm thread keeps that order), so
 * ranks that call them in the same order never block each other. World ids are per process: each member reserves the
 * lowest id free on its own rank, and a sender marks a message with its receiver's id, so splits
 * that run at once from different parents can never give two worlds of one rank the same id.
 */
import { Errors } from '../base/errors.js';
import { MAX_WORLD_ID, type MpiEndpoint } from './endpoint.js';
import { agree, CallKind } from '../ttg/common/agreement.js';

/** Where a world's ranks are among the job's: the default world is the job itself. */
export interface WorldPlace {
  /** This rank's id of the world (0: the default world). */
  id: number;
  /** Communicator of the world's collectives (0: the job's). */
  comm: number;
  /** Job rank of each world rank. */
  members: readonly number[];
  /** Each world rank's id of the world: what its messages must carry (empty for the default world). */
  ids: readonly number[];
}

/**
 * Splits the world at `parent` (this rank is `rank` of `size`, its job ranks `toJob`, undefined
 * for the default world): the place of the new world of the ranks with `color`, ordered by `key`
 * then rank, or undefined for a negative color.
 */
export async function splitPlace(ep: MpiEndpoint, parent: WorldPlace, rank: number, size: number, toJob: Int32Array | undefined,
  color: number, key: number): Promise<WorldPlace | undefined> {
  // NaN: this rank's call was invalid; it takes part so that every rank fails together
  const mine = Number.isNaN(color) || color < 0 ? 0 : ep.reserveWorldId();
  const turn = ep.splitTurn();
  const all = new Float64Array(3 * size);
  all.set([color, key, mine], 3 * rank);
  ep.hold(true);
  let got: Float64Array;
  let made: Float64Array;
  try {
    // first the shape every collective call on the communicator starts with (agreement.ts)
    await agree((v) => ep.native.allreduce(v, 0, parent.comm), rank, size, [CallKind.Split, -1, -1, -1, -1]);
    got = await ep.native.allreduce(all, 0, parent.comm);
    const invalid: number[] = [];
    for (let r = 0; r < size; r++) if (Number.isNaN(got[3 * r]!)) invalid.push(r);
    if (invalid.length !== 0) {
      throw Errors.invalidArgument('World.split()', `was called with an invalid color or key on rank${invalid.length > 1 ? 's' : ''} ${invalid.join(', ')}; no rank split`, { rank });
    }
    await turn.prior;
    const split = ep.native.split(parent.comm, color, key);
    turn.entered();
    made = await split;
  } catch (e) {
    if (mine !== 0) ep.unreserve(mine);
    throw e;
  } finally {
    turn.entered();
    ep.hold(false);
  }
  if (color < 0) return undefined;
  const peers: number[] = [];
  for (let r = 0; r < size; r++) if (got[3 * r] === color) peers.push(r);
  peers.sort((a, b) => got[3 * a + 1]! - got[3 * b + 1]! || a - b);
  const [comm, newRank, newSize] = made;
  const ids = peers.map((r) => got[3 * r + 2]!);
  if (ids.some((id) => id > MAX_WORLD_ID)) {
    ep.unreserve(mine);
    throw Errors.transport(`World.split: more than ${MAX_WORLD_ID} worlds in one process`, rank);
  }
  if (newRank !== peers.indexOf(rank) || newSize !== peers.length) {
    ep.unreserve(mine);
    throw Errors.transport(`World.split: MPI placed this rank at ${newRank} of ${newSize}, expected ${peers.indexOf(rank)} of ${peers.length}`, rank);
  }
  return {
    id: mine,
    comm: comm!,
    members: peers.map((r) => (toJob === undefined ? r : toJob[r]!)),
    ids,
  };
}
