/**
 * Configuration of the two training jobs of @dv/train, one schema each:
 *
 * - `TrainerConfig`: contrastive fine-tuning of a bi-encoder on a mix JSONL (`dv train run`):
 *   formatter, lengths, batch building (hard negatives, in-batch negatives, both views of a
 *   pair together), InfoNCE, AdamW, schedule, gradient accumulation / gradient cache,
 *   checkpoints, logging and evaluation cadence, seed.
 * - `MlmConfig`: masked-language-model pretraining of a mini backbone (`dv train mlm`), BERT's
 *   recipe (Devlin et al. 2019, arXiv 1810.04805): 15% of the tokens chosen, of those 80%
 *   replaced by [MASK], 10% by a random token, 10% left as they are.
 *
 * Presets (with the provenance of each value) are in `presets.ts`; `trainerConfigFromRunConfig`
 * derives the trainer's part of a run config, so a run and its training agree.
 */
import { z } from 'zod';
import { DEFAULT_SEED } from '../rng.js';
import { FormatterSettings } from './formatter-settings.js';
import {
  BatchConfig,
  CheckpointConfig,
  LossConfig,
  ModelConfig,
  OptimizerConfig,
  type RunConfig,
  ScheduleConfig,
} from './run-config.js';

export const TrainerModelConfig = ModelConfig.pick({
  pooling: true,
  normalize: true,
  maxQueryLength: true,
  maxDocLength: true,
}).extend({
  /** Dropout during training; null keeps the backbone config's `hidden_dropout_prob`. */
  dropout: z.number().min(0).max(1).nullable().default(null),
});
export type TrainerModelConfig = z.infer<typeof TrainerModelConfig>;

export const TrainerBatchConfig = BatchConfig.extend({
  /** Optimiser steps; overrides `epochs`. */
  steps: z.number().int().positive().optional(),
  /** Labelled negatives per query at most (instruction negatives first, then hard negatives). */
  hardNegatives: z.number().int().nonnegative().default(30),
  /** Micro-batches whose gradients are averaged into one optimiser step. */
  gradAccumulation: z.number().int().positive().default(1),
  /**
   * Gradient cache (Gao et al. 2021, arXiv 2101.06983): embed in chunks of this many
   * sequences without keeping activations, then back-propagate chunk by chunk. null = off.
   */
  gradCacheChunk: z.number().int().positive().nullable().default(null),
  /** Examples (pairs count once) held by the streaming shuffle buffer. */
  shuffleBuffer: z.number().int().positive().default(10_000),
}).refine((b) => b.batchSize >= 2 || !b.pairViewsInBatch, {
  message: 'batchSize must be at least 2 to hold both views of a pair',
  path: ['batchSize'],
});
export type TrainerBatchConfig = z.infer<typeof TrainerBatchConfig>;

export const TrainerConfig = z.object({
  seed: z.number().int().default(DEFAULT_SEED),
  formatter: FormatterSettings.prefault({}),
  model: TrainerModelConfig.prefault({}),
  loss: LossConfig.prefault({}),
  optimizer: OptimizerConfig,
  schedule: ScheduleConfig.prefault({}),
  batch: TrainerBatchConfig,
  checkpoint: CheckpointConfig.prefault({}),
  /** Steps between metrics.jsonl records (the last step is always logged). */
  logEverySteps: z.number().int().positive().default(10),
  /** Steps between evaluation callbacks (also after the last step); null = only at the end. */
  evalEverySteps: z.number().int().positive().nullable().default(null),
});
export type TrainerConfig = z.infer<typeof TrainerConfig>;
export type TrainerConfigInput = z.input<typeof TrainerConfig>;

export const MlmConfig = z.object({
  seed: z.number().int().default(DEFAULT_SEED),
  /** Mini backbone layout (`mini-bert` or `mini-gte`). */
  backbone: z.enum(['mini-bert', 'mini-gte']).default('mini-bert'),
  layers: z.number().int().positive().default(2),
  hidden: z
    .number()
    .int()
    .positive()
    .refine((h) => h % 64 === 0, 'hidden must be a multiple of 64 (heads of 64)')
    .default(128),
  /** WordPiece vocabulary trained on the corpus when no tokenizer is given. */
  vocabSize: z.number().int().min(16).default(8000),
  /** Tokens per sequence, special tokens included. */
  maxLength: z.number().int().min(4).default(64),
  batchSize: z.number().int().positive().default(64),
  steps: z.number().int().positive().default(1000),
  /** Share of (non-special) tokens chosen for prediction. */
  maskProbability: z.number().gt(0).lt(1).default(0.15),
  /** Of the chosen tokens: replaced by [MASK], by a random token; the rest stay. */
  maskReplace: z.number().min(0).max(1).default(0.8),
  randomReplace: z.number().min(0).max(1).default(0.1),
  optimizer: OptimizerConfig,
  schedule: ScheduleConfig.prefault({ name: 'linear', warmupRatio: 0.06 }),
  logEverySteps: z.number().int().positive().default(20),
  /**
   * Mid-run checkpoints (weights, MLM head, AdamW moments, RNG) every `everySteps` and on abort;
   * a rerun resumes on the same loss curve. Not part of the run's digest (it changes no result).
   */
  checkpoint: CheckpointConfig.prefault({ everySteps: 50, keepLast: 2 }),
  /** Texts read from the corpus at most (null = all). */
  maxTexts: z.number().int().positive().nullable().default(null),
});
export type MlmConfig = z.infer<typeof MlmConfig>;
export type MlmConfigInput = z.input<typeof MlmConfig>;

/**
 * The trainer's part of a run config (model lengths, loss, optimiser, schedule, batch,
 * checkpoints, formatter) for one seed; `overrides` are merged last.
 */
export function trainerConfigFromRunConfig(run: RunConfig, seed = run.seeds[0]!): TrainerConfig {
  return TrainerConfig.parse({
    seed,
    formatter: run.formatter,
    model: {
      pooling: run.model.pooling,
      normalize: run.model.normalize,
      maxQueryLength: run.model.maxQueryLength,
      maxDocLength: run.model.maxDocLength,
    },
    loss: run.loss,
    optimizer: run.optimizer,
    schedule: run.schedule,
    batch: {
      batchSize: run.batch.batchSize,
      epochs: run.batch.epochs,
      hardNegatives: run.data.hardNegatives,
      pairViewsInBatch: run.batch.pairViewsInBatch,
    },
    checkpoint: run.checkpoint,
  });
}
