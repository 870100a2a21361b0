/**
 * @dv/train: the training engine. tfjs on native TensorFlow (or wasm/cpu), Hugging
 * Face-compatible encoders and tokenizers, checkpoints, losses and optimisers.
 */

export type {
  EncoderArchitecture,
  ForwardInputs,
  HuggingFaceFiles,
  OnnxInputs,
  ParameterSpec,
  PoolerHead,
} from './architectures/encoder-architecture.js';
export { ropeInverseFrequencies } from './architectures/gte-new/rope-inverse-frequencies.js';
export {
  architectureOf,
  architectures,
  type EncoderConfig,
  type EncoderModelType,
  encoderConfigSchema,
  parseEncoderConfig,
} from './architectures/registry.js';
export {
  type BackendChoice,
  type BackendInfo,
  backendChoices,
  currentBackend,
  initBackend,
} from './backend/init-backend.js';
export { type Tensor, tf, type Variable } from './backend/tf.js';
export {
  type CheckpointInput,
  type CorruptCheckpoint,
  checkpointDir,
  checkpointFormat,
  checkpointIndexFormat,
  corruptCheckpointNote,
  type LoadedCheckpoint,
  latestCheckpoint,
  loadCheckpoint,
  loadNewestIntactCheckpoint,
  pruneCheckpoints,
  saveCheckpoint,
  verifyCheckpoint,
} from './checkpoint/checkpoint.js';
export {
  MINI_HEAD_SIZE,
  type MiniBackboneSize,
  miniBackboneSize,
  parameterCount,
} from './encoders/mini-backbone-size.js';
export {
  createMiniEncoder,
  type MiniBackboneName,
  type MiniEncoderOptions,
  miniBackboneConfig,
  miniBackbones,
} from './encoders/mini-backbones.js';
export { l2Normalize, pool, poolCls, poolings, poolMean } from './encoders/pooling.js';
export { TfjsEncoder, type TfjsEncoderOptions } from './encoders/tfjs-encoder.js';
export {
  type EncoderBatch,
  type ForwardOptions,
  type OutputRows,
  TransformerEncoder,
  toForwardInputs,
} from './encoders/transformer-encoder.js';
export {
  type CheckEngineModelOptions,
  checkEngineModel,
  ENGINE_MODEL_FILES,
  type EngineModelCheck,
} from './engines/check-engine-model.js';
export {
  type EngineExportOptions,
  type EngineExportResult,
  exportForEngine,
  ST_SCRIPT,
  type TrainingEngine,
  trainingEngines,
} from './engines/export-for-engine.js';
export {
  EngineLaunchAborted,
  EngineLaunchError,
  type EngineLaunchOptions,
  type EngineLaunchResult,
  launchEngine,
} from './engines/launch-engine.js';
export {
  expectedEngineValue,
  type SentenceTransformersSettings,
  sentenceTransformersSettings,
  TRAINER_FIELD_MAP,
} from './engines/sentence-transformers-settings.js';
export * from './export/index.js';
export { fusedOpsStatus } from './internal/fused-ops.js';
export {
  type BatchExample,
  type BatchOptions,
  buildBatch,
  type Relation,
  type TrainingBatch,
} from './loop/build-batch.js';
export {
  type ContrastiveGradients,
  type ContrastiveInputs,
  type ContrastiveOptions,
  contrastiveGradients,
} from './loop/contrastive-gradients.js';
export { packBatches } from './loop/pack-batches.js';
export { type ReadMixOptions, readMixUnits } from './loop/read-mix.js';
export { renderTrainEvents } from './loop/render-train-events.js';
export { shuffleBuffer } from './loop/shuffle-buffer.js';
export type { TrainEvent, TrainEventListener } from './loop/train-events.js';
export {
  parseTrainerConfig,
  type StaleReuse,
  TRAINER_CODE,
  type TrainRetrieverOptions,
  type TrainRunResult,
  trainRetriever,
  trainRunKey,
} from './loop/train-retriever.js';
export { createTrainedEncoderHandle, type TrainedEncoderHandle } from './loop/trained-encoder-handle.js';
export { TrainingDivergedError } from './loop/training-diverged-error.js';
export { infoNceLoss } from './losses/info-nce.js';
export { ignoredLabel, type MaskedBatch, type MaskTokensOptions, maskTokens } from './mlm/mask-tokens.js';
export { MlmHead, mlmHeadNames } from './mlm/mlm-head.js';
export {
  MLM_CODE,
  mlmDigest,
  mlmKey,
  type PretrainMlmOptions,
  type PretrainMlmResult,
  pretrainMlm,
} from './mlm/pretrain-mlm.js';
export {
  type AdamWHyper,
  type AdamWSlots,
  type AdamWState,
  adamwUpdate,
  applyAdamW,
  clipByGlobalNorm,
  createAdamWState,
  decaysByDefault,
} from './optim/adamw.js';
export { learningRate } from './optim/learning-rate.js';
export * from './safetensors/index.js';
export {
  type EncodedBatch,
  type EncodeOptions,
  HfTokenizer,
  type TextInput,
} from './tokenizer/hf-tokenizer.js';
export {
  type TrainWordPieceOptions,
  trainWordPiece,
  wordPieceSpecialTokens,
  wordPieceTokenizerJson,
} from './tokenizer/train-word-piece.js';
