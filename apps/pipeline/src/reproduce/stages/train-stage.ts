/**
 * Stage `train/<backbone>/<mix>/seed-<s>`: contrastive fine-tuning of the pretrained backbone
 * on one mix with one seed (@dv/train trainRetriever: InfoNCE, both views of a pair in a batch,
 * AdamW, checkpoints). The trainer resumes from its newest checkpoint when the stage is rerun
 * after a crash; its export/ (HF + ONNX) is what the eval stage reads.
 */
import { join, relative } from 'node:path';
import type { RunConfig } from '@dv/core';
import { stageFiles } from '../internal/stage-files.js';
import type { StageSpec } from '../stage.js';
import { stageFileCode } from '../stage-code.js';
import { type MixName, mixPath } from './mixes-stage.js';
import { EXPORT_DIR, trainProgress } from './pretrain-stage.js';

export function trainStage(
  config: Pick<RunConfig, 'train' | 'mixes'>,
  backbone: string,
  mix: MixName,
  seed: number,
  /** The stage whose `summary.exportDir` is the HF folder to start from (paper: `backbones/<name>`). */
  initStage = `pretrain/${backbone}`,
): StageSpec {
  const trainer = { ...config.train, seed };
  const steps =
    trainer.batch.steps ?? Math.ceil((config.mixes.budget * trainer.batch.epochs) / trainer.batch.batchSize);
  return {
    id: `train/${backbone}/${mix}/seed-${seed}`,
    group: 'train',
    deps: [initStage, 'mixes'],
    code: [{ package: '@dv/train' }, stageFileCode('train-stage.ts')],
    config: trainer,
    // the trainer's sizing: ~0.5 s per step of 32 queries (config A) on 2 cores
    estimateSeconds: 5 + steps * 0.5 * (trainer.batch.batchSize / 32),
    async run(ctx) {
      const { trainRetriever } = await import('@dv/train');
      const pre = ctx.dep(initStage);
      const init = join(ctx.depDir(initStage), String(pre.summary.exportDir ?? EXPORT_DIR));
      const r = await trainRetriever({
        config: trainer,
        data: mixPath(ctx.depDir('mixes'), mix),
        init,
        out: ctx.dir,
        onEvent: trainProgress(ctx, `fine-tune ${mix}`),
        signal: ctx.signal,
      });
      ctx.log(`${r.steps} steps, final loss ${r.finalLoss.toFixed(4)}${r.resumed ? ' (resumed)' : ''}`);
      return {
        // checkpoints are the trainer's resume state, not results
        outputs: stageFiles(ctx.dir, { skipDirs: ['checkpoints'] }),
        summary: {
          exportDir: relative(ctx.dir, r.exportDir),
          steps: r.steps,
          finalLoss: r.finalLoss,
          resumed: r.resumed,
        },
      };
    },
  };
}
