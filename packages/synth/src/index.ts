/**
 * @dv/synth: polarity-reversal synthesis. Prompt templates, backends (offline reverser,
 * OpenAI-compatible chat, batch files), answer parsing, guardrails, verification, the resumable
 * run engine, dual-view assembly, matched-budget mixes and exports to trainer formats.
 */

export { type BatchImportReport, synthesisBackendNames, synthesisBackends } from './backend-registry.js';
export { createOfflineReverser } from './backends/offline-reverser.js';
export { type BatchJobEvent, runBatchJob } from './batch-job.js';
export { createSynthesisRun, type SynthesisRun } from './create-synthesis-run.js';
export type { RunSummary } from './finalize-run.js';
export { mergeShards } from './merge-shards.js';
export { runSynthesis } from './run-synthesis.js';
export { OPENAI_BATCH_LIMITS } from './split-batch-requests.js';
export { SynthesisConfigError } from './synthesis-config-error.js';
export { synthesisConfigFromPreset } from './synthesis-config-from-preset.js';
export { getTemplate, templates } from './template-registry.js';
export { type TrainerFormat, trainerFormats } from './trainer-exports.js';
export { type ComplementFigures, complementFigures } from './verify/complement-figures.js';
export type { Judge } from './verify/judge.js';
export { createJudge, synthesisJudgeNames, synthesisJudges } from './verify/judge-registry.js';
export { writeMixes } from './write-mixes.js';
