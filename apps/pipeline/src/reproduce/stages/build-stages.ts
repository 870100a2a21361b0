/**
 * The mini profile's DAG: world -> synth -> mixes; world -> pretrain/<backbone> (one per seed,
 * pretrain/<backbone>/seed-<s>, with `pretrain.perSeed`); (pretrain, mixes) ->
 * train/<backbone>/<mix>/seed-<s>; every model -> eval/<model>; all of it
 * -> report.
 */
import type { MINI_BACKBONES, RunConfig } from '@dv/core';

type MiniBackbone = (typeof MINI_BACKBONES)[number];

import type { StageSpec } from '../stage.js';
import { evalStage, type ModelRef } from './eval-stage.js';
import { mixesOf, mixesStage } from './mixes-stage.js';
import { EXPORT_DIR, pretrainStage, pretrainStageId } from './pretrain-stage.js';
import { reportStage } from './report-stage.js';
import { synthStage } from './synth-stage.js';
import { trainStage } from './train-stage.js';
import { worldStage } from './world-stage.js';

/**
 * Every model a run evaluates: BM25 and each backbone's untrained models (when
 * `eval.baselines`; `untrained(backbone)` says where a profile's come from), then each trained
 * backbone x mix x seed.
 */
export function modelRefs(config: RunConfig, untrained: (backbone: string) => ModelRef[]): ModelRef[] {
  const models: ModelRef[] = [];
  if (config.eval.baselines) {
    models.push({ id: 'bm25', kind: 'bm25' });
    for (const backbone of config.backbones) models.push(...untrained(backbone));
  }
  for (const backbone of config.backbones)
    for (const mix of mixesOf(config))
      for (const seed of config.seeds)
        models.push({
          id: `${backbone}/${mix}/seed-${seed}`,
          kind: 'trained',
          backbone,
          mix,
          seed,
          stage: `train/${backbone}/${mix}/seed-${seed}`,
          exportDir: EXPORT_DIR,
        });
  return models;
}

/**
 * The mini profile's untrained models of a backbone: its pretrain stage's export, one per seed
 * with `pretrain.perSeed` (`<backbone>/untrained/seed-<s>`), else one (`<backbone>/untrained`).
 */
function miniUntrainedRefs(config: RunConfig, backbone: string): ModelRef[] {
  const seeds: (number | undefined)[] = config.pretrain.perSeed ? config.seeds : [undefined];
  return seeds.map((seed) => ({
    id: seed === undefined ? `${backbone}/untrained` : `${backbone}/untrained/seed-${seed}`,
    kind: 'untrained',
    backbone,
    stage: pretrainStageId(config, backbone, seed ?? config.pretrain.seed),
    exportDir: EXPORT_DIR,
  }));
}

export function buildMiniStages(config: RunConfig): StageSpec[] {
  const stages: StageSpec[] = [worldStage(config), synthStage(config), mixesStage(config)];
  for (const backbone of config.backbones as MiniBackbone[])
    if (config.pretrain.perSeed)
      for (const seed of config.seeds) stages.push(pretrainStage(config, backbone, seed));
    else stages.push(pretrainStage(config, backbone));
  for (const backbone of config.backbones)
    for (const mix of mixesOf(config))
      for (const seed of config.seeds)
        stages.push(trainStage(config, backbone, mix, seed, pretrainStageId(config, backbone, seed)));
  const models = modelRefs(config, (backbone) => miniUntrainedRefs(config, backbone));
  // the word-matching baseline beside BM25 (issue 26): what the mini benchmark gives for free
  if (config.eval.baselines) models.splice(1, 0, { id: 'lexical-rule', kind: 'lexical' });
  for (const m of models) stages.push(evalStage(config, m));
  stages.push(reportStage(config, models, [...stages]));
  return stages;
}
