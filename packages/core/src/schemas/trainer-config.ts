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
  ScheduleConfig,
} from './training-slices.js';

export const TrainerModelConfig = ModelConfig.extend({
  dropout: z
    .number()
    .min(0)
    .max(1)
    .nullable()
    .default(null)
    .describe("Dropout during training; null keeps the backbone config's hidden_dropout_prob"),
});
export type TrainerModelConfig = z.infer<typeof TrainerModelConfig>;

export const TrainerBatchConfig = BatchConfig.extend({
  steps: z.number().int().positive().optional().describe('Optimiser steps; overrides `epochs`'),
  hardNegatives: z
    .number()
    .int()
    .nonnegative()
    .default(30)
    .describe(
      'Labelled negatives USED per training query at most (instruction negatives first, then hard negatives), out of those the data holds (world.hardNegatives / paper.seeds.generalNegatives mined them)',
    ),
  gradAccumulation: z
    .number()
    .int()
    .positive()
    .default(1)
    .describe('Micro-batches whose gradients are averaged into one optimiser step'),
  gradCacheChunk: z
    .number()
    .int()
    .positive()
    .nullable()
    .default(null)
    .describe(
      'Gradient cache (Gao et al. 2021, arXiv 2101.06983): embed in chunks of this many sequences without activations, then back-propagate chunk by chunk; null = off',
    ),
  shuffleBuffer: z
    .number()
    .int()
    .positive()
    .default(10_000)
    .describe('Examples (pairs count once) held by the streaming shuffle buffer'),
}).refine((b) => b.batchSize >= 2 || !b.pairViewsInBatch, {
  message: 'batchSize must be at least 2 to hold both views of a pair',
  path: ['batchSize'],
});
export type TrainerBatchConfig = z.infer<typeof TrainerBatchConfig>;

export const TrainerConfig = z.object({
  seed: z
    .number()
    .int()
    .default(DEFAULT_SEED)
    .describe(
      'Seed of the fine-tuning run (init, shuffling, dropout); `pnpm reproduce` sets it per stage from `seeds`',
    ),
  formatter: FormatterSettings.prefault({}).describe('How queries, instructions and documents become text'),
  model: TrainerModelConfig.prefault({}),
  loss: LossConfig.prefault({}),
  optimizer: OptimizerConfig,
  schedule: ScheduleConfig.prefault({}),
  batch: TrainerBatchConfig,
  checkpoint: CheckpointConfig.prefault({}),
  logEverySteps: z
    .number()
    .int()
    .positive()
    .default(10)
    .describe('Steps between metrics.jsonl records (the last step is always logged)'),
  evalEverySteps: z
    .number()
    .int()
    .positive()
    .nullable()
    .default(null)
    .describe('Steps between evaluation callbacks (also after the last step); null = only at the end'),
});
export type TrainerConfig = z.infer<typeof TrainerConfig>;
export type TrainerConfigInput = z.input<typeof TrainerConfig>;

/**
 * The mini profile's backbones, by name: the one list (@dv/train's `miniBackbones` registry holds
 * each one's Hugging Face config and is checked against it with `satisfies`).
 */
export const MINI_BACKBONES = ['mini-bert', 'mini-gte'] as const;
export const MiniBackbone = z.enum(MINI_BACKBONES);
export type MiniBackbone = z.infer<typeof MiniBackbone>;

export const MlmConfig = z.object({
  seed: z.number().int().default(DEFAULT_SEED).describe('Seed of the MLM run (init, masking, batches)'),
  backbone: MiniBackbone.default('mini-bert').describe(
    'Mini backbone layout (`pnpm reproduce` sets it per stage from `backbones`)',
  ),
  layers: z.number().int().positive().default(2).describe('Transformer layers of the mini backbone'),
  hidden: z
    .number()
    .int()
    .positive()
    .refine((h) => h % 64 === 0, 'hidden must be a multiple of 64 (heads of 64)')
    .default(128)
    .describe('Hidden size of the mini backbone (a multiple of 64)'),
  vocabSize: z
    .number()
    .int()
    .min(16)
    .default(8000)
    .describe('WordPiece vocabulary trained on the corpus when no tokenizer is given'),
  maxLength: z.number().int().min(4).default(64).describe('Tokens per MLM sequence, special tokens included'),
  batchSize: z.number().int().positive().default(64).describe('Sequences per MLM batch'),
  steps: z.number().int().positive().default(1000).describe('MLM optimiser steps'),
  maskProbability: z
    .number()
    .gt(0)
    .lt(1)
    .default(0.15)
    .describe('Share of (non-special) tokens chosen for prediction'),
  maskReplace: z
    .number()
    .min(0)
    .max(1)
    .default(0.8)
    .describe('Of the chosen tokens: share replaced by [MASK]'),
  randomReplace: z
    .number()
    .min(0)
    .max(1)
    .default(0.1)
    .describe('Of the chosen tokens: share replaced by a random token (the rest stay)'),
  optimizer: OptimizerConfig,
  schedule: ScheduleConfig.prefault({ name: 'linear', warmupRatio: 0.06 }),
  logEverySteps: z.number().int().positive().default(20).describe('Steps between MLM log records'),
  /**
   * Mid-run checkpoints (weights, MLM head, AdamW moments, RNG) every `everySteps` and on abort;
   * a rerun resumes on the same loss curve. Not part of the run's digest (it changes no result).
   */
  checkpoint: CheckpointConfig.prefault({ everySteps: 50, keepLast: 2 }),
  maxTexts: z
    .number()
    .int()
    .positive()
    .nullable()
    .default(null)
    .describe('Texts read from the corpus at most (null = all)'),
});
export type MlmConfig = z.infer<typeof MlmConfig>;
export type MlmConfigInput = z.input<typeof MlmConfig>;

/**
 * The trainer config of one fine-tuning run of a run config: its `train` slice with the run's
 * seed (default the first of `seeds`; `pnpm reproduce` trains once per seed).
 */
export function trainerConfigFromRunConfig(
  run: { seeds: readonly number[]; train: TrainerConfig },
  seed = run.seeds[0]!,
): TrainerConfig {
  return TrainerConfig.parse({ ...run.train, seed });
}
