/**
 * Our `TrainerConfig` as the settings of a sentence-transformers run (`dv_st_train.py` reads
 * them), and, for every field of the config, where it went: the contract that a run of the
 * exported script trains with the settings `dv train run` would use.
 *
 * Mapping (sentence-transformers 6 / transformers 5 names):
 *   loss.temperature tau      -> CachedMultipleNegativesRankingLoss(scale = 1 / tau): 50 for 0.02
 *   batch.batchSize B         -> global batch: per_device_train_batch_size = B / nproc, embeddings
 *                                gathered across ranks (gather_across_devices) so the in-batch
 *                                pool is B queries, as in our trainer
 *   batch.gradCacheChunk      -> the loss's mini_batch_size (null: one chunk per device batch)
 *   batch.hardNegatives k     -> k negative columns per row (instruction negatives first)
 *   batch.pairViewsInBatch    -> DualViewBatchSampler (whole units per device batch)
 *   loss.inBatchNegatives / maskFalseNegatives -> the relations mask of the shipped loss
 *   optimizer.*               -> AdamW (HF Trainer's adamw_torch; no decay on bias/LayerNorm)
 *   schedule.*                -> our learning-rate function, transcribed (not an HF schedule)
 *   model.*                   -> Transformer(max_seq_length = maxDocLength) -> Pooling -> Normalize;
 *                                queries truncated at maxQueryLength by the shipped collator
 *   formatter.*               -> applied at export: the text columns are the formatter's output
 * `TRAINER_FIELD_MAP` lists every leaf of the config with its engine name (or why it does not
 * apply); a field added to `TrainerConfig` fails the export's test until it is mapped.
 */
import type { Pooling, TrainerConfig } from '@dv/core';

export interface SentenceTransformersSettings {
  engine: 'sentence-transformers';
  seed: number;
  output_dir: string;
  model: {
    init: string;
    pooling: Pooling;
    normalize: boolean;
    max_query_length: number;
    max_doc_length: number;
    dropout: number | null;
  };
  loss: {
    name: 'CachedMultipleNegativesRankingLoss';
    temperature: number;
    in_batch_negatives: boolean;
    mask_false_negatives: boolean;
    mini_batch_size: number | null;
  };
  optimizer: {
    name: 'adamw';
    lr: number;
    weight_decay: number;
    beta1: number;
    beta2: number;
    epsilon: number;
    grad_clip_norm: number | null;
  };
  schedule: { name: TrainerConfig['schedule']['name']; warmup_ratio: number; decay_ratio: number };
  batch: {
    global_batch_size: number;
    epochs: number;
    steps: number | null;
    grad_accumulation: number;
    pair_views_in_batch: boolean;
  };
  checkpoint: { every_steps: number; keep_last: number };
  log_every_steps: number;
  data: { train: string; negatives: number; extra_positives: number; rows: number };
}

export interface SettingsInput {
  config: TrainerConfig;
  /** Backbone: an HF folder (relative to the export, or absolute) or a Hub id. */
  init: string;
  /** Data file, relative to the export folder. */
  train: string;
  rows: number;
  /** Extra positives per row beyond the first (the widest row of the data). */
  extraPositives: number;
  outputDir?: string;
}

export function sentenceTransformersSettings(s: SettingsInput): SentenceTransformersSettings {
  const c = s.config;
  return {
    engine: 'sentence-transformers',
    seed: c.seed,
    output_dir: s.outputDir ?? 'output',
    model: {
      init: s.init,
      pooling: c.model.pooling,
      normalize: c.model.normalize,
      max_query_length: c.model.maxQueryLength,
      max_doc_length: c.model.maxDocLength,
      dropout: c.model.dropout,
    },
    loss: {
      name: 'CachedMultipleNegativesRankingLoss',
      temperature: c.loss.temperature,
      in_batch_negatives: c.loss.inBatchNegatives,
      mask_false_negatives: c.loss.maskFalseNegatives,
      mini_batch_size: c.batch.gradCacheChunk,
    },
    optimizer: {
      name: 'adamw',
      lr: c.optimizer.lr,
      weight_decay: c.optimizer.weightDecay,
      beta1: c.optimizer.beta1,
      beta2: c.optimizer.beta2,
      epsilon: c.optimizer.epsilon,
      grad_clip_norm: c.optimizer.gradClipNorm ?? null,
    },
    schedule: {
      name: c.schedule.name,
      warmup_ratio: c.schedule.warmupRatio,
      decay_ratio: c.schedule.decayRatio,
    },
    batch: {
      global_batch_size: c.batch.batchSize,
      epochs: c.batch.epochs,
      steps: c.batch.steps ?? null,
      grad_accumulation: c.batch.gradAccumulation,
      pair_views_in_batch: c.batch.pairViewsInBatch,
    },
    checkpoint: { every_steps: c.checkpoint.everySteps, keep_last: c.checkpoint.keepLast },
    log_every_steps: c.logEverySteps,
    data: {
      train: s.train,
      negatives: c.batch.hardNegatives,
      extra_positives: s.extraPositives,
      rows: s.rows,
    },
  };
}

