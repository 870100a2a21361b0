/**
 * Typed configuration, one schema per concern (model, data, loss, optimiser, schedule,
 * checkpoint, evaluation, synthesis), composed into a run config. Presets live in
 * `presets.ts` and say where each value comes from. Each slice is defined once and read by
 * the library entry point of its stage: the trainer's config (trainer-config.ts) is built
 * from the model, loss, optimizer, schedule, batch and checkpoint slices (it picks or extends
 * them, `trainerConfigFromRunConfig`); `synthesis` is the slice of @dv/synth's
 * `createSynthesisRun` (synthesis-run-config.ts); `eval.benchmarks` name entries of @dv/eval's
 * task registry (checked in its test).
 */
import { z } from 'zod';
import { FormatterSettings } from './formatter-settings.js';
import { Pooling } from './pooling.js';

/** The model slice; its encoding fields are also the trainer's (`TrainerModelConfig` picks them). */
export const ModelConfig = z.object({
  /** Registry name of a backbone (`mini-bert`, `gte-multilingual-mlm-base`...) or a local HF folder. */
  backbone: z.string().min(1),
  /** The Hugging Face `model_type` (gte's is `new`); @dv/train's architecture registry has one module per value (checked in its test). */
  architecture: z.enum(['bert', 'xlm-roberta', 'new']),
  pooling: Pooling.default('cls'),
  normalize: z.boolean().default(true),
  /** Tokens per query (query + instruction), special tokens included. */
  maxQueryLength: z.number().int().positive().default(512),
  /** Tokens per document (title + text), special tokens included. */
  maxDocLength: z.number().int().positive().default(512),
});
export type ModelConfig = z.infer<typeof ModelConfig>;

/**
 * The paper's four matched-budget mixes, and two control arms of ours (issue 26): `ins-orig-tm`
 * and `all-orig-tm` hold exactly the instruction topics of Ins-DV / All-DV (their pairs'
 * originals), each original twice instead of with its complement, so that a comparison with
 * them isolates what the complement adds beyond seeing fewer topics twice.
 */
export const DataMix = z.enum(['ins-orig', 'ins-dv', 'all-orig', 'all-dv', 'ins-orig-tm', 'all-orig-tm']);
export type DataMix = z.infer<typeof DataMix>;

export const DataConfig = z.object({
  mix: DataMix,
  /** Total number of training examples (the matched budget). */
  budget: z.number().int().positive(),
  /** For All-* mixes: how many of `budget` are instruction examples (held fixed across mixes). */
  instructionExamples: z.number().int().nonnegative().optional(),
  hardNegatives: z.number().int().nonnegative().default(30),
});
export type DataConfig = z.infer<typeof DataConfig>;

export const LossConfig = z.object({
  name: z.literal('info-nce').default('info-nce'),
  /** Softmax temperature tau; the logit scale 1/tau is derived where the loss is computed. */
  temperature: z.number().positive().default(0.02),
  inBatchNegatives: z.boolean().default(true),
  /** Ignore in-batch documents that are positives of another query with the same text. */
  maskFalseNegatives: z.boolean().default(true),
});
export type LossConfig = z.infer<typeof LossConfig>;

export const OptimizerConfig = z.object({
  name: z.literal('adamw').default('adamw'),
  lr: z.number().positive(),
  weightDecay: z.number().nonnegative().default(0.01),
  beta1: z.number().min(0).max(1).default(0.9),
  beta2: z.number().min(0).max(1).default(0.999),
  epsilon: z.number().positive().default(1e-8),
  gradClipNorm: z.number().positive().optional(),
});
export type OptimizerConfig = z.infer<typeof OptimizerConfig>;

export const ScheduleConfig = z.object({
  /** warmup-stable-decay (Arctic-Embed), linear decay, or constant after warmup. */
  name: z.enum(['wsd', 'linear', 'constant']).default('wsd'),
  warmupRatio: z.number().min(0).max(1).default(0.05),
  decayRatio: z.number().min(0).max(1).default(0.2),
});
export type ScheduleConfig = z.infer<typeof ScheduleConfig>;

