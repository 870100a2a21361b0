/**
 * The paper profile's DAG, over the same stage kinds as the mini profile:
 *   seeds (Promptriever from the Hub) -> synth (OpenAI-compatible endpoint) -> mixes;
 *   backbones/<name> (Hub) + mixes -> train/<backbone>/<mix>/seed-<s> (our trainer), or, with
 *   compute = scale-out, the engine run of each where a launcher is found (engine-train-stage.ts),
 *   else the engine export of each and a stop (scale-out-launcher.ts);
 *   benchmarks (task registry datasets from the Hub) + each model -> eval/<model>; all -> report.
 */

import type { RunConfig } from '@dv/core';
import { requirePaper } from '../../internal/paper-hub.js';
import { resolveScaleOutLaunch, type ScaleOutLaunch } from '../../scale-out-launcher.js';
import type { StageSpec } from '../../stage.js';
import { modelRefs } from '../build-stages.js';
import type { ModelRef } from '../eval-stage.js';
import { mixesOf, mixesStage } from '../mixes-stage.js';
import { reportStage } from '../report-stage.js';
import { trainStage } from '../train-stage.js';
import { BACKBONE_EXPORT, backboneStage, backboneStageId } from './backbone-stage.js';
import { benchmarksStage } from './benchmarks-stage.js';
import { endpointSynthStage } from './endpoint-synth-stage.js';
import { engineExportStage } from './engine-export-stage.js';
import { engineTrainStage } from './engine-train-stage.js';
import { hubEvalStage } from './hub-eval-stage.js';
import { SEEDS_STAGE, seedsStage } from './seeds-stage.js';

/** The paper profile's models: untrained backbones come from the Hub backbone stages. */
export function paperModelRefs(config: RunConfig): ModelRef[] {
  return modelRefs(config, (backbone) => [
    {
      id: `${backbone}/untrained`,
      kind: 'untrained',
      backbone,
      stage: backboneStageId(backbone),
      exportDir: BACKBONE_EXPORT,
    },
  ]);
}

export interface PaperStages {
  stages: StageSpec[];
  models: ModelRef[];
  /** Training is handed to a scale-out engine: the DAG ends with the exports. */
  scaleOut: boolean;
  /** compute = scale-out with a launcher found: the engine trains in the DAG (null otherwise). */
  launch: ScaleOutLaunch | null;
}

export interface BuildPaperOptions {
  /** The scale-out launcher (default: resolveScaleOutLaunch from the config and environment). */
  launch?: ScaleOutLaunch | null;
}

export function buildPaperStages(config: RunConfig, o: BuildPaperOptions = {}): PaperStages {
  const paper = requirePaper(config);
  const launch =
    paper.compute !== 'scale-out' ? null : o.launch !== undefined ? o.launch : resolveScaleOutLaunch(paper);
  const stages: StageSpec[] = [
    seedsStage(config),
    endpointSynthStage(config),
    mixesStage(config, SEEDS_STAGE),
  ];
  for (const backbone of config.backbones) stages.push(backboneStage(config, backbone));
  const scaleOut = paper.compute === 'scale-out' && !launch;
  for (const backbone of config.backbones)
    for (const mix of mixesOf(config))
      for (const seed of config.seeds)
        stages.push(
          launch
            ? engineTrainStage(config, backbone, mix, seed, launch)
            : scaleOut
              ? engineExportStage(config, backbone, mix, seed)
              : trainStage(config, backbone, mix, seed, backboneStageId(backbone)),
        );
  if (scaleOut) return { stages, models: [], scaleOut, launch: null };
  stages.push(benchmarksStage(config));
  const models = paperModelRefs(config);
  for (const m of models) stages.push(hubEvalStage(config, m));
  stages.push(reportStage(config, models, [...stages]));
  return { stages, models, scaleOut, launch };
}
