/**
 * The code that makes an encoder's vectors, as a code ref for cache keys (issue 25; @dv/core
 * cache/code-digest.ts): what a shard checkpoint, a finished shard and the embedding cache are
 * keyed by beside the encoder's settings (model digests, pooling, model name).
 *
 *   backend 'onnxruntime-node'   src/encoders/onnx-encoder.ts and its imports (ONNX Runtime
 *                                session options, pooling, normalisation, length sorting)
 *   backend 'openai-embeddings'  src/encoders/openai-embeddings.ts and its imports (how
 *                                requests are built, batched and normalised)
 *   any other backend            src/encoders/ whole (an encoder from another package, such as
 *                                @dv/train's tfjs one, is pinned by its settings' digests only)
 *
 * Each with @dv/core whole (the formatter decides the texts). `encoderCodeDigest` takes it.
 */
import { type CodeRef, codeDigests, type Encoder } from '@dv/core';

const ENTRY_OF: Readonly<Record<string, string>> = {
  'onnxruntime-node': 'src/encoders/onnx-encoder.ts',
  'openai-embeddings': 'src/encoders/openai-embeddings.ts',
};

/** The code ref of `encoder`'s vectors, plus `extraEntries` (the caller's own code, e.g. shards). */
export function encoderCode(
  encoder: Pick<Encoder, 'settings'>,
  extraEntries: readonly string[] = [],
): CodeRef {
  const backend = String(encoder.settings.backend ?? '');
  const entry = ENTRY_OF[backend];
  return {
    package: '@dv/eval',
    label: `@dv/eval:encoder(${backend || 'unknown'})`,
    ...(entry
      ? { entries: [entry, ...extraEntries] }
      : { folders: ['src/encoders'], entries: [...extraEntries] }),
  };
}

/** Label -> code digest of `encoderCode(encoder, extraEntries)` (a cache key's code part). */
export function encoderCodeDigest(
  encoder: Pick<Encoder, 'settings'>,
  extraEntries: readonly string[] = [],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [label, d] of Object.entries(codeDigests([encoderCode(encoder, extraEntries)], import.meta.url)))
    out[label] = d.digest;
  return out;
}
