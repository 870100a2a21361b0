/**
 * Stage `train/<backbone>/<mix>/seed-<s>` when `paper.compute` is `scale-out`: instead of training
 * here, the mix is exported for the distributed engine (@dv/train exportForEngine, the library
 * call of `dv train export --engine E`): the engine's training file, our trainer's settings for
 * this seed, and `launch.sh` with the launch line. The run stops after these stages and prints
 * the launch instructions (run-reproduce.ts). Where a launcher is found the engine trains here
 * instead (engine-train-stage.ts).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { RunConfig } from '@dv/core';
import { ST_SCRIPT } from '@dv/train';
import { requirePaper } from '../../internal/paper-hub.js';
import { stageFiles } from '../../internal/stage-files.js';
import type { StageSpec } from '../../stage.js';
import { stageFileCode } from '../../stage-code.js';
import { type MixName, mixPath } from '../mixes-stage.js';
import { BACKBONE_EXPORT, backboneStageId } from './backbone-stage.js';

/**
 * The shipped training script's digest, as the stage salt: code digests hash TypeScript and
 * JSON only, and `dv_st_train.py` (copied into every export, run by the engine) is code too.
 */
export function engineScriptSalt(): string {
  return `dv_st_train.py ${createHash('sha256').update(readFileSync(ST_SCRIPT)).digest('hex')}`;
}

export function engineExportStage(
  config: RunConfig,
  backbone: string,
  mix: MixName,
  seed: number,
): StageSpec {
  const paper = requirePaper(config);
  const scaleOut = paper.scaleOut ?? {
    command: 'torchrun',
    engine: 'sentence-transformers' as const,
    nprocPerNode: 1,
  };
  const trainer = { ...config.train, seed };
  const init = backboneStageId(backbone);
  return {
    id: `train/${backbone}/${mix}/seed-${seed}`,
    group: 'train',
    deps: [init, 'mixes'],
    code: [{ package: '@dv/train' }, stageFileCode('paper/engine-export-stage.ts')],
    salt: engineScriptSalt(),
    config: { trainer, engine: scaleOut.engine, nprocPerNode: scaleOut.nprocPerNode },
    estimateSeconds: 5 + config.mixes.budget / 20_000,
    async run(ctx) {
      const { exportForEngine } = await import('@dv/train');
      const r = await exportForEngine({
        engine: scaleOut.engine,
        config: trainer,
        data: mixPath(ctx.depDir('mixes'), mix),
        init: join(ctx.depDir(init), String(ctx.dep(init).summary.exportDir ?? BACKBONE_EXPORT)),
        out: join(ctx.dir, 'engine'),
        nprocPerNode: scaleOut.nprocPerNode,
        command: ['dv', 'reproduce', '--profile', 'paper'],
      });
      ctx.log(`${scaleOut.engine}: ${r.rows} rows (${r.pairs} pairs); launch: ${r.launch}`);
      return {
        outputs: stageFiles(ctx.dir),
        summary: {
          engine: r.engine,
          rows: r.rows,
          pairs: r.pairs,
          launch: r.launch,
          launchScript: relative(ctx.dir, join(r.out, 'launch.sh')),
        },
      };
    },
  };
}
