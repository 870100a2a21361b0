/**
 * The one dense-encoder interface every backend implements (ONNX, OpenAI-compatible
 * embeddings, test encoders; the tfjs encoder of @dv/train can implement it too), in the
 * spirit of mteb's `encode` protocol.
 *
 * Texts arrive already formatted by the shared formatter (`formatter` holds the per-model
 * prompts: query/document prefixes, joiner, instruction order), so one place decides what the
 * model sees. Outputs are row-major float32 matrices, `texts.length x dim`.
 * `settings` names everything that changes the vectors (model digest, pooling, normalisation,
 * max length); it goes into the embedding-cache key and the manifest.
 */
import type { FormatterSettings } from '@dv/core';

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
