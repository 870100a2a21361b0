/**
 * ONNX export of an encoder, written from TypeScript: HF config + plain weights in, a `.onnx`
 * file out (opset 17, IR 8, weights as initializers; by default the transformer blocks as ONNX
 * Runtime's `com.microsoft` contrib operators, `fusedOps: false` for standard operators only). A model that would reach protobuf's 2 GiB
 * limit (bge-m3-sized backbones: ~2.27 GB in float32) keeps its graph in the `.onnx` file and
 * moves every initializer of 1 KiB or more into `<name>_data` beside it (ONNX external data:
 * offsets aligned to 4 KiB so runtimes can map them; the spec is onnx/docs/ExternalData.md,
 * the same layout `onnx.save_model(..., save_as_external_data=True)` and optimum write). The
 * threshold is an option so tests can exercise the layout on small models.
 *
 * Inputs (int64, dynamic axes `batch` x `sequence`): `input_ids`, `attention_mask`, and for
 * BERT also `token_type_ids`. Outputs (float32): `last_hidden_state` [batch, sequence,
 * hidden], `sentence_embedding` [batch, hidden] (pooled as asked, L2-normalised if asked), and
 * `pooler_output` [batch, hidden] for BERT/XLM-R when the pooler weights are present. The
 * forward pass of each architecture is its module's `onnx-graph.ts` (../../architectures/).
 */
import { basename, dirname, join } from 'node:path';
import { DataError, type OnnxPrecision, type OnnxTensor, type Pooling, writeBytesAtomic } from '@dv/core';
import { type EncoderConfig, parseEncoderConfig } from '../../architectures/registry.js';
import { concatBytes } from '../../internal/concat-bytes.js';
import { type EncoderWeight, type EncoderWeights, toWeightMap } from '../encoder-weights.js';
import { buildEncoderGraph } from './encoder-graph.js';
import { onnxIrVersion, onnxOpset } from './graph-builder.js';
import type { OnnxFusions } from './onnx-layers.js';
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
  /**
   * ONNX Runtime's fused contrib operators for the transformer blocks (default true; see
   * encoder-graph.ts); `false` writes standard ONNX operators only.
   */
  readonly fusedOps?: boolean | Partial<OnnxFusions>;
  /** `int8`: dynamically quantized Linear weights (see encoder-graph.ts). Default `fp32`. */
  readonly precision?: OnnxPrecision;
  /** The CLS embedding graph: the last layer at position 0 only (see encoder-graph.ts). */
  readonly clsOnly?: boolean;
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
    ...(input.fusedOps === undefined ? {} : { fusedOps: input.fusedOps }),
    ...(input.precision === undefined ? {} : { precision: input.precision }),
    ...(input.clsOnly ? { clsOnly: true } : {}),
  });
  // The contrib operators' only released version is 1.
  const domains = new Set(graph.nodes.flatMap((n) => (n.domain ? [n.domain] : [])));
  const opsetImports = [...domains].map((domain) => ({ domain, version: 1 }));
  return {
    irVersion: onnxIrVersion,
    opsetVersion: onnxOpset,
    ...(opsetImports.length ? { opsetImports } : {}),
    producerName: '@dv/train',
    producerVersion: '0.1.0',
    docString: `${config.model_type} encoder, pooling=${input.pooling}, normalize=${input.normalize}${input.precision === 'int8' ? ', int8 dynamic quantization' : ''}${input.clsOnly ? ', CLS-only last layer' : ''}`,
    metadata: {
      model_type: config.model_type,
      pooling: input.pooling,
      normalize: String(input.normalize),
      ...(input.precision === 'int8' ? { precision: 'int8' } : {}),
      ...(input.clsOnly ? { graph: 'cls' } : {}),
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

/** protobuf refuses messages of 2 GiB or more; leave room for the graph itself. */
const protobufLimit = 2 ** 31;
export const defaultExternalDataThreshold = protobufLimit - 64 * 2 ** 20;
const externalMinBytes = 1024;
const externalAlign = 4096;

export interface OnnxWriteOptions {
  /**
   * Inline model size (bytes) from which initializers go to an external data file. Default:
   * 2 GiB - 64 MiB. `0` always writes external data.
   */
  readonly externalDataThreshold?: number;
}

/**
 * Writes the encoder as ONNX to `path` (and, for a model at or over the threshold, its
 * external data to `<path>_data`), atomically; returns the files written.
 */
export function exportOnnx(path: string, input: OnnxExportInput, options: OnnxWriteOptions = {}): string[] {
  const model = buildOnnxModel(input);
  const chunks = encodeOnnxModel(model);
  const size = chunks.reduce((a, c) => a + c.length, 0);
  if (size < (options.externalDataThreshold ?? defaultExternalDataThreshold)) {
    writeBytesAtomic(path, chunks);
    return [path];
  }
  const dataName = `${basename(path)}_data`;
  const data: Uint8Array[] = [];
  let offset = 0;
  const initializers = model.graph.initializers.map((t): OnnxTensor => {
    if (t.raw.length < externalMinBytes) return t;
    const pad = (externalAlign - (offset % externalAlign)) % externalAlign;
    if (pad) data.push(new Uint8Array(pad));
    offset += pad;
    data.push(t.raw);
    const external = { location: dataName, offset, length: t.raw.length };
    offset += t.raw.length;
    return { ...t, external };
  });
  const graphChunks = encodeOnnxModel({ ...model, graph: { ...model.graph, initializers } });
  const graphSize = graphChunks.reduce((a, c) => a + c.length, 0);
  if (graphSize >= protobufLimit)
    throw new DataError(`the graph alone is ${graphSize} bytes, over protobuf's 2 GiB limit`, path);
  const dataPath = join(dirname(path), dataName);
  writeBytesAtomic(dataPath, data);
  writeBytesAtomic(path, graphChunks);
  return [path, dataPath];
}
