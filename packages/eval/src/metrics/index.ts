/**
 * `@dv/eval/metrics`: the metrics alone (trec_eval-exact measures, p-MRR, FollowIR's and
 * InfoSearch's scores), for users who score runs and need no encoders, runners or task registry.
 * Its import graph reaches @dv/core and nothing else of ours or of third parties (no @dv/data
 * with WordNet, no tokenizers, openai or onnxruntime), so it loads where only @dv/core and
 * @dv/eval are installed (README, "Installing a subset"; the pack-and-install test loads it that
 * way). The same functions are exported by the main entry `@dv/eval`. Read qrels and runs with
 * @dv/core's `readQrels` / `readRun`.
 */
export { averagePrecision } from './average-precision.js';
export { type EvaluateRunOptions, evaluateRun, type RunEvaluation } from './evaluate-run.js';
export { evaluateTrecFiles } from './evaluate-trec-files.js';
export { plainMean } from './followir-score.js';
export {
  type InfoSearchInput,
  type InfoSearchOptions,
  type InfoSearchScores,
  type InfoSearchVariant,
  infoSearchScores,
  sicrCompliant,
  type WiseRanks,
  wiseScore,
} from './infosearch.js';
export { gradesOf, type JudgedTopic, judgeTopic, RELEVANCE_LEVEL } from './judged-topic.js';
export { ndcgCut } from './ndcg-cut.js';
export {
  changedDocs,
  MissingTopicError,
  type PMrrInput,
  type PMrrResult,
  pairwiseRankScore,
  pMrr,
} from './p-mrr.js';
export { precisionAt, recallAt } from './precision-recall.js';
export { type RankOptions, rankIn, rankMap, type TieBreak } from './rank-of.js';
export { reciprocalRank } from './reciprocal-rank.js';
export { formatTrecFloat, trecEvalText } from './trec-eval-text.js';
export {
  type MeasureFamily,
  type MeasureFamilyName,
  type MeasureSpec,
  parseMeasures,
  TREC_DEFAULT_CUTOFFS,
  trecMeasureFamilies,
} from './trec-measures.js';
