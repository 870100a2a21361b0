/**
 * Packs a stream of example units into batches of `batchSize` queries, keeping each unit whole:
 * a unit is one example or both views of a dual-view pair (original, complement), and a pair
 * never straddles two batches (the paper: each batch holds both views). A unit that does not
 * fit the slots left is held over (at most one) and opens the next batch, while a later single
 * example fills the current one; when a second unit does not fit either, the current batch is
 * closed short. The last batch may be smaller. With `pairViewsInBatch` off, pairs are split
 * into single examples.
 *
 * Deterministic: the same unit stream gives the same batches. A unit larger than `batchSize`
 * is an error (it could never be placed).
 */
export async function* packBatches<T>(
  units: AsyncIterable<readonly T[]>,
  batchSize: number,
  pairViewsInBatch = true,
): AsyncGenerator<T[]> {
  let current: T[] = [];
  let held: T[] | undefined;
  function* place(unit: readonly T[]): Generator<T[]> {
    if (unit.length > batchSize)
      throw new Error(`a unit of ${unit.length} examples does not fit a batch of ${batchSize}`);
    if (current.length + unit.length > batchSize) {
      if (!held) {
        held = [...unit];
        return;
      }
      yield current;
      current = held;
      held = undefined;
      yield* place(unit);
      return;
    }
    current.push(...unit);
    if (current.length === batchSize) {
      yield current;
      current = held ?? [];
      held = undefined;
      if (current.length === batchSize) {
        yield current;
        current = [];
      }
    }
  }
  for await (const unit of units) {
    if (pairViewsInBatch) yield* place(unit);
    else for (const e of unit) yield* place([e]);
  }
  if (held) {
    if (current.length + held.length > batchSize) {
      yield current;
      current = [];
    }
    current.push(...held);
  }
  if (current.length > 0) yield current;
}