/**
 * Every leaf of `TrainerConfig` -> the key of `engine-settings.json` (what the script read back
 * from the sentence-transformers objects it built) that must equal it, or `null` with the reason
 * it has no engine setting.
 */
export const TRAINER_FIELD_MAP = Object.freeze({
  seed: { engine: 'seed' },
  'formatter.queryPrefix': {
    engine: null,
    why: 'applied at export: the anchor column is formatQuery output',
  },
  'formatter.documentPrefix': {
    engine: null,
    why: 'applied at export: document columns are formatDocument output',
  },
  'formatter.joiner': { engine: null, why: 'applied at export (query + instruction joined)' },
  'formatter.instructionFirst': { engine: null, why: 'applied at export (order of query and instruction)' },
  'formatter.titleJoiner': { engine: null, why: 'applied at export (title + text joined)' },
  'model.pooling': { engine: 'pooling' },
  'model.normalize': { engine: 'normalize' },
  'model.maxQueryLength': { engine: 'max_query_length' },
  'model.maxDocLength': { engine: 'max_seq_length' },
  'model.dropout': { engine: 'dropout' },
  'loss.name': { engine: 'loss_class' },
  'loss.temperature': { engine: 'temperature' },
  'loss.inBatchNegatives': { engine: 'in_batch_negatives' },
  'loss.maskFalseNegatives': { engine: 'mask_false_negatives' },
  'optimizer.name': { engine: 'optim' },
  'optimizer.lr': { engine: 'learning_rate' },
  'optimizer.weightDecay': { engine: 'weight_decay' },
  'optimizer.beta1': { engine: 'adam_beta1' },
  'optimizer.beta2': { engine: 'adam_beta2' },
  'optimizer.epsilon': { engine: 'adam_epsilon' },
  'optimizer.gradClipNorm': { engine: 'max_grad_norm' },
  'schedule.name': { engine: 'schedule.name' },
  'schedule.warmupRatio': { engine: 'schedule.warmup_ratio' },
  'schedule.decayRatio': { engine: 'schedule.decay_ratio' },
  'batch.batchSize': { engine: 'global_batch_size' },
  'batch.epochs': { engine: 'num_train_epochs' },
  'batch.steps': { engine: 'max_steps' },
  'batch.hardNegatives': { engine: 'negatives_per_row' },
  'batch.pairViewsInBatch': { engine: 'pair_views_in_batch' },
  'batch.gradAccumulation': { engine: 'gradient_accumulation_steps' },
  'batch.gradCacheChunk': { engine: 'mini_batch_size' },
  'batch.shuffleBuffer': {
    engine: null,
    why: 'the shipped sampler shuffles all units each epoch (a map-style dataset; no streaming buffer)',
  },
  'checkpoint.everySteps': { engine: 'save_steps' },
  'checkpoint.keepLast': { engine: 'save_total_limit' },
  logEverySteps: { engine: 'logging_steps' },
  evalEverySteps: { engine: null, why: 'no evaluator in the export: evaluate the saved model with dv eval' },
} as const satisfies Record<string, { engine: string | null; why?: string }>);

/** The value the engine must report for a trainer field (after the engine's own conventions). */
export function expectedEngineValue(
  field: keyof typeof TRAINER_FIELD_MAP,
  config: TrainerConfig,
  derived: { perDeviceBatch: number; negatives: number },
): unknown {
  switch (field) {
    case 'loss.name':
      return 'CachedMultipleNegativesRankingLoss';
    case 'optimizer.name':
      return 'adamw_torch';
    case 'optimizer.gradClipNorm':
      return config.optimizer.gradClipNorm ?? 0;
    case 'batch.steps':
      return config.batch.steps ?? -1;
    case 'batch.gradCacheChunk':
      return config.batch.gradCacheChunk ?? derived.perDeviceBatch * (1 + derived.negatives);
    case 'model.dropout':
      return config.model.dropout;
    default: {
      let v: unknown = config;
      for (const k of field.split('.')) v = (v as Record<string, unknown>)[k];
      return v;
    }
  }
}
