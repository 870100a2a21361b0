/**
 * @dv/eval: exact search and reranking, encoders (BM25, OpenAI-compatible embeddings, ONNX,
 * tfjs), benchmark runners. The metrics (trec_eval-exact measures, p-MRR, InfoSearch's scores)
 * are the subpath entry `@dv/eval/metrics` only, so that they load without this entry's
 * dependencies.
 *
 * Groups: encoders | runners | search | shards (corpus encoding in shards: .npy embeddings + ids
 * + manifest, merged for search) | tasks (the task registry).
 */

// encoders
export { applyLexicalRule } from './baselines/lexical-rule.js';
export { Bm25Ranker } from './encoders/bm25.js';
export { OnnxEncoder } from './encoders/onnx-encoder.js';
export { detectOrtProviders, precisionProviderNote } from './encoders/ort-execution-providers.js';
// runners
export { describeBenchmarkEvent } from './runners/benchmark-event.js';
export { benchmarkProfiles } from './runners/benchmark-profiles.js';
export { readInstructedSetJson } from './runners/instructed-set-json.js';
export {
  createRanker,
  type ModelFactory,
  modelFactories,
  registerModelFactory,
} from './runners/model-registry.js';
export { paperTable } from './runners/paper-table.js';
export { rankModes } from './runners/rank-modes.js';
export { runBenchmark } from './runners/run-benchmark.js';
// search
export { EmbeddingCache } from './search/embedding-cache.js';
export { DenseRanker, type Ranker } from './search/ranker.js';
// shards
export { encodeCorpusShard } from './shards/encode-corpus-shard.js';
export { PrecomputedDocumentsEncoder } from './shards/precomputed-documents-encoder.js';
export { readEmbeddingShards } from './shards/read-embedding-shards.js';
export { parseShardSpec, shardStem } from './shards/shard-range.js';
// tasks
export { loadBenchmarkSets, NeedsDataError } from './tasks/load-benchmark-sets.js';
export {
  BENCHMARKS,
  benchmarkEntry,
  benchmarkNames,
  perQueryKey,
  type ReportedMeasure,
  TASK_SOURCES,
  TASKS,
  type TaskMetadata,
  taskEntry,
  UnknownTaskError,
} from './tasks/task-registry.js';
