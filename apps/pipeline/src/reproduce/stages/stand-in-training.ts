/**
 * STAND-IN for the trainer (issue 10) while `pretrainMlm` / `trainRetriever` are not on this
 * branch: `pretrain` trains the WordPiece vocabulary and writes a randomly initialised backbone
 * (no MLM), `train` copies that backbone unchanged (no fine-tuning). Both stages carry
 * `standIn`, the runner prints STAND-IN and the report flags every number that comes from them.
 * Replaced by pretrain-stage.ts / train-stage.ts once the trainer lands; never a result.
 */
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { createRng, Passage, readJsonl, writeFileAtomic } from '@dv/core';
import { MINI_FILES } from '@dv/data';
import { stageFiles } from '../internal/stage-files.js';
import type { ReproduceConfig } from '../reproduce-config.js';
import type { StageSpec } from '../stage.js';
import { type MixName, mixPath } from './mixes-stage.js';

const STAND_IN = 'trainer not merged yet: random-init backbone, no MLM and no fine-tuning';
export const EXPORT_DIR = 'export';

export function standInPretrainStage(
  config: ReproduceConfig,
  backbone: ReproduceConfig['backbones'][number],
): StageSpec {
  return {
    id: `pretrain/${backbone}`,
    group: 'pretrain',
    deps: ['world'],
    version: 'stand-in-1',
    config: { ...config.pretrain, backbone },
    estimateSeconds: 10,
    standIn: STAND_IN,
    async run(ctx) {
      const train = await import('@dv/train');
      await train.initBackend();
      const texts: string[] = [];
      for await (const p of readJsonl(join(ctx.depDir('world'), MINI_FILES.corpus), Passage)) {
        texts.push(`${p.title ?? ''} ${p.text}`.trim());
        if (config.pretrain.maxTexts !== null && texts.length >= config.pretrain.maxTexts) break;
      }
      const tok = await train.trainWordPiece(texts, {
        vocabSize: config.pretrain.vocabSize,
        lowercase: true,
      });
      const tokPath = join(ctx.dir, 'tokenizer.json');
      await writeFileAtomic(tokPath, tok.json);
      const encoder = train.createMiniEncoder(backbone, {
        vocabSize: tok.vocabSize,
        seed: config.pretrain.seed,
        overrides: {
          pad_token_id: tok.padId,
          num_hidden_layers: config.pretrain.layers,
          hidden_size: config.pretrain.hidden,
          num_attention_heads: config.pretrain.hidden / 64,
        },
      });
      const out = join(ctx.dir, EXPORT_DIR);
      await train.exportHuggingFace(out, {
        config: encoder.config,
        weights: encoder.toWeights(),
        tokenizerJson: tokPath,
        pooling: 'cls',
        normalize: true,
        maxSeqLength: config.pretrain.maxLength,
        withOnnx: true,
      });
      encoder.dispose();
      void createRng;
      return { outputs: stageFiles(ctx.dir), summary: { exportDir: EXPORT_DIR, steps: 0, standIn: true } };
    },
  };
}

export function standInTrainStage(
  config: ReproduceConfig,
  backbone: ReproduceConfig['backbones'][number],
  mix: MixName,
  seed: number,
): StageSpec {
  return {
    id: `train/${backbone}/${mix}/seed-${seed}`,
    group: 'train',
    deps: [`pretrain/${backbone}`, 'mixes'],
    version: 'stand-in-1',
    config: { ...config.train, seed },
    estimateSeconds: 2,
    standIn: STAND_IN,
    async run(ctx) {
      void mixPath(ctx.depDir('mixes'), mix);
      cpSync(join(ctx.depDir(`pretrain/${backbone}`), EXPORT_DIR), join(ctx.dir, EXPORT_DIR), {
        recursive: true,
      });
      return { outputs: stageFiles(ctx.dir), summary: { exportDir: EXPORT_DIR, steps: 0, standIn: true } };
    },
  };
}
