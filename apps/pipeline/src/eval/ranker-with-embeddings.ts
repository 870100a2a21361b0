/**
 * `dv eval run --embeddings DIR`: the same model for queries, merged `dv eval encode` shards for
 * documents. Any mismatch (other model, formatter, a document not encoded) is a user error.
 */
import { DenseRanker, PrecomputedDocumentsEncoder, type Ranker, readEmbeddingShards } from '@dv/eval';
import { UsageError } from '../cli-kit.js';

export async function rankerWithEmbeddings(ranker: Ranker, dir: string): Promise<Ranker> {
  if (!(ranker instanceof DenseRanker))
    throw new UsageError('--embeddings needs a dense --model (the one that encoded them)');
  const store = await readEmbeddingShards(dir);
  return new DenseRanker(new PrecomputedDocumentsEncoder(ranker.encoder, store));
}
