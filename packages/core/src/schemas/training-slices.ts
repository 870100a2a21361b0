/**
 * The fine-tuning concerns, one schema each (model encoding, loss, optimiser, schedule, batch,
 * checkpoint), composed into the trainer's config (`TrainerConfig`, trainer-config.ts: the
 * `train` slice of the run config, run-config.ts). `OptimizerConfig`, `ScheduleConfig` and
 * `CheckpointConfig` are also the MLM pretraining job's (`MlmConfig`, the `pretrain` slice).
 * Each leaf's `.describe()` is its help text.
 */
import { z } from 'zod';
import { Pooling } from './pooling.js';

/** The Hugging Face `model_type` (gte's is `new`); @dv/train's architecture registry has one module per value (checked in its test). */
export const ModelArchitecture = z.enum(['bert', 'xlm-roberta', 'new']);
export type ModelArchitecture = z.infer<typeof ModelArchitecture>;

/** How a model turns texts into vectors; the trainer's model slice extends it with dropout. */
export const ModelConfig = z.object({
  pooling: Pooling.default('cls').describe(
    'Embedding pooling: the [CLS] token (cls) or the mean of the token vectors (mean)',
  ),
  normalize: z.boolean().default(true).describe('L2-normalise embeddings (cosine similarity)'),
  maxQueryLength: z
    .number()
    .int()
    .positive()
    .default(512)
    .describe('Tokens per query (query + instruction) when training, special tokens included'),
  maxDocLength: z
    .number()
    .int()
    .positive()
    .default(512)
    .describe('Tokens per document (title + text) when training, special tokens included'),
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

export const LossConfig = z.object({
  name: z.literal('info-nce').default('info-nce').describe('Contrastive loss (InfoNCE)'),
  temperature: z
    .number()
    .positive()
    .default(0.02)
    .describe('InfoNCE softmax temperature tau; the logit scale 1/tau is derived where the loss is computed'),
  inBatchNegatives: z
    .boolean()
    .default(true)
    .describe("Score each query against the other queries' documents of the batch too"),
  maskFalseNegatives: z
    .boolean()
    .default(true)
    .describe('Ignore in-batch documents that are positives of another query with the same text'),
});
export type LossConfig = z.infer<typeof LossConfig>;

export const OptimizerConfig = z.object({
  name: z.literal('adamw').default('adamw').describe('Optimiser (AdamW, decoupled weight decay)'),
  lr: z.number().positive().describe('Peak learning rate (after warmup)'),
  weightDecay: z.number().nonnegative().default(0.01).describe('AdamW decoupled weight decay'),
  beta1: z.number().min(0).max(1).default(0.9).describe('AdamW first-moment decay'),
  beta2: z.number().min(0).max(1).default(0.999).describe('AdamW second-moment decay'),
  epsilon: z.number().positive().default(1e-8).describe('AdamW denominator epsilon'),
  gradClipNorm: z
    .number()
    .positive()
    .optional()
    .describe('Clip the global gradient norm to this value (absent: no clipping)'),
});
export type OptimizerConfig = z.infer<typeof OptimizerConfig>;

export const ScheduleConfig = z.object({
  name: z
    .enum(['wsd', 'linear', 'constant'])
    .default('wsd')
    .describe(
      'Learning-rate schedule: warmup-stable-decay (Arctic-Embed), linear decay, or constant after warmup',
    ),
  warmupRatio: z.number().min(0).max(1).default(0.05).describe('Share of the steps spent warming up'),
  decayRatio: z
    .number()
    .min(0)
    .max(1)
    .default(0.2)
    .describe('wsd: share of the steps spent decaying at the end'),
});
export type ScheduleConfig = z.infer<typeof ScheduleConfig>;

/** The batch slice; `TrainerBatchConfig` extends it with the trainer's own batching fields. */
export const BatchConfig = z.object({
  batchSize: z.number().int().positive().describe('Queries per batch (both views of a pair count as two)'),
  epochs: z.number().positive().default(1).describe('Passes over the mix; ignored when `steps` is set'),
  pairViewsInBatch: z
    .boolean()
    .default(true)
    .describe('Put both views of a dual-view pair into the same batch'),
});
export type BatchConfig = z.infer<typeof BatchConfig>;

export const CheckpointConfig = z.object({
  everySteps: z.number().int().positive().default(500).describe('Steps between mid-run checkpoints'),
  keepLast: z.number().int().positive().default(2).describe('Checkpoints kept (older ones are removed)'),
});
export type CheckpointConfig = z.infer<typeof CheckpointConfig>;
