/**
 * The code refs of the reproduce stages (what enters each stage key's `code` part; @dv/core
 * cache/code-digest.ts): the library package a stage calls, narrowed where the stage runs only
 * a part of it, plus the stage's own file in this app with its relative-import closure (its
 * workspace dependencies are named by the library refs, so they are left out there).
 */
import type { CodeRef } from '@dv/core';

/** A stage file of this app (`src/reproduce/stages/<file>`) and what it imports inside the app. */
export function stageFileCode(file: string): CodeRef {
  return {
    package: '@dv/pipeline',
    label: `@dv/pipeline:${file}`,
    entries: [`src/reproduce/stages/${file}`],
    dependencies: false,
  };
}

/**
 * What MLM pretraining and its ONNX export run inside @dv/train: the import closure of these
 * entries (architectures, encoders, tokenizers, optimizer, ONNX writer) and the native kernels,
 * not the fine-tuning loop (src/loop), so a change there leaves the pretrained backbone cached.
 */
export const PRETRAIN_CODE: CodeRef = {
  package: '@dv/train',
  label: '@dv/train:mlm',
  entries: [
    'src/mlm/pretrain-mlm.ts',
    'src/export/onnx/export-onnx.ts',
    'src/export/encoder-weights.ts',
    'src/safetensors/read-safetensors.ts',
  ],
  folders: ['native'],
};
