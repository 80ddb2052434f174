/** The 2D process grid the examples place tiles on. */

/**
 * The most square P x Q process grid with P * Q = ranks, as `[larger, smaller]`: POTRF takes more
 * rows than columns (its TRSM panels, one tile column of many rows, then spread over more ranks),
 * BSpMM more columns than rows (it reverses the pair).
 */
export function squareGrid(ranks: number): [number, number] {
  let small = Math.floor(Math.sqrt(ranks));
  while (ranks % small !== 0) small--;
  return [ranks / small, small];
}
