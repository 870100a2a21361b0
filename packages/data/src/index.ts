/**
 * @dv/data: datasets. The embedded WordNet mini world (build and load), loaders for the real
 * benchmarks and seed data (FollowIR v1/v2, InfoSearch, MAIR, BEIR folders, Promptriever),
 * a parquet reader and a Hugging Face Hub downloader with pinned revisions.
 */

// Hugging Face Hub.
export { fetchRegisteredDataset, hubDatasetEntry } from './hub/fetch-registered.js';
export {
  downloadDataset,
  downloadModel,
  type HubOptions,
  hubCacheDir,
  listFiles,
  matchGlob,
} from './hub/hub-client.js';
export { HUB_DATASETS, type HubDatasetEntry, type HubDatasetName } from './hub/hub-datasets.js';
export { loadBeirFolder } from './loaders/beir-folder.js';
// Loaders: every benchmark loader returns an InstructedSet (@dv/core).
export { loadFollowIRv1 } from './loaders/followir-v1.js';
export { loadFollowIRv2 } from './loaders/followir-v2.js';
export { loadInfoSearch } from './loaders/infosearch.js';
export { loadMairTask } from './loaders/mair.js';
export { readPromptriever } from './loaders/promptriever.js';
// The mini world.
export { buildMiniWorld, MINI_FILES, type MiniWorldBuilt } from './mini/build-mini-world.js';
export { loadMiniWorld, type MiniWorld } from './mini/load-mini-world.js';
export { MiniWorldOptions } from './mini/mini-world-options.js';
export { benchmarkQuality, infosearchLeakage, wordingQuality } from './mini/mini-world-quality.js';
