/**
 * @dv/train: the training engine. tfjs on native TensorFlow (or wasm/cpu), Hugging
 * Face-compatible encoders and tokenizers, checkpoints, losses and optimisers.
 *
 * The public API is this list (api-report.md): the entry points the `dv` CLI, @dv/eval and the
 * README's examples use. Everything else (losses, optimisers, batch building, safetensors and
 * ONNX internals) is module-internal; `@dv/train/testing` holds what other packages' tests need.
 */

export { parseEncoderConfig } from './architectures/registry.js';
export { initBackend } from './backend/init-backend.js';
export { type Tensor, tf } from './backend/tf.js';
export { saveCheckpoint } from './checkpoint/checkpoint.js';
export { miniBackboneSize, parameterCount } from './encoders/mini-backbone-size.js';
export { createMiniEncoder, miniBackbones } from './encoders/mini-backbones.js';
export { l2Normalize } from './encoders/pooling.js';
export { TfjsEncoder } from './encoders/tfjs-encoder.js';
export { TransformerEncoder, toForwardInputs } from './encoders/transformer-encoder.js';
export { checkEngineModel } from './engines/check-engine-model.js';
export { exportForEngine, ST_SCRIPT } from './engines/export-for-engine.js';
export { EngineLaunchAborted, launchEngine } from './engines/launch-engine.js';
export { encoderWeightShapes } from './export/encoder-weight-shapes.js';
export { type EncoderWeight, encoderWeightsFromSafetensors } from './export/encoder-weights.js';
export { exportHuggingFace } from './export/huggingface/export-hugging-face.js';
export { exportFolderOnnx } from './export/onnx/export-folder-onnx.js';
export { exportOnnx } from './export/onnx/export-onnx.js';
export { fusedOpsStatus } from './internal/fused-ops.js';
export { renderTrainEvents } from './loop/render-train-events.js';
export type { TrainEvent } from './loop/train-events.js';
export { trainRetriever } from './loop/train-retriever.js';
export { TrainingDivergedError } from './loop/training-diverged-error.js';
export { mlmDigest, type PretrainMlmOptions, pretrainMlm } from './mlm/pretrain-mlm.js';
export { readSafetensors } from './safetensors/read-safetensors.js';
export { HfTokenizer } from './tokenizer/hf-tokenizer.js';
export { trainWordPiece } from './tokenizer/train-word-piece.js';