/** The batch slice; `TrainerBatchConfig` extends it with the trainer's own batching fields. */
export const BatchConfig = z.object({
  /** Queries per batch (both views of a pair count as two). */
  batchSize: z.number().int().positive(),
  /** Passes over the mix; ignored by the trainer when `steps` is set. */
  epochs: z.number().positive().default(1),
  /** Put both views of a dual-view pair into the same batch. */
  pairViewsInBatch: z.boolean().default(true),
});
export type BatchConfig = z.infer<typeof BatchConfig>;

export const CheckpointConfig = z.object({
  everySteps: z.number().int().positive().default(500),
  keepLast: z.number().int().positive().default(2),
});
export type CheckpointConfig = z.infer<typeof CheckpointConfig>;

export const EvalConfig = z.object({
  benchmarks: z.array(z.string().min(1)).default([]),
  batchSize: z.number().int().positive().default(64),
});
export type EvalConfig = z.infer<typeof EvalConfig>;

/**
 * The synthesis backends, by name: the one list (@dv/synth's `synthesisBackends` registry maps
 * each to its factory and says what it needs; the CLI's choices and help come from it).
 */
export const SynthesisBackendName = z.enum(['offline', 'openai', 'batch-export', 'batch-import']);
export type SynthesisBackendName = z.infer<typeof SynthesisBackendName>;

/** The verification judges, by name (@dv/synth's `synthesisJudges` registry holds their thresholds). */
export const SynthesisJudgeName = z.enum(['lexical', 'lexical-text', 'lexical-metadata', 'llm']);
export type SynthesisJudgeName = z.infer<typeof SynthesisJudgeName>;

export const SynthesisConfig = z.object({
  backend: SynthesisBackendName.default('offline'),
  model: z.string().min(1),
  /** One or more OpenAI-compatible endpoints, used round-robin. The API key comes from the environment. */
  baseURLs: z.array(z.string().url()).default([]),
  apiKeyEnv: z.string().default('OPENAI_API_KEY'),
  temperature: z.number().min(0).max(2).default(0.7),
  maxTokens: z.number().int().positive().default(512),
  concurrency: z.number().int().positive().default(16),
  requestTimeoutMs: z.number().int().positive().default(120_000),
  maxRetries: z.number().int().nonnegative().default(6),
  templateId: z.string().default('polarity-reversal'),
  verify: z.boolean().default(true),
  costCapUsd: z.number().positive().optional(),
  /** USD per million tokens, for the usage ledger's cost and the cost cap (none: cost is not tracked). */
  pricing: z
    .object({ inputPerMTokens: z.number().nonnegative(), outputPerMTokens: z.number().nonnegative() })
    .optional(),
  /** Judge when `verify` is on: offline lexical/attribute check (default; `lexical-text` ignores metadata) or an LLM through the same endpoints. */
  judge: SynthesisJudgeName.optional(),
  /** Pass threshold of the judge; absent: the judge's own default (@dv/synth `synthesisJudges`). */
  judgeThreshold: z.number().optional(),
});
export type SynthesisConfig = z.infer<typeof SynthesisConfig>;
export type SynthesisConfigInput = z.input<typeof SynthesisConfig>;

export const RunConfig = z.object({
  profile: z.enum(['mini', 'paper']),
  seeds: z.array(z.number().int()).min(1),
  formatter: FormatterSettings,
  model: ModelConfig,
  data: DataConfig,
  loss: LossConfig,
  optimizer: OptimizerConfig,
  schedule: ScheduleConfig,
  batch: BatchConfig,
  checkpoint: CheckpointConfig,
  eval: EvalConfig,
  synthesis: SynthesisConfig,
});
export type RunConfig = z.infer<typeof RunConfig>;
export type RunConfigInput = z.input<typeof RunConfig>;
