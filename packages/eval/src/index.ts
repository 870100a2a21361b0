/**
 * @dv/eval: trec_eval-exact metrics, p-MRR and InfoSearch's instruction metrics, exact search
 * and reranking, encoders (BM25, OpenAI-compatible embeddings, ONNX, tfjs), benchmark runners.
 *
 * Groups: metrics (pure functions) | search | encoders | runners | tasks (the task registry) |
 * shards (corpus encoding in shards: .npy embeddings + ids + manifest, merged for search).
 */

// encoders
export { applyLexicalRule, contentWords, instructionChange } from './baselines/lexical-rule.js';
export { type Bm25Options, Bm25Ranker } from './encoders/bm25.js';
export type { Encoder } from './encoders/encoder.js';
export { encoderCode, encoderCodeDigest } from './encoders/encoder-code.js';
export { LUCENE_ENGLISH_STOPWORDS, lexicalTokens } from './encoders/lexical-tokenize.js';
export {
  modelMaxLength,
  OnnxEncoder,
  type OnnxEncoderOptions,
  type OnnxPooling,
  onnxModelName,
} from './encoders/onnx-encoder.js';
export { OpenAiEmbeddingsEncoder, type OpenAiEmbeddingsOptions } from './encoders/openai-embeddings.js';
export {
  detectOrtProviders,
  type OrtProvider,
  type OrtProviderChoice,
  type OrtProviderInputs,
  ortCudaLibrary,
  precisionProviderNote,
  selectOrtProviders,
} from './encoders/ort-execution-providers.js';
// metrics: the one list is the light subpath entry @dv/eval/metrics
export * from './metrics/index.js';
// results
export {
  MTEB_LAYOUT_VERSION,
  type MtebScoreInput,
  type MtebTaskInput,
  mtebMetricName,
  mtebModelMeta,
  mtebPathSegment,
  mtebScoreEntry,
  mtebTaskResult,
  writeMtebResults,
} from './results/mteb-results.js';
export { type BenchmarkEvent, describeBenchmarkEvent } from './runners/benchmark-event.js';
// runners
export {
  type BenchmarkProfile,
  type BenchmarkProfileName,
  benchmarkProfiles,
  type ProfileScores,
  type ScoreContext,
  type ScoreOptions,
} from './runners/benchmark-profiles.js';
export {
  InstructedSetJson,
  readInstructedSetJson,
  writeInstructedSetJson,
} from './runners/instructed-set-json.js';
export {
  createRanker,
  type ModelContext,
  type ModelFactory,
  modelFactories,
  registerModelFactory,
} from './runners/model-registry.js';
export { paperTable, paperTableColumns } from './runners/paper-table.js';
export { type RankModesOptions, rankModes } from './runners/rank-modes.js';
export { type BenchmarkSummary, type RunBenchmarkOptions, runBenchmark } from './runners/run-benchmark.js';
// search
export {
  type CacheStats,
  EmbeddingCache,
  type EmbeddingCacheOptions,
  embeddingCacheKey,
} from './search/embedding-cache.js';
export {
  type ExactTopKOptions,
  exactTopK,
  l2Normalize,
  rowDot,
  type TopKResult,
} from './search/exact-top-k.js';
export { exactTopKOrt } from './search/exact-top-k-ort.js';
export { DenseRanker, type DenseRankerOptions, type Ranker, type TextItem } from './search/ranker.js';
// shards
export {
  DEFAULT_SORT_WINDOW_BATCHES,
  type EncodeCorpusShardOptions,
  type EncodeCorpusShardResult,
  encodeCorpusShard,
  encoderIdentity,
  shardFiles,
  shardKey,
} from './shards/encode-corpus-shard.js';
export { lengthSortedOrder } from './shards/length-sorted-order.js';
export { npyBytes, npyHeader, parseNpyFloat32 } from './shards/npy.js';
export { PrecomputedDocumentsEncoder } from './shards/precomputed-documents-encoder.js';
export { type EmbeddingStore, readEmbeddingShards } from './shards/read-embedding-shards.js';
export { parseShardSpec, type ShardSpec, shardRange, shardStem } from './shards/shard-range.js';
// tasks
export {
  type LoadBenchmarkContext,
  loadBenchmarkSets,
  NeedsDataError,
} from './tasks/load-benchmark-sets.js';
export {
  BENCHMARKS,
  type BenchmarkEntry,
  type BenchmarkName,
  benchmarkEntry,
  benchmarkNames,
  findTask,
  perQueryKey,
  type ReportedMeasure,
  TASK_SOURCES,
  TASKS,
  type TaskDataSource,
  type TaskLayout,
  type TaskMetadata,
  type TaskName,
  type TaskSource,
  taskDatasets,
  taskEntry,
  taskForSet,
  taskLayout,
  UnknownTaskError,
} from './tasks/task-registry.js';
