/** Stage `world`: the mini world (@dv/data buildMiniWorld) with the run's sizes. */

import type { RunConfig } from '@dv/core';
import { buildMiniWorld } from '@dv/data';
import { stageFiles } from '../internal/stage-files.js';
import type { StageSpec } from '../stage.js';
import { stageFileCode } from '../stage-code.js';

export function worldStage(config: Pick<RunConfig, 'world'>): StageSpec {
  return {
    id: 'world',
    group: 'world',
    deps: [],
    code: [{ package: '@dv/data' }, stageFileCode('world-stage.ts')],
    config: config.world,
    estimateSeconds: 10,
    async run(ctx) {
      const r = await buildMiniWorld({
        ...config.world,
        out: ctx.dir,
        progress: 'silent',
        command: ['dv', 'reproduce'],
      });
      const s = r.stats;
      ctx.log(
        `${s.corpus.documents} entries; lemmas train ${s.splits.train} / dev ${s.splits.dev} / test ${s.splits.test}; FollowIR-form topics ${s.followir.topics}`,
      );
      return {
        outputs: stageFiles(ctx.dir),
        summary: {
          documents: s.corpus.documents,
          lemmas: s.splits,
          seedsTrain: s.seeds.train.examples,
          seedsDev: s.seeds.dev.examples,
          general: s.general.examples,
          followirTopics: s.followir.topics,
          infosearchTopics: Object.fromEntries(Object.entries(s.infosearch).map(([k, v]) => [k, v.topics])),
        },
      };
    },
  };
}
