/**
 * `dv train run`: contrastive training of a bi-encoder on a mix (@dv/train `trainRetriever`),
 * from an HF folder or from a mini backbone MLM-pretrained first (train/pretrain-backbone.ts).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { guardOutputDir } from '@dv/core';
import { defineCommand, requireString, UsageError } from '../cli-kit.js';
import { lockOutputFolder } from '../output-folder.js';
import { mlmFolderOptions, trainRunFlags } from '../run-configs/trainer-flags.js';
import { mlmRunConfig, trainerRunConfig } from '../run-configs/trainer-run-config.js';
import { mlmCorpus, type PretrainedBackbone, pretrainBackbone } from '../train/pretrain-backbone.js';
import { stopOnInterrupt } from '../train/stop-on-interrupt.js';
import { trainRunJson, trainRunText } from '../train/train-run-output.js';

export const trainRunCommand = defineCommand({
  name: 'run',
  summary: 'train a bi-encoder on a data mix (InfoNCE, dual-view batches, exact resume)',
  usage:
    '--mix FILE (--init DIR | --backbone NAME --corpus FILE) --out DIR [--config FILE] [--json] [options]',
  description: `Contrastive fine-tuning of a bi-encoder on a mix JSONL (what 'dv synth mix' writes; Tevatron,
Promptriever and sentence-transformers rows are read too): InfoNCE over each query's positives, its first N labelled
negatives (instruction negatives first) and in-batch negatives (false negatives ignored), both views
of a dual-view pair in the same batch, AdamW, warmup-stable-decay, gradient clipping.

The config is the preset (--preset, default mini; every value's provenance is in @dv/core's
presets.ts), then --config FILE (a JSON TrainerConfig, merged field by field), then the flags.
--backbone NAME pretrains (once; cached by config digest) a mini backbone with MLM on --corpus FILE
(default <data-dir>/corpus.jsonl, which 'dv data build-mini' writes; 600 MLM steps unless
--mlm-steps) and starts from it; --init DIR starts from an HF folder (config.json,
model.safetensors, tokenizer.json).

DIR gets checkpoints/, metrics.jsonl, export/ (Hugging Face + sentence-transformers folder with
onnx/model.onnx), manifest.json and summary.json. Re-running the same command resumes an
interrupted run (also after kill -9) on the same loss curve, and says so and does nothing for a
finished one. Ctrl-C checkpoints and exits 130. NaN/inf stops with the step named (exit 1).
A folder made by other trainer code (the code digest of @dv/train in its run.json differs, or
it predates code digests) is refused naming what changed (exit 1); --reuse-stale accepts it
as it is (resumes it, or keeps the finished run) and records that in run.json and manifest.json.`,
  flags: trainRunFlags,
  options: {
    mix: { type: 'string', description: 'training mix JSONL', valueName: 'FILE' },
    init: { type: 'string', description: 'start from this HF folder', valueName: 'DIR' },
    backbone: {
      type: 'string',
      description: 'mini-bert or mini-gte: MLM-pretrain it (cached) and start from it',
      valueName: 'NAME',
    },
    out: { type: 'string', description: 'run folder', valueName: 'DIR' },
    config: { type: 'string', description: 'trainer config JSON merged over the preset', valueName: 'FILE' },
    preset: { type: 'string', description: 'mini or paper', default: 'mini' },
    'reuse-stale': {
      type: 'boolean',
      description: 'accept a run folder made by other trainer code (recorded in the manifest)',
    },
    json: {
      type: 'boolean',
      description:
        'print the result as one JSON object (out, exportDir, steps, finalLoss...); progress stays on stderr',
    },
    ...mlmFolderOptions,
  },
  async run(ctx) {
    const mix = requireString(ctx, 'mix');
    const out = requireString(ctx, 'out');
    const { values: v } = ctx;
    const config = trainerRunConfig({ preset: v.preset, configFile: v.config, flags: ctx.settings.trainer });
    if (!existsSync(mix)) throw new UsageError(`--mix ${mix} does not exist`);
    if (!!v.init === !!v.backbone) throw new UsageError('give exactly one of --init DIR or --backbone NAME');
    const folder = {
      corpus: v.corpus,
      dataDir: v['data-dir'],
      mlmOut: v['mlm-out'],
      mlmCache: v['mlm-cache'],
    };
    if (v.backbone) mlmCorpus({ backbone: v.backbone, ...folder }); // before loading TensorFlow
    guardOutputDir(out); // the /proc hang, a file as --out (issue 25)
    const train = await import('@dv/train');
    const onEvent = train.renderTrainEvents(ctx.stderr as NodeJS.WritableStream & { isTTY?: boolean });
    let init = v.init;
    let pretrained: PretrainedBackbone | undefined;
    if (v.backbone) {
      const mlm = mlmRunConfig(ctx.settings.mlm, v.backbone);
      pretrained = await pretrainBackbone({
        backbone: v.backbone,
        ...folder,
        config: mlm,
        stderr: ctx.stderr,
        onEvent,
      });
      init = pretrained.exportDir;
    }
    if (!init || !existsSync(join(init, 'config.json')))
      throw new UsageError(`--init ${init}: no config.json there`);
    // one trainer per run folder: a second one exits 1 at once naming this PID (released below)
    const lock = lockOutputFolder(out, `dv train run --out ${out}`);
    const { controller, onSigint } = stopOnInterrupt(ctx.stderr);
    try {
      const r = await train.trainRetriever({
        config,
        data: mix,
        init,
        out,
        onEvent,
        signal: controller.signal,
        command: ctx.commandLine,
        reuseStale: v['reuse-stale'] === true,
      });
      if (r.staleReuse)
        ctx.stderr.write(
          `reused a run folder made by other trainer code (${r.staleReuse.reasons.join('; ')}); recorded in ${join(out, 'manifest.json')}\n`,
        );
      const shown = {
        out,
        init,
        ...(pretrained && v.backbone ? { backbone: { name: v.backbone, ...pretrained } } : {}),
      };
      ctx.stdout.write(v.json === true ? trainRunJson(r, shown) : trainRunText(r, out));
      return 0;
    } catch (err) {
      if (controller.signal.aborted) {
        ctx.stderr.write(
          `interrupted: checkpoint kept in ${join(out, 'checkpoints')}; re-run the same command to resume\n`,
        );
        return 130;
      }
      if (err instanceof train.TrainingDivergedError) {
        ctx.stderr.write(`error: ${err.message}\n`);
        return 1;
      }
      throw err;
    } finally {
      process.off('SIGINT', onSigint);
      lock.release();
    }
  },
});
