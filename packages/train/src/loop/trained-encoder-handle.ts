/**
 * What an evaluation callback gets during training: the live encoder with its tokenizer, the
 * run's formatter, lengths and pooling, and `embed` for formatted texts (no dropout, batched).
 * The pipeline passes a callback that runs @dv/eval on it; @dv/train never imports @dv/eval.
 */
import type { Formatter, TrainerConfig } from '@dv/core';
import { tf } from '../backend/tf.js';
import { type TransformerEncoder, toForwardInputs } from '../encoders/transformer-encoder.js';
import type { HfTokenizer } from '../tokenizer/hf-tokenizer.js';

export interface TrainedEncoderHandle {
  readonly encoder: TransformerEncoder;
  readonly tokenizer: HfTokenizer;
  readonly formatter: Formatter;
  readonly config: TrainerConfig;
  /** Embeddings of already formatted texts, truncated to the side's max length. */
  embed(texts: readonly string[], side: 'query' | 'document', batchSize?: number): Promise<Float32Array[]>;
}

export function createTrainedEncoderHandle(
  encoder: TransformerEncoder,
  tokenizer: HfTokenizer,
  formatter: Formatter,
  config: TrainerConfig,
): TrainedEncoderHandle {
  return {
    encoder,
    tokenizer,
    formatter,
    config,
    async embed(texts, side, batchSize = 64) {
      const maxLength = side === 'query' ? config.model.maxQueryLength : config.model.maxDocLength;
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        const enc = await tokenizer.encode(texts.slice(i, i + batchSize), { maxLength });
        const rows = tf.tidy(() => {
          const inputs = toForwardInputs(enc);
          return encoder.embed(inputs, config.model.pooling, config.model.normalize);
        });
        const data = rows.dataSync() as Float32Array;
        const h = rows.shape[1]!;
        for (let r = 0; r < rows.shape[0]!; r++) out.push(data.slice(r * h, (r + 1) * h));
        rows.dispose();
      }
      return out;
    },
  };
}
