/**
 * `@dv/eval/metrics`: the metrics alone (trec_eval-exact measures, p-MRR, FollowIR's and
 * InfoSearch's scores), for users who score runs and need no encoders, runners or task registry.
 * Its import graph reaches @dv/core and nothing else of ours or of third parties (no @dv/data
 * with WordNet, no tokenizers, openai or onnxruntime), so it loads where only @dv/core and
 * @dv/eval are installed (README, "Installing a subset"; the pack-and-install test loads it that
 * way). The main entry `@dv/eval` does not repeat them. Read qrels and runs with @dv/core's
 * `readQrels` / `readRun`. `evaluateRun` computes every trec_eval measure by name
 * (`parseMeasures`); the single measures (average precision, precision/recall at k, ...) are
 * module-internal.
 */
export { evaluateRun, type RunEvaluation } from './evaluate-run.js';
export { evaluateTrecFiles } from './evaluate-trec-files.js';
export { infoSearchScores } from './infosearch.js';
export { ndcgCut } from './ndcg-cut.js';
export { MissingTopicError, pMrr } from './p-mrr.js';
export type { TieBreak } from './rank-of.js';
export { formatTrecFloat, trecEvalText } from './trec-eval-text.js';
export { parseMeasures } from './trec-measures.js';
