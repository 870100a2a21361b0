/**
 * The flags of the training commands, one line each: a flag -> its setting in @dv/core's
 * `TrainerConfig` (`dv train run`, `dv train export`) or `MlmConfig` (`dv train mlm`, and
 * `dv train run --backbone`). Kinds, ranges and defaults come from those schemas and the mini
 * presets (cli-kit/schema-flags.ts).
 */
import { MlmConfig, miniMlmPreset, TrainerConfig, trainerPresets } from '@dv/core';
import { z } from 'zod';
import { type FlagTable, type OptionSpec, schemaFlags, under } from '../cli-kit.js';

/** The options of the MLM run folder (not settings: where it goes and what it reads). */
export const mlmFolderOptions = {
  corpus: {
    type: 'string',
    description: 'MLM corpus (.jsonl passages or text lines; default: <data-dir>/corpus.jsonl)',
    valueName: 'FILE',
  },
  'data-dir': { type: 'string', description: 'mini world folder', default: 'runs/mini' },
  'mlm-cache': { type: 'string', description: 'MLM runs cached here by config digest', default: 'runs/mlm' },
  'mlm-out': {
    type: 'string',
    description: 'MLM run folder (instead of the digest-named one)',
    valueName: 'DIR',
  },
} as const satisfies Record<string, OptionSpec>;

/** Flags over TrainerConfig. */
export const TRAINER_FLAGS = {
  steps: { path: 'batch.steps', help: 'optimiser steps (overrides --epochs)' },
  epochs: { path: 'batch.epochs', help: 'passes over the mix' },
  batch: { path: 'batch.batchSize', help: 'queries per (global) batch' },
  'hard-negatives': { path: 'batch.hardNegatives', help: 'labelled negatives per query at most' },
  temperature: { path: 'loss.temperature', help: 'InfoNCE temperature tau' },
  lr: { path: 'optimizer.lr', help: 'peak learning rate' },
  seed: { path: 'seed', help: 'seed (batch order, dropout)' },
  'grad-cache': { path: 'batch.gradCacheChunk', help: 'gradient cache with chunks of N sequences' },
  'grad-accumulation': { path: 'batch.gradAccumulation', help: 'micro-batches per optimiser step' },
  'checkpoint-every': { path: 'checkpoint.everySteps', help: 'steps between checkpoints' },
} as const satisfies FlagTable;

/** Flags over MlmConfig (MLM pretraining of a mini backbone). */
export const MLM_FLAGS = {
  'mlm-steps': { path: 'steps', help: 'MLM steps' },
  layers: { path: 'layers', help: 'MLM backbone layers' },
  hidden: { path: 'hidden', help: 'MLM backbone hidden size' },
  'vocab-size': { path: 'vocabSize', help: 'WordPiece vocabulary' },
  'mlm-seed': { path: 'seed', help: 'MLM seed' },
  'mlm-checkpoint-every': { path: 'checkpoint.everySteps', help: 'MLM steps between checkpoints' },
} as const satisfies FlagTable;

const trainerDefaults = trainerPresets.mini.config;

/** `dv train mlm`: the MLM slice. */
export const MlmSettings = z.object({ mlm: MlmConfig });
export const mlmFlags = schemaFlags(MlmSettings, under('mlm', { backbone: 'backbone', ...MLM_FLAGS }), {
  defaults: { mlm: miniMlmPreset.config },
});

/** `dv train run`: the trainer slice, and the MLM slice of `--backbone`. */
export const TrainRunSettings = z.object({ trainer: TrainerConfig, mlm: MlmConfig });
export const trainRunFlags = schemaFlags(
  TrainRunSettings,
  { ...under('trainer', TRAINER_FLAGS), ...under('mlm', MLM_FLAGS) },
  { defaults: { trainer: trainerDefaults, mlm: miniMlmPreset.config } },
);

/** `dv train export`: the trainer slice and the launch's processes per node. */
export const TrainExportSettings = z.object({
  trainer: TrainerConfig,
  nproc: z.number().int().positive().default(1).describe('processes per node in the launch command'),
});
export const trainExportFlags = schemaFlags(
  TrainExportSettings,
  { ...under('trainer', TRAINER_FLAGS), nproc: 'nproc' },
  { defaults: { trainer: trainerDefaults, nproc: 1 } },
);
