/**
 * Streaming shuffle with bounded memory (the shuffle buffer of tf.data / webdataset): hold
 * `size` items; each new item takes the place of a uniformly chosen held one, which is emitted;
 * at the end the rest are emitted in a random order. Memory is O(size) whatever the stream's
 * length; with `size` >= the stream length it is a uniform shuffle. Deterministic for a given
 * RNG state (the caller forks one per epoch).
 */
import type { Rng } from '@dv/core';

export async function* shuffleBuffer<T>(items: AsyncIterable<T>, size: number, rng: Rng): AsyncGenerator<T> {
  if (!Number.isInteger(size) || size < 1) throw new Error(`shuffle buffer size must be >= 1, got ${size}`);
  const buffer: T[] = [];
  for await (const item of items) {
    if (buffer.length < size) {
      buffer.push(item);
      continue;
    }
    const j = rng.int(size);
    const out = buffer[j]!;
    buffer[j] = item;
    yield out;
  }
  for (const item of rng.shuffle(buffer)) yield item;
}
