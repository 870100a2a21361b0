/**
 * A mini @dv/train backbone exported as a Hugging Face folder with its ONNX graph
 * (`exportHuggingFace` with `withOnnx`), for encoder tests. Deterministic: same name, pooling
 * and seed give the same folder. Not part of the public API.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Pooling } from '@dv/core';
import { tmpDir } from '@dv/core/test-utils';
import { createMiniEncoder, exportHuggingFace, initBackend, trainWordPiece } from '@dv/train';

type MiniBackboneName = Parameters<typeof createMiniEncoder>[0];
type BackendChoice = NonNullable<NonNullable<Parameters<typeof initBackend>[0]>['backend']>;

export const miniCorpus = Array.from(
  { length: 60 },
  (_, i) =>
    `the ${['bass', 'trout', 'guitar', 'viola'][i % 4]} is a ${['fish', 'string instrument'][i % 2]} ${i % 5}`,
);

export interface MiniModelFolder {
  /** The HF folder (config.json, model.safetensors, tokenizer.json, 1_Pooling, onnx/model.onnx). */
  dir: string;
  /** A scratch folder next to it, for variants of the model. */
  root: string;
  /** tokenizer.json as trained. */
  tokenizerJson: string;
}

export async function miniModelFolder(
  name: MiniBackboneName,
  pooling: Pooling,
  options: { backend?: BackendChoice | 'auto'; seed?: number } = {},
): Promise<MiniModelFolder> {
  await initBackend(options.backend ? { backend: options.backend } : {});
  const tokenizer = await trainWordPiece(miniCorpus, { vocabSize: 60 });
  const root = tmpDir(`dv-eval-${name}-`);
  const tokenizerJson = join(root, 'tokenizer.source.json');
  writeFileSync(tokenizerJson, tokenizer.json);
  const encoder = createMiniEncoder(name, {
    vocabSize: tokenizer.vocabSize,
    seed: options.seed ?? 5,
    overrides: { pad_token_id: tokenizer.padId },
  });
  const dir = join(root, 'hf');
  await exportHuggingFace(dir, {
    config: encoder.config,
    weights: encoder.toWeights(),
    tokenizerJson,
    pooling,
    normalize: true,
    withOnnx: true,
  });
  encoder.dispose();
  return { dir, root, tokenizerJson };
}
