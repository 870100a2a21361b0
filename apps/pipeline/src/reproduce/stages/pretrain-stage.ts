/**
 * Stage `pretrain/<backbone>` (`pretrain/<backbone>/seed-<s>` with `pretrain.perSeed`): MLM
 * pretraining of a mini backbone on the mini world corpus (@dv/train pretrainMlm: WordPiece
 * vocabulary, BERT masking, tied head), exported as the HF folder every fine-tuning run of that
 * backbone starts from, and evaluated as the "untrained" baseline (the backbone before
 * fine-tuning).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { MINI_BACKBONES, RunConfig } from '@dv/core';

type MiniBackbone = (typeof MINI_BACKBONES)[number];

import { MINI_FILES } from '@dv/data';
import { stageFiles } from '../internal/stage-files.js';
import type { StageContext, StageSpec } from '../stage.js';
import { PRETRAIN_CODE, stageFileCode } from '../stage-code.js';

export const EXPORT_DIR = 'export';

type TrainEvent = Parameters<NonNullable<import('@dv/train').PretrainMlmOptions['onEvent']>>[0];

/** Progress with ETA for a training job's events, on the stage's own progress line. */
export function trainProgress(ctx: StageContext, label: string): (e: TrainEvent) => void {
  let bar: ReturnType<StageContext['progress']> | null = null;
  return (e) => {
    if (e.type === 'start') {
      bar = ctx.progress(label, e.totalSteps, 'steps');
      bar.update(e.startStep, e.resumed ? `resumed at step ${e.startStep}` : '');
    } else if (e.type === 'step') bar?.update(e.step, `loss ${e.loss.toFixed(4)}`);
    else if (e.type === 'done') bar?.done(`final loss ${e.finalLoss.toFixed(4)}`);
  };
}

/**
 * The pretrain stage id of a backbone: `pretrain/<backbone>`, or with `pretrain.perSeed` one per
 * fine-tuning seed, `pretrain/<backbone>/seed-<s>` (MLM seed s).
 */
export function pretrainStageId(config: Pick<RunConfig, 'pretrain'>, backbone: string, seed: number): string {
  return config.pretrain.perSeed ? `pretrain/${backbone}/seed-${seed}` : `pretrain/${backbone}`;
}

export function pretrainStage(
  config: Pick<RunConfig, 'pretrain' | 'train'>,
  backbone: MiniBackbone,
  /** With `pretrain.perSeed`: the fine-tuning seed this backbone is pretrained for (its MLM seed). */
  seed?: number,
): StageSpec {
  // perSeed picks the stages, not what one computes: it stays out of the slice (and the key)
  const { perSeed, ...pre } = config.pretrain;
  const mlm = { ...pre, backbone, ...(perSeed && seed !== undefined ? { seed } : {}) };
  return {
    id: pretrainStageId(config, backbone, mlm.seed),
    group: 'pretrain',
    deps: ['world'],
    code: [PRETRAIN_CODE, stageFileCode('pretrain-stage.ts')],
    config: { mlm, onnx: { pooling: config.train.model.pooling, normalize: config.train.model.normalize } },
    // measured on 2 cores: ~0.2 s per step of 64 sequences of 64 tokens (config A)
    estimateSeconds: 10 + mlm.steps * 0.2 * (mlm.batchSize / 64) * (mlm.maxLength / 64),
    async run(ctx) {
      const { pretrainMlm } = await import('@dv/train');
      const r = await pretrainMlm({
        config: mlm,
        corpus: join(ctx.depDir('world'), MINI_FILES.corpus),
        out: ctx.dir,
        onEvent: trainProgress(ctx, 'MLM'),
        signal: ctx.signal,
      });
      // The baseline "before fine-tuning" is evaluated with ONNX Runtime like every other model:
      // the same graph the trainer's export writes, from the pretrained weights.
      const train = await import('@dv/train');
      const hfConfig = JSON.parse(readFileSync(join(r.exportDir, 'config.json'), 'utf8'));
      const weights = train.encoderWeightsFromSafetensors(
        train.readSafetensors(join(r.exportDir, 'model.safetensors')),
      );
      mkdirSync(join(r.exportDir, 'onnx'), { recursive: true });
      train.exportOnnx(join(r.exportDir, 'onnx', 'model.onnx'), {
        config: hfConfig,
        weights,
        pooling: config.train.model.pooling,
        normalize: config.train.model.normalize,
      });
      ctx.log(`${r.steps} steps, final MLM loss ${r.finalLoss.toFixed(3)}${r.cached ? ' (cached)' : ''}`);
      return {
        outputs: stageFiles(ctx.dir),
        summary: { exportDir: relative(ctx.dir, r.exportDir), steps: r.steps, finalLoss: r.finalLoss },
      };
    },
  };
}
