/**
 * Stage `synth`: complementary instructions for the train seeds (for the mixes) and for the
 * first `devPairs` dev seeds (for the complement-view accuracy), with the offline reverser and
 * the configured judge from @dv/synth's judge registry; the same library entry `dv synth` calls (@dv/synth runSynthesis). Each run
 * resumes from its journal after a crash.
 */
import { join } from 'node:path';
import { type RunConfig, synthesisJudgeOf } from '@dv/core';
import { MINI_FILES } from '@dv/data';
import { createJudge, createOfflineReverser, getTemplate, type Judge, runSynthesis } from '@dv/synth';
import { stageFiles } from '../internal/stage-files.js';
import type { StageSpec } from '../stage.js';
import { stageFileCode } from '../stage-code.js';

export const SYNTH_DIRS = { train: 'train', dev: 'dev' } as const;

export function synthStage(config: Pick<RunConfig, 'synthesis' | 'world' | 'train'>): StageSpec {
  // the synthesis run's own settings (the dev-pair count and the judge are this stage's)
  const { devPairs, judge: _judge, judgeThreshold, ...synthesis } = config.synthesis;
  const judgeName = synthesisJudgeOf(config.synthesis);
  return {
    id: 'synth',
    group: 'synth',
    deps: ['world'],
    code: [{ package: '@dv/synth' }, stageFileCode('synth-stage.ts')],
    config: {
      judge: judgeName,
      judgeThreshold,
      devPairs,
      templateId: synthesis.templateId,
      model: 'offline-reverser',
    },
    estimateSeconds: 2 + (config.world.trainLemmas ?? 8800) / 800,
    async run(ctx) {
      const world = ctx.depDir('world');
      const template = getTemplate(synthesis.templateId);
      const judge: Judge | undefined =
        judgeName === 'none' ? undefined : createJudge(judgeName, judgeThreshold);
      const summaries: Record<string, unknown> = {};
      for (const [split, seeds, limit] of [
        ['train', MINI_FILES.seedsTrain, undefined],
        ['dev', MINI_FILES.seedsDev, devPairs],
      ] as const) {
        if (limit === 0) continue;
        const s = await runSynthesis({
          seedsPath: join(world, seeds),
          outDir: join(ctx.dir, SYNTH_DIRS[split]),
          backend: createOfflineReverser({ model: 'offline-reverser' }),
          template,
          model: 'offline-reverser',
          ...(judge ? { judge } : {}),
          concurrency: 1,
          ...(limit !== undefined ? { limit } : {}),
          progressMode: 'silent',
          formatter: config.train.formatter,
          config: { ...synthesis, model: 'offline-reverser', judge: judgeName },
          command: ['dv', 'reproduce'],
          signal: ctx.signal,
        });
        ctx.log(
          `${split}: ${s.seeds} seeds, accepted ${s.accepted} (${(100 * s.acceptanceRate).toFixed(1)}%)`,
        );
        summaries[split] = {
          seeds: s.seeds,
          accepted: s.accepted,
          none: s.none,
          rejected: s.rejected,
          failed: s.failed,
          acceptanceRate: s.acceptanceRate,
          byLever: s.byLever,
          byReason: s.byReason,
          verification: s.verification,
        };
        await ctx.checkpoint(`synth ${split} done`);
      }
      return { outputs: stageFiles(ctx.dir), summary: summaries };
    },
  };
}
