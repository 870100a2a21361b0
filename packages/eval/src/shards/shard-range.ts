/**
 * Which rows of a corpus shard `i/n` holds: the corpus is cut into encoder batches of
 * `batchSize` rows from the start, and the batches are dealt out contiguously, shard i taking
 * batches [floor(i*B/n), floor((i+1)*B/n)) of the B = ceil(total/batchSize) batches. Every
 * encoder call of a sharded run therefore sees exactly the texts (and so the padding) that the
 * same call of an unsharded run sees, which is what makes merged shards byte-identical to one
 * unsharded run. Shards are 0-based, as `dv synth --shard i/n`.
 *
 * @example shardRange(10, 4, { index: 1, count: 2 }) => { start: 4, end: 10 } (batches 1..2 of 3)
 */
export interface ShardSpec {
  index: number;
  count: number;
}

export function shardRange(
  total: number,
  batchSize: number,
  shard: ShardSpec,
): { start: number; end: number } {
  const { index, count } = shard;
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(index) || index < 0 || index >= count)
    throw new Error(`shard must be i/n with 0 <= i < n, got ${index}/${count}`);
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new Error(`batch size must be a positive integer, got ${batchSize}`);
  const batches = Math.ceil(total / batchSize);
  const b0 = Math.floor((index * batches) / count);
  const b1 = Math.floor(((index + 1) * batches) / count);
  return { start: Math.min(total, b0 * batchSize), end: Math.min(total, b1 * batchSize) };
}

/** `i/n` as written on the command line (0-based), e.g. `2/8`. */
export function parseShardSpec(text: string): ShardSpec {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!m || Number(m[2]) < 1 || Number(m[1]) >= Number(m[2]))
    throw new Error(`shard must be i/n with 0 <= i < n (e.g. 0/4), got '${text}'`);
  return { index: Number(m[1]), count: Number(m[2]) };
}

/** The file-name stem of a shard: `IIIII-of-NNNNN`. */
export function shardStem(shard: ShardSpec): string {
  return `${String(shard.index).padStart(5, '0')}-of-${String(shard.count).padStart(5, '0')}`;
}
