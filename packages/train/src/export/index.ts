/**
 * Model export: ONNX (written from TypeScript) and Hugging Face / sentence-transformers layout.
 *
 * Contract for trainers (e.g. the tfjs encoders): hand over
 * - `config`: the model's Hugging Face config.json object (`model_type` `bert`, `xlm-roberta`
 *   or `new`; each architecture's module in ../architectures/ says the fields read and the
 *   features refused), and
 * - `weights`: a Map (or plain object) from Hugging Face parameter name, without the base-model
 *   prefix (`embeddings.word_embeddings.weight`, `encoder.layer.3.attention.self.query.weight`,
 *   `encoder.layer.0.attention.qkv_proj.weight`, `pooler.dense.bias`, ...) to
 *   `{ shape, data: Float32Array }` in row-major order with torch's layouts (Linear weight
 *   [out, in], Embedding [num, dim], LayerNorm `.weight`/`.bias`). For a tfjs Dense kernel
 *   [in, out], transpose it first. Extra tensors (heads) are ignored by ONNX and kept in HF.
 * then call `exportOnnx(path, { config, weights, pooling, normalize })` and/or
 * `exportHuggingFace(dir, { config, weights, tokenizerJson, pooling, normalize, ... })`.
 * `encoderWeightShapes(config)` lists the names and shapes required; `encoderWeightsFromSafetensors`
 * gives the same map from an HF `model.safetensors`.
 */
export { encoderWeightShapes, type WeightSpec } from './encoder-weight-shapes.js';
export {
  type EncoderWeight,
  type EncoderWeights,
  encoderWeightsFromSafetensors,
  requireWeight,
  toWeightMap,
} from './encoder-weights.js';
export { exportHuggingFace, type HuggingFaceExportInput } from './huggingface/export-hugging-face.js';
export type { EncoderGraphOptions } from './onnx/encoder-graph.js';
export {
  exportFolderOnnx,
  type FolderOnnxOptions,
  type FolderOnnxResult,
} from './onnx/export-folder-onnx.js';
export { buildOnnxModel, encodeOnnx, exportOnnx, type OnnxExportInput } from './onnx/export-onnx.js';
export { onnxIrVersion, onnxOpset } from './onnx/graph-builder.js';
export type { OnnxFusions } from './onnx/onnx-layers.js';
export { type Int8Columns, quantizeInt8PerColumn } from './onnx/quantize-int8.js';
