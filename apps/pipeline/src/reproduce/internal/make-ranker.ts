/**
 * The ranker of one evaluated model, as `dv eval run --model tfjs:DIR | onnx:DIR | bm25`
 * (createRanker) would build it, with the reproduce run's explicit max length, batches of
 * similar lengths and the run's content-keyed embedding cache (model digest + texts).
 */
import { join } from 'node:path';
import type { Encoder, FormatterSettings } from '@dv/core';
import { Bm25Ranker, DenseRanker, EmbeddingCache, OnnxEncoder, type Ranker } from '@dv/eval';
import { TfjsEncoder } from '@dv/train';
import { lengthSorted } from './length-sorted-encoder.js';

export interface MakeRankerOptions {
  /** HF model folder, or null for BM25. */
  dir: string | null;
  encoder: 'tfjs' | 'onnx';
  formatter: FormatterSettings;
  maxLength: number;
  batchSize: number;
  runDir: string;
  onEncode?: (kind: string, done: number, total: number) => void;
  /** Told when a cached entry was not used (a bad cache file, encoded again). */
  onNote?: (line: string) => void;
}

export async function makeRanker(o: MakeRankerOptions): Promise<Ranker> {
  if (o.dir === null) return new Bm25Ranker({ formatter: o.formatter });
  const opts = { formatter: o.formatter, maxLength: o.maxLength, batchSize: o.batchSize };
  const encoder: Encoder =
    o.encoder === 'onnx' ? await OnnxEncoder.fromDir(o.dir, opts) : await TfjsEncoder.fromDir(o.dir, opts);
  return new DenseRanker(lengthSorted(encoder), {
    ...(o.onEncode ? { onEncode: o.onEncode } : {}),
    cache: new EmbeddingCache(join(o.runDir, 'cache', 'embeddings'), o.onNote ? { onNote: o.onNote } : {}),
  });
}
