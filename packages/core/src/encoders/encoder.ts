/**
 * The one dense-encoder interface every backend implements: ONNX, OpenAI-compatible embeddings
 * and BM25's dense cousins in @dv/eval, the tfjs encoder in @dv/train, test encoders. It lives
 * in @dv/core so @dv/eval can rank with any encoder without depending on the packages that
 * provide them (and their native runtimes). Modelled on mteb's `encode` protocol.
 *
 * Texts arrive already formatted by the shared formatter (`formatter` holds the per-model
 * prompts: query/document prefixes, joiner, instruction order), so one place decides what the
 * model sees. Outputs are row-major float32 matrices, `texts.length x dim`.
 * `settings` names everything that changes the vectors (model digest, pooling, normalisation,
 * max length); it goes into the embedding-cache key and the manifest.
 */
import type { FormatterSettings } from '../schemas/formatter-settings.js';

export interface Encoder {
  readonly name: string;
  readonly dim: number;
  readonly formatter: FormatterSettings;
  readonly settings: Readonly<Record<string, unknown>>;
  encodeQueries(texts: readonly string[]): Promise<Float32Array>;
  encodeDocuments(texts: readonly string[]): Promise<Float32Array>;
  /** Releases native sessions or sockets, if any. */
  close?(): Promise<void>;
}

/** Encodes `texts` in batches of `batchSize` with `run` (rows of `dim` floats) into one matrix. */
export async function encodeInBatches(
  texts: readonly string[],
  dim: number,
  batchSize: number,
  run: (batch: readonly string[]) => Promise<Float32Array>,
): Promise<Float32Array> {
  const out = new Float32Array(texts.length * dim);
  for (let s = 0; s < texts.length; s += batchSize)
    out.set(await run(texts.slice(s, s + batchSize)), s * dim);
  return out;
}
