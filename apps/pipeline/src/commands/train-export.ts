/**
 * `dv train export --engine E`: the mix and our trainer's settings for an existing distributed
 * engine (sentence-transformers under torchrun / accelerate, FlagEmbedding, Tevatron), instead
 * of a home-made distributed trainer. Thin over @dv/train `exportForEngine`; the config is
 * resolved as `dv train run` resolves it (run-configs/trainer-run-config.ts).
 */
import { existsSync } from 'node:fs';
import { guardOutputDir } from '@dv/core';
import { defineCommand, enumOption, requireString, UsageError } from '../cli-kit.js';
import { TrainExportSettings, trainExportFlags } from '../run-configs/trainer-flags.js';
import { trainerRunConfig } from '../run-configs/trainer-run-config.js';

const ENGINES = ['sentence-transformers', 'flagembedding', 'tevatron'] as const;

export const trainExportCommand = defineCommand({
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
  flags: trainExportFlags,
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
    config: { type: 'string', description: 'trainer config JSON merged over the preset', valueName: 'FILE' },
    preset: { type: 'string', description: 'mini or paper', default: 'mini' },
  },
  async run(ctx) {
    const engine = enumOption(ctx, 'engine', ENGINES) ?? 'sentence-transformers';
    const mix = requireString(ctx, 'mix');
    const init = requireString(ctx, 'init');
    const out = requireString(ctx, 'out');
    if (!existsSync(mix)) throw new UsageError(`--mix ${mix} does not exist`);
    guardOutputDir(out); // the /proc hang, a file as --out (issue 25)
    const { nproc } = TrainExportSettings.pick({ nproc: true }).parse(ctx.settings);
    const config = trainerRunConfig({
      preset: ctx.values.preset,
      configFile: ctx.values.config,
      flags: ctx.settings.trainer,
    });
    if (config.batch.batchSize % nproc !== 0)
      throw new UsageError(
        `the batch of ${config.batch.batchSize} does not split over ${nproc} processes (--batch, --nproc)`,
      );
    const { exportForEngine } = await import('@dv/train');
    const r = await exportForEngine({
      engine,
      config,
      data: mix,
      init,
      out,
      nprocPerNode: nproc,
      command: ctx.commandLine,
    });
    ctx.stdout.write(
      `${engine} export: ${r.rows} rows (${r.pairs} dual-view pairs) in ${r.out}\n` +
        `  wrote ${r.files.map((p) => p.slice(r.out.length + 1)).join(', ')}\n` +
        `  launch: cd ${r.out} && bash launch.sh\n    (${r.launch.split(' \\\n')[0]} ...)\n`,
    );
    return 0;
  },
});
