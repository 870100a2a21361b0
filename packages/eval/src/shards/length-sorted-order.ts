/**
 * Row order for length-sorted batching, the policy sentence-transformers applies in `encode`
 * (it sorts the texts by length, longest first, before cutting batches) so that each batch is
 * padded to a length close to its rows' own: rows [0, n) are cut into windows of `window` rows
 * from the start, and within each window rows are ordered by descending `lengths[i]`, ties by
 * ascending index (a stable, deterministic order). Returns the permutation `order` (position p
 * holds row `order[p]`); batches are then consecutive runs of `order`, and results go back to
 * row `order[p]`, so the caller's output order is unchanged.
 *
 * A window never spans a window boundary, so a caller that cuts a corpus into pieces on the
 * window grid (see `encodeCorpusShard`) gets the same batches in every piece as in one run.
 *
 * @example lengthSortedOrder([3, 9, 1, 9, 5], 5) => [1, 3, 4, 0, 2]
 * @example lengthSortedOrder([3, 9, 1, 9, 5], 2) => [1, 0, 3, 2, 4]
 */
export function lengthSortedOrder(lengths: readonly number[], window: number): number[] {
  if (!Number.isInteger(window) || window < 1)
    throw new Error(`sort window must be a positive integer, got ${window}`);
  const order = lengths.map((_, i) => i);
  for (let s = 0; s < order.length; s += window) {
    const part = order.slice(s, s + window).sort((a, b) => lengths[b]! - lengths[a]! || a - b);
    for (let k = 0; k < part.length; k++) order[s + k] = part[k]!;
  }
  return order;
}
