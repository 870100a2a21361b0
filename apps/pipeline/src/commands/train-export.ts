/**
 * `dv train export --engine E`: the mix and our trainer's settings for an existing distributed
 * engine (sentence-transformers under torchrun / accelerate, FlagEmbedding, Tevatron), instead
 * of a home-made distributed trainer. Thin over @dv/train `exportForEngine`; the config is
 * resolved as `dv train run` resolves it (preset, --config, flags).
 */
import { existsSync } from 'node:fs';
import { guardOutputDir } from '@dv/core';
import { type Command, requireString, UsageError } from '../cli-kit.js';
import { trainRunConfig } from './train.js';

const ENGINES = ['sentence-transformers', 'flagembedding', 'tevatron'] as const;

export const trainExportCommand: Command = {
  name: 'export',
  summary: 'write data, script and launch command for a distributed engine (sentence-transformers, ...)',
  usage:
    '--engine NAME --mix FILE --init DIR|HUB_ID --out DIR [--nproc N] [--preset P] [--config FILE] [flags]',
  description: `Hands a training mix and the settings 'dv train run' would use to an existing engine that scales
past one machine. --engine:
  sentence-transformers  train.jsonl (datasets JSON), dv_st_train.py (CachedMultipleNegativesRankingLoss,
                         scale = 1/temperature, our hard negatives, duplicate and false-negative
                         masking, both views of a pair in one batch, our LR schedule), settings.json,
                         launch.sh: torchrun --nproc_per_node N dv_st_train.py --settings settings.json
  flagembedding          train.jsonl {query, pos, neg} + launch.sh (FlagEmbedding encoder-only trainer)
  tevatron               train.jsonl {query_id, query, positive_passages, negative_passages} + launch.sh
Texts are our formatter's output in every engine. --init is our exported HF folder (e.g. a
'dv train run' export/) or a Hugging Face Hub id. Each folder gets a README.md saying what differs
from 'dv train run', and a manifest.json. The config: --preset (mini), then --config FILE, then flags.`,
  options: {
    engine: {
      type: 'string',
      description: ENGINES.join(' | '),
      valueName: 'NAME',
      default: 'sentence-transformers',
    },
    mix: { type: 'string', description: 'training mix JSONL', valueName: 'FILE' },
    init: { type: 'string', description: 'backbone: HF folder or Hub id', valueName: 'DIR|ID' },
    out: { type: 'string', description: 'export folder', valueName: 'DIR' },
    nproc: {
      type: 'string',
      description: 'processes per node in the launch command',
      valueName: 'N',
      default: '1',
    },
    config: { type: 'string', description: 'trainer config JSON merged over the preset', valueName: 'FILE' },
    preset: { type: 'string', description: 'mini or paper', default: 'mini' },
    steps: { type: 'string', description: 'optimiser steps (overrides --epochs)', valueName: 'N' },
    epochs: { type: 'string', description: 'passes over the mix', valueName: 'X' },
    batch: { type: 'string', description: 'queries per (global) batch', valueName: 'N' },
    'hard-negatives': { type: 'string', description: 'labelled negatives per query at most', valueName: 'N' },
    temperature: { type: 'string', description: 'InfoNCE temperature tau', valueName: 'T' },
    lr: { type: 'string', description: 'peak learning rate', valueName: 'LR' },
    seed: { type: 'string', description: 'seed', valueName: 'N' },
    'grad-cache': { type: 'string', description: 'GradCache mini-batch of N sequences', valueName: 'N' },
    'grad-accumulation': { type: 'string', description: 'micro-batches per optimiser step', valueName: 'N' },
    'checkpoint-every': { type: 'string', description: 'steps between checkpoints', valueName: 'N' },
  },
  async run(ctx) {
    const engine = String(ctx.values.engine);
    if (!(ENGINES as readonly string[]).includes(engine))
      throw new UsageError(`--engine must be one of ${ENGINES.join(', ')}, got '${engine}'`);
    const mix = requireString(ctx, 'mix');
    const init = requireString(ctx, 'init');
    const out = requireString(ctx, 'out');
    if (!existsSync(mix)) throw new UsageError(`--mix ${mix} does not exist`);
    guardOutputDir(out); // the /proc hang, a file as --out (issue 25)
    const nproc = Number(ctx.values.nproc);
    if (!Number.isInteger(nproc) || nproc < 1)
      throw new UsageError(`--nproc must be a positive integer, got '${String(ctx.values.nproc)}'`);
    const config = trainRunConfig(ctx);
    if (config.batch.batchSize % nproc !== 0)
      throw new UsageError(
        `the batch of ${config.batch.batchSize} does not split over ${nproc} processes (--batch, --nproc)`,
      );
    const { exportForEngine } = await import('@dv/train');
    const r = await exportForEngine({
      engine: engine as (typeof ENGINES)[number],
      config,
      data: mix,
      init,
      out,
      nprocPerNode: nproc,
      command: ['dv', 'train', 'export', ...process.argv.slice(4)],
    });
    ctx.stdout.write(
      `${engine} export: ${r.rows} rows (${r.pairs} dual-view pairs) in ${r.out}\n` +
        `  wrote ${r.files.map((p) => p.slice(r.out.length + 1)).join(', ')}\n` +
        `  launch: cd ${r.out} && bash launch.sh\n    (${r.launch.split(' \\\n')[0]} ...)\n`,
    );
    return 0;
  },
};
