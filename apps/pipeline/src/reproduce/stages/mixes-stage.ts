/** Stage `mixes`: the four matched-budget mixes (@dv/synth writeMixes, as `dv synth mix`). */
import { join } from 'node:path';
import { DataMix, type RunConfig } from '@dv/core';
import { MINI_FILES } from '@dv/data';
import { writeMixes } from '@dv/synth';
import { stageFiles } from '../internal/stage-files.js';
import type { StageSpec } from '../stage.js';
import { stageFileCode } from '../stage-code.js';
import { SYNTH_DIRS } from './synth-stage.js';

/** The paper's four mixes. */
export const MIXES = ['ins-orig', 'ins-dv', 'all-orig', 'all-dv'] as const satisfies readonly DataMix[];
/** The topic-matched control arms (@dv/synth mixes.ts), trained when `mixes.controls` is set. */
export const CONTROL_MIXES = ['ins-orig-tm', 'all-orig-tm'] as const satisfies readonly DataMix[];
/** Every mix a run can hold, in report order. */
export const ALL_MIXES: readonly DataMix[] = DataMix.options;
export type MixName = DataMix;

/** The mixes a run builds and trains: the paper's four, plus the control arms when asked for. */
export function mixesOf(config: Pick<RunConfig, 'mixes'>): MixName[] {
  return [...MIXES, ...(config.mixes.controls ? CONTROL_MIXES : [])];
}

export function mixPath(mixesDir: string, mix: MixName): string {
  return join(mixesDir, mix, 'train.jsonl');
}

/** `source`: the stage holding the general data (`MINI_FILES.general`): the mini world, or the paper's seeds. */
export function mixesStage(config: Pick<RunConfig, 'mixes' | 'train'>, source = 'world'): StageSpec {
  return {
    id: 'mixes',
    group: 'mixes',
    deps: [source, 'synth'],
    code: [{ package: '@dv/synth' }, stageFileCode('mixes-stage.ts')],
    config: { ...config.mixes, formatter: config.train.formatter },
    estimateSeconds: 3,
    async run(ctx) {
      const res = await writeMixes({
        synthDir: join(ctx.depDir('synth'), SYNTH_DIRS.train),
        generalPath: join(ctx.depDir(source), MINI_FILES.general),
        outDir: ctx.dir,
        budget: config.mixes.budget,
        ...(config.mixes.instructionExamples !== undefined
          ? { instructionExamples: config.mixes.instructionExamples }
          : {}),
        seed: config.mixes.seed,
        formatter: config.train.formatter,
        mixes: mixesOf(config),
        command: ['dv', 'reproduce'],
      });
      const counts = Object.fromEntries(Object.entries(res).map(([k, { files: _f, ...c }]) => [k, c]));
      for (const [k, c] of Object.entries(counts))
        ctx.log(
          `${k}: ${c.total} (original ${c.original}, complement ${c.complement}, general ${c.general}; ${c.composition.queries} queries, ${c.composition.documents} documents)`,
        );
      return { outputs: stageFiles(ctx.dir), summary: { counts } };
    },
  };
}
