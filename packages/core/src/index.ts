/**
 * @dv/core: the shared data model (zod schemas are the types), the one query/document
 * formatter, validated JSONL and TREC I/O, hashing, seeded RNG, progress and run manifests.
 */

export { writeBenchSection } from './bench-doc.js';
export { type BenchGoalRow, goalVerdict, QUIET_CORES, updateBenchGoals } from './bench-goals.js';
export {
  type CacheKey,
  type CacheKeyInput,
  CacheKeyParts,
  cacheKey,
  keyOfParts,
  staleReasons,
} from './cache/cache-key.js';
export {
  type CodeDigest,
  type CodeRef,
  clearCodeDigestMemo,
  codeDigest,
  codeDigests,
  codeRefLabel,
} from './cache/code-digest.js';
export { CATEGORY_PHRASES, categoryPhrase, type NounCategory } from './category-phrases.js';
export { InFlight } from './concurrency/in-flight.js';
export { Semaphore } from './concurrency/semaphore.js';
export {
  assertKnownConfigKeys,
  closestKey,
  describeUnknownKeys,
  levenshtein,
  type UnknownConfigKey,
  unknownConfigKeys,
} from './config-keys.js';
export {
  type CpuInfo,
  type CpuSample,
  cpuInfo,
  otherProcessesCores,
  parseCpuInfo,
  sampleCpu,
} from './cpu-info.js';
export {
  type CudaDeviceProbe,
  type CudaProbeInputs,
  decideCudaDevice,
  detectCudaDevice,
} from './cuda-device.js';
export { type Encoder, encodeInBatches } from './encoders/encoder.js';
export {
  type ModelFolderSettings,
  modelMaxLength,
  readJsonIfPresent,
  readModelFolderSettings,
} from './encoders/model-folder.js';
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
  tempPathFor,
  writeAtomic,
  writeBytesAtomic,
  writeFileAtomic,
  writeJsonAtomic,
} from './io/atomic-write.js';
export { dvCacheDir } from './io/cache-dir.js';
export {
  type JsonLine,
  type JsonlRecord,
  type ReadJsonLinesOptions,
  type ReadJsonlOptions,
  readJsonLines,
  readJsonl,
  readJsonlAll,
  readJsonlWithLines,
  toJsonLine,
  writeJsonl,
} from './io/jsonl.js';
export { JsonlAppender, type JsonlAppenderOptions } from './io/jsonl-appender.js';
export { isGzipFile, type Line, readLines } from './io/lines.js';
export {
  assertNoSymlinkInside,
  assertSafeOutputPath,
  type GuardOutputDirOptions,
  guardOutputDir,
  mountOf,
  outputRootOf,
  registerOutputRoot,
  withWriteErrors,
  writeErrorToDataError,
} from './io/output-guard.js';
export {
  type AcquireOutputLockOptions,
  acquireOutputLock,
  LOCK_FILE,
  type OutputLock,
  OutputLockedError,
  type OutputLockInfo,
  processAlive,
  withOutputLock,
} from './io/output-lock.js';
export {
  OutputDirError,
  type PreparedOutputDir,
  type PrepareOutputDirOptions,
  prepareOutputDir,
  RUN_CLAIM_FILE,
} from './io/prepare-output-dir.js';
export {
  type ResolveInsideOptions,
  resolveInside,
  UnsafePathError,
  unsafePathReason,
} from './io/resolve-inside.js';
export {
  compareBytesDesc,
  rankTopic,
  readQrels,
  readRun,
  readRunWithTag,
  type TrecRunFile,
  writeQrels,
  writeRun,
} from './io/trec.js';
export { buildManifest, dvPackageVersions, gitState, type ManifestInput, writeManifest } from './manifest.js';
export { mergeConfig } from './merge-config.js';
export {
  encodeOnnxModel,
  type OnnxAttributeValue,
  type OnnxDataType,
  type OnnxDim,
  type OnnxGraph,
  type OnnxModel,
  type OnnxNode,
  type OnnxOpsetImport,
  type OnnxTensor,
  type OnnxValueInfo,
  onnxDataType,
} from './onnx/onnx-proto.js';
export {
  miniMlmPreset,
  miniPreset,
  miniTrainerPreset,
  type Preset,
  type PresetName,
  paperPreset,
  paperTrainerPreset,
  presets,
  type RunOverlay,
  type RunOverlayName,
  resolveRunOverlay,
  runOverlayInput,
  runOverlaySources,
  runOverlays,
  type TrainerPreset,
  trainerPresets,
} from './presets.js';
export {
  createProgress,
  defaultProgressMode,
  formatDuration,
  type Progress,
  type ProgressMode,
  type ProgressOptions,
} from './progress.js';
export { isSecretKey, REDACTED, redactSecrets, redactText, secretValuesFromEnv } from './redact.js';
export { createRng, DEFAULT_SEED, type Rng } from './rng.js';
export { type RecordSchemaEntry, type RecordSchemaName, recordSchemas } from './schema-registry.js';
export * from './schemas/benchmark.js';
export * from './schemas/doc-attributes.js';
export * from './schemas/embedding-shard.js';
export * from './schemas/evaluation-result.js';
export * from './schemas/formatter-settings.js';
export * from './schemas/instructed-set.js';
export * from './schemas/mini-world-options.js';
export * from './schemas/mteb-results.js';
export * from './schemas/onnx-precision.js';
export * from './schemas/paper-section.js';
export * from './schemas/passage.js';
export * from './schemas/pooling.js';
export * from './schemas/qrels.js';
export * from './schemas/query.js';
export * from './schemas/run-config.js';
export { type ConfigLeaf, configLeaves } from './schemas/run-config-leaves.js';
export * from './schemas/run-manifest.js';
export * from './schemas/seed-example.js';
export * from './schemas/synthesis.js';
export * from './schemas/synthesis-config.js';
export * from './schemas/synthesis-run-config.js';
export * from './schemas/trainer-config.js';
export * from './schemas/training-example.js';
export * from './schemas/training-slices.js';
export { Bm25Index, type Bm25Parameters, bm25Defaults } from './search/bm25-index.js';
export { BoundedHeap } from './search/bounded-heap.js';
export {
  type FlagEmbeddingRow,
  flagEmbeddingRow,
  type TevatronRow,
  type TrainerRowExample,
  tevatronRow,
} from './trainer-rows.js';
