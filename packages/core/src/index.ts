/**
 * @dv/core: the shared data model (zod schemas are the types), the one query/document
 * formatter, validated JSONL and TREC I/O, hashing, seeded RNG, progress and run manifests.
 *
 * The public API is this explicit list (api-report.md): what the other packages, the `dv` CLI
 * and the records' users need, the schemas of every record that crosses a package boundary
 * first. Other exports of the modules are internal. `@dv/core/bench` holds the benchmark
 * helpers (CPU sampling, docs/benchmarks.md sections and goals), `@dv/core/test-utils` the
 * workspace's test helpers (source only, not packed).
 */

export { type CacheKey, CacheKeyParts, cacheKey, keyOfParts, staleReasons } from './cache/cache-key.js';
export { type CodeRef, clearCodeDigestMemo, codeDigest, codeDigests } from './cache/code-digest.js';
export { categoryPhrase } from './category-phrases.js';
export { InFlight } from './concurrency/in-flight.js';
export { Semaphore } from './concurrency/semaphore.js';
export { assertKnownConfigKeys, describeUnknownKeys, unknownConfigKeys } from './config-keys.js';
export { detectCudaDevice } from './cuda-device.js';
export { type Encoder, encodeInBatches } from './encoders/encoder.js';
export { modelMaxLength, readModelFolderSettings } from './encoders/model-folder.js';
export { DataError, describeZodIssues } from './errors.js';
export {
  createFormatter,
  defaultFormatterSettings,
  type Formatter,
  formatDocument,
  formatQuery,
} from './format.js';
export { canonicalJson, contentHash, hashFile, sha256 } from './hash.js';
export {
  removeStaleTemps,
  writeAtomic,
  writeBytesAtomic,
  writeFileAtomic,
  writeJsonAtomic,
} from './io/atomic-write.js';
export { dvCacheDir } from './io/cache-dir.js';
export { readJsonLines, readJsonl, readJsonlAll, readJsonlWithLines, writeJsonl } from './io/jsonl.js';
export { JsonlAppender } from './io/jsonl-appender.js';
export { readLines } from './io/lines.js';
export { assertSafeOutputPath, guardOutputDir } from './io/output-guard.js';
export { acquireOutputLock } from './io/output-lock.js';
export { prepareOutputDir } from './io/prepare-output-dir.js';
export { resolveInside, UnsafePathError, unsafePathReason } from './io/resolve-inside.js';
export { compareBytesDesc, rankTopic, readQrels, readRun, readRunWithTag, writeRun } from './io/trec.js';
export { buildManifest, dvPackageVersions, gitState, writeManifest } from './manifest.js';
export { mergeConfig } from './merge-config.js';
export {
  encodeOnnxModel,
  type OnnxAttributeValue,
  type OnnxDataType,
  type OnnxGraph,
  type OnnxModel,
  type OnnxNode,
  type OnnxTensor,
  type OnnxValueInfo,
  onnxDataType,
} from './onnx/onnx-proto.js';
export {
  miniMlmPreset,
  type PresetName,
  presets,
  runOverlayInput,
  runOverlays,
  trainerPresets,
} from './presets.js';
export {
  createProgress,
  defaultProgressMode,
  formatDuration,
  type Progress,
  type ProgressMode,
} from './progress.js';
export { redactSecrets, redactText, secretValuesFromEnv } from './redact.js';
export { createRng, DEFAULT_SEED, type Rng } from './rng.js';
export { recordSchemas } from './schema-registry.js';
export { DatasetSource } from './schemas/benchmark.js';
export { DocAttributes } from './schemas/doc-attributes.js';
export { EmbeddingShardInfo, EmbeddingShardRow } from './schemas/embedding-shard.js';
export { EvaluationResult } from './schemas/evaluation-result.js';
export { FormatterSettings } from './schemas/formatter-settings.js';
export { EvalMode, InstructedQuery, type InstructedSet } from './schemas/instructed-set.js';
export {
  MINI_LEVERS,
  MiniWorldOptions,
} from './schemas/mini-world-options.js';
export { MtebModelMeta, MtebScoreEntry, MtebTaskResult } from './schemas/mteb-results.js';
export { OnnxPrecision, onnxClsModelFile, onnxModelFile } from './schemas/onnx-precision.js';
export { PaperBenchmark, PaperSection } from './schemas/paper-section.js';
export { Passage } from './schemas/passage.js';
export { Pooling } from './schemas/pooling.js';
export type { Qrels, Run } from './schemas/qrels.js';
export { InstructionStyle } from './schemas/query.js';
export { MixesConfig, RunConfig } from './schemas/run-config.js';
export { RunManifest } from './schemas/run-manifest.js';
export { InstructionNegative, SeedExample } from './schemas/seed-example.js';
export {
  ChatMessage,
  SynthesisRecord,
  SynthesisRequest,
  TokenUsage,
  Verification,
} from './schemas/synthesis.js';
export {
  SynthesisBackendName,
  SynthesisConfig,
  SynthesisJudgeName,
  synthesisJudgeOf,
} from './schemas/synthesis-config.js';
export { ShardSpec, SynthesisRunConfig } from './schemas/synthesis-run-config.js';
export { MINI_BACKBONES, MlmConfig, TrainerConfig } from './schemas/trainer-config.js';
export { DualViewExample, TrainingExample } from './schemas/training-example.js';
export {
  DataMix,
  LossConfig,
  ModelArchitecture,
  OptimizerConfig,
  ScheduleConfig,
} from './schemas/training-slices.js';
export { Bm25Index, bm25Defaults } from './search/bm25-index.js';
export { BoundedHeap } from './search/bounded-heap.js';
export { flagEmbeddingRow, tevatronRow } from './trainer-rows.js';
