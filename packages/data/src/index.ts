/**
 * @dv/data: datasets. The embedded WordNet mini world (build and load), loaders for the real
 * benchmarks and seed data (FollowIR v1/v2, InfoSearch, MAIR, BEIR folders, Promptriever),
 * a parquet reader and a Hugging Face Hub downloader with pinned revisions.
 */

// Hugging Face Hub.
export { fetchRegisteredDataset, hubDatasetEntry } from './hub/fetch-registered.js';
export {
  type DownloadedDataset,
  type DownloadedModel,
  downloadDataset,
  downloadFile,
  downloadModel,
  HubError,
  type HubFile,
  type HubOptions,
  type HubRepoType,
  hubCacheDir,
  listFiles,
  matchGlob,
  resolveRevision,
} from './hub/hub-client.js';
export { HUB_DATASETS, type HubDatasetEntry, type HubDatasetName } from './hub/hub-datasets.js';
export { loadBeirFolder } from './loaders/beir-folder.js';
// Loaders: every benchmark loader returns an InstructedSet (@dv/core).
export { type LoadBenchmarkOptions, loadFollowIRv1, writeFollowIRv1 } from './loaders/followir-v1.js';
export { loadFollowIRv2 } from './loaders/followir-v2.js';
export { loadInfoSearch, writeInfoSearch } from './loaders/infosearch.js';
export { loadMairTask } from './loaders/mair.js';
export {
  PROMPTRIEVER_COLUMNS,
  type PromptrieverOptions,
  promptrieverRowToSeed,
  readPromptriever,
} from './loaders/promptriever.js';
// The mini world.
export {
  type BuildMiniWorldOptions,
  buildMiniWorld,
  MINI_BUILDER_VERSION,
  MINI_DATASET_NAME,
  MINI_FILES,
  MINI_WORLD_CODE,
  type MiniWorldBuild,
  type MiniWorldBuilt,
  miniWorldCacheKey,
  miniWorldCode,
} from './mini/build-mini-world.js';
export {
  type Constraint,
  describeConstraint,
  holds,
  MINI_LEVERS,
  type MiniLever,
} from './mini/constraint.js';
export { EXCLUSION_LEVERS } from './mini/followir-topics.js';
export { TEMPLATE_VERSION } from './mini/instruction-templates.js';
export { loadMiniWorld, type MiniWorld } from './mini/load-mini-world.js';
export { MiniWorldOptions, type MiniWorldOptionsInput } from './mini/mini-world-options.js';
export {
  type BenchmarkQuality,
  benchmarkQuality,
  constraintWords,
  infosearchLeakage,
  type Leakage,
  type WordingQuality,
  wordingQuality,
} from './mini/mini-world-quality.js';
export type { MiniWorldStats } from './mini/mini-world-stats.js';
// Parquet.
export {
  parquetColumns,
  parquetRowCount,
  readParquetRows,
  streamParquetRows,
} from './parquet/read-parquet.js';
// WordNet.
export { LEXNAMES } from './wordnet/lexnames.js';
export {
  loadWordNet,
  parseDataLine,
  type Synset,
  splitGloss,
  type WordNet,
  type WordNetPointer,
  wordnetDbPath,
  wordnetDbVersion,
} from './wordnet/load-wordnet.js';
