/**
 * One shard of corpus embeddings written by `dv eval encode --shard i/n` (@dv/eval
 * `encodeCorpusShard`): the `config` of its manifest. Rows `[start, end)` of the formatted
 * corpus, cut on a grid of whole encoder batches so that every batch the encoder sees is the
 * one an unsharded run would see (byte-identical vectors). The shard's files, beside it:
 *   embeddings-IIIII-of-NNNNN.npy   float32 little-endian, C order, shape (rows, dim)
 *   ids-IIIII-of-NNNNN.jsonl        one {"docid", "textSha256"} per row, in row order
 * `encoder` pins what changes the vectors (name, dim, settings, formatter); shards merge only
 * when it and the corpus digest agree.
 */
import { z } from 'zod';
import { FormatterSettings } from './formatter-settings.js';

export const EmbeddingShardInfo = z.object({
  kind: z.literal('embedding-shard'),
  shard: z.object({ index: z.number().int().nonnegative(), count: z.number().int().positive() }),
  start: z.number().int().nonnegative(),
  end: z.number().int().nonnegative(),
  /** Rows of the whole corpus. */
  total: z.number().int().nonnegative(),
  dim: z.number().int().positive(),
  /** Texts per encoder call; shard boundaries are multiples of it. */
  batchSize: z.number().int().positive(),
  /**
   * Length-sorted batching: the corpus is cut into windows of this many batches, rows within a
   * window are encoded longest text first (@dv/eval `lengthSortedOrder`), and shard boundaries
   * fall on the window grid. 1 = corpus order (shards written before the field existed).
   */
  sortWindowBatches: z.number().int().positive().default(1),
  encoder: z.object({
    name: z.string(),
    dim: z.number().int().positive(),
    settings: z.record(z.string(), z.unknown()),
    formatter: FormatterSettings,
  }),
  corpus: z.object({ path: z.string(), sha256: z.string(), rows: z.number().int().nonnegative() }),
  files: z.object({ embeddings: z.string(), ids: z.string() }),
});
export type EmbeddingShardInfo = z.infer<typeof EmbeddingShardInfo>;

/** One row of a shard's ids file. */
export const EmbeddingShardRow = z.object({ docid: z.string().min(1), textSha256: z.string() });
export type EmbeddingShardRow = z.infer<typeof EmbeddingShardRow>;
