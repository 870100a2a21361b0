/**
 * @dv/synth: polarity-reversal synthesis. Prompt templates, backends (offline reverser,
 * OpenAI-compatible chat, batch files), answer parsing, guardrails, verification, the resumable
 * run engine, dual-view assembly, matched-budget mixes and exports to trainer formats.
 */

export {
  type BackendContext,
  type BackendEntry,
  type BatchImportReport,
  synthesisBackendNames,
  synthesisBackends,
} from './backend-registry.js';
export {
  createOfflineReverser,
  findReversal,
  guessStyle,
  type Reversal,
  type ReversalLever,
  reversalLevers,
  reverseOffline,
  separatingLevers,
  writeInstruction,
} from './backends/offline-reverser.js';
export { createOpenAIChatBackend, type OpenAIChatOptions } from './backends/openai-chat.js';
export { createScriptedBackend, type ScriptedOptions } from './backends/scripted.js';
export {
  type BackendAnswer,
  BackendError,
  type ChatRequest,
  type ChatResult,
  CostCapReached,
  type SynthesisBackend,
  type SynthesisTask,
} from './backends/synthesis-backend.js';
export {
  type BatchExportOptions,
  BatchOutputLine,
  BatchRequestLine,
  createBatchResultsBackend,
  exportBatch,
} from './batch-files.js';
export {
  BATCH_DIR,
  type BatchJobEvent,
  type BatchJobOptions,
  type BatchJobResult,
  BatchJobState,
  type BatchPartState,
  type BatchRoundState,
  runBatchJob,
} from './batch-job.js';
export {
  createSynthesisRun,
  type SynthesisRun,
  type SynthesisRunIo,
  type SynthesisRunResult,
} from './create-synthesis-run.js';
export { complementExample, originalExample, pairIdFor } from './dual-view.js';
export { finalizeRun, OUTPUT_FILES, type RunExample, type RunInfo, type RunSummary } from './finalize-run.js';
export {
  checkGuardrails,
  countSentences,
  GuardrailReason,
  type GuardrailResult,
  jaccard,
} from './guardrails.js';
export { type MergeOptions, mergeShards } from './merge-shards.js';
export { buildMixes, countMix, type MixCounts, type MixExample, type MixInput } from './mixes.js';
export { type ParsedAnswer, parseAnswer } from './parse-answer.js';
export { DECISION_CODE, decisionKey } from './run/decision-key.js';
export {
  LOG_FILE,
  readJournal,
  runSynthesis,
  type Shard,
  type SynthesisRunOptions,
  TaskPending,
} from './run-synthesis.js';
export { type BatchFileLimits, OPENAI_BATCH_LIMITS, splitBatchLines } from './split-batch-requests.js';
export { SynthesisConfigError } from './synthesis-config-error.js';
export {
  ENDPOINT_CONCURRENCY_UNDER_MINI,
  synthesisConfigFromPreset,
} from './synthesis-config-from-preset.js';
export type { SynthesisEvent } from './synthesis-event.js';
export { inShard, prepareTask, type TaskSettings } from './synthesis-task.js';
export {
  getTemplate,
  type RenderedPrompt,
  renderPrompt,
  type TemplateId,
  templates,
} from './template-registry.js';
export type { PromptTemplate, TemplateInput } from './templates/prompt-template.js';
export {
  type ExportOptions,
  exportForTrainers,
  type TrainerFormat,
  toFlagEmbedding,
  toSentenceTransformers,
  toTevatron,
  trainerFormats,
} from './trainer-exports.js';
export { type Pricing, UsageLedger } from './usage-ledger.js';
export { type ComplementFigures, complementFigures } from './verify/complement-figures.js';
export type { Judge, JudgeInput } from './verify/judge.js';
export {
  createJudge,
  type JudgeEntry,
  synthesisJudgeNames,
  synthesisJudges,
} from './verify/judge-registry.js';
export { createLexicalJudge, lexicalScore } from './verify/lexical-judge.js';
export { createLlmJudge, judgeTemplate, renderJudgePrompt } from './verify/llm-judge.js';
export { type WriteMixesOptions, writeMixes } from './write-mixes.js';
