/**
 * ONNX export of an encoder, written from TypeScript: HF config + plain weights in, a
 * self-contained `.onnx` file out (opset 17, IR 8, weights as initializers, so models up to
 * protobuf's 2 GiB limit).
 *
 * Inputs (int64, dynamic axes `batch` x `sequence`): `input_ids`, `attention_mask`, and for
 * BERT also `token_type_ids`. Outputs (float32): `last_hidden_state` [batch, sequence,
 * hidden], `sentence_embedding` [batch, hidden] (pooled as asked, L2-normalised if asked), and
 * `pooler_output` [batch, hidden] for BERT/XLM-R when the pooler weights are present. See
 * `encoder-graph.ts` for the exact forward pass of each architecture.
 */
import { DataError, writeBytesAtomic } from '@dv/core';
import { concatBytes } from '../../internal/concat-bytes.js';
import { type EncoderConfig, parseEncoderConfig } from '../encoder-config.js';
import { type EncoderWeight, type EncoderWeights, toWeightMap } from '../encoder-weights.js';
import { buildEncoderGraph, type Pooling } from './encoder-graph.js';
import { onnxIrVersion, onnxOpset } from './graph-builder.js';
import { encodeOnnxModel, type OnnxModel } from './onnx-proto.js';

export interface OnnxExportInput {
  /** The model's Hugging Face config.json (parsed JSON or an already validated config). */
  readonly config: unknown;
  /** HF-named float32 weights (see encoder-weights.ts). */
  readonly weights: EncoderWeights | Readonly<Record<string, EncoderWeight>>;
  readonly pooling: Pooling;
  readonly normalize: boolean;
  /** Output the BERT/XLM-R pooler too. Default: when its weights are present. */
  readonly poolerOutput?: boolean;
  /** Extra `metadata_props` stored in the model (e.g. run id, formatter version). */
  readonly metadata?: Readonly<Record<string, string>>;
}

/** Builds the in-memory ONNX model. */
export function buildOnnxModel(input: OnnxExportInput): OnnxModel {
  const config: EncoderConfig = parseEncoderConfig(input.config);
  const weights = toWeightMap(input.weights);
  const graph = buildEncoderGraph(config, weights, {
    pooling: input.pooling,
    normalize: input.normalize,
    ...(input.poolerOutput === undefined ? {} : { poolerOutput: input.poolerOutput }),
  });
  return {
    irVersion: onnxIrVersion,
    opsetVersion: onnxOpset,
    producerName: '@dv/train',
    producerVersion: '0.1.0',
    docString: `${config.model_type} encoder, pooling=${input.pooling}, normalize=${input.normalize}`,
    metadata: {
      model_type: config.model_type,
      pooling: input.pooling,
      normalize: String(input.normalize),
      hidden_size: String(config.hidden_size),
      ...input.metadata,
    },
    graph,
  };
}

/** The `.onnx` bytes of the encoder, in one buffer (for `InferenceSession.create(bytes)`). */
export function encodeOnnx(input: OnnxExportInput): Uint8Array {
  const chunks = encodeOnnxModel(buildOnnxModel(input));
  return concatBytes(chunks);
}

/** Writes the encoder as ONNX to `path`, atomically. */
export function exportOnnx(path: string, input: OnnxExportInput): void {
  const chunks = encodeOnnxModel(buildOnnxModel(input));
  const size = chunks.reduce((a, c) => a + c.length, 0);
  if (size >= 2 ** 31)
    throw new DataError(`model is ${size} bytes, over protobuf's 2 GiB limit for one .onnx file`, path);
  writeBytesAtomic(path, chunks);
}
