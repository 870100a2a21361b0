/**
 * Stage `eval/<model>` (paper profile): one model on every configured Hub benchmark (FollowIR,
 * InfoSearch, MAIR) through the task registry: the sets the `benchmarks` stage laid out, read by
 * loadBenchmarkSets and scored by runBenchmark with each set's registered task (FollowIR Score =
 * MAP@1000 for Robust04 / Core17, nDCG@5 for News21; p-MRR; InfoSearch p-MRR; MAIR nDCG@10).
 * Results go to `<benchmark>/` (per-set result JSON, runs, summary.json, manifest.json); a
 * benchmark is final once its summary.json exists, so a resumed stage starts at the next one.
 * The measures it logs are the ones the registry reports for each benchmark, main measure first.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PaperBenchmark, RunConfig } from '@dv/core';
import { BENCHMARKS, loadBenchmarkSets, runBenchmark, taskEntry } from '@dv/eval';
import { makeRanker } from '../../internal/make-ranker.js';
import { paperBenchmarks, requirePaper } from '../../internal/paper-hub.js';
import { stageFiles } from '../../internal/stage-files.js';
import type { EvalOutput } from '../../report/result-record.js';
import type { StageSpec } from '../../stage.js';
import { stageFileCode } from '../../stage-code.js';
import type { ModelRef } from '../eval-stage.js';
import { BENCHMARK_DATA, BENCHMARKS_STAGE } from './benchmarks-stage.js';

/** What each folder of a paper-profile eval stage holds: one configured benchmark, in `<benchmark>/`. */
export function hubEvalOutputs(benchmarks: readonly PaperBenchmark[]): EvalOutput[] {
  return benchmarks.map((b) => ({ benchmark: b, dir: b }));
}

/** A benchmark's main measure (its tasks' registered `mainMeasure`) and the other measures it reports. */
function loggedMeasures(b: PaperBenchmark): { measure: string; name: string }[] {
  const main = taskEntry(BENCHMARKS[b].tasks[0]!).mainMeasure;
  const reported = BENCHMARKS[b].reported.filter((m) => !('split' in m));
  const first = reported.find((m) => m.measure === main) ?? { measure: main, name: main };
  return [first, ...reported.filter((m) => m !== first)];
}

export function hubEvalStage(
  config: Pick<RunConfig, 'paper' | 'eval' | 'train'>,
  model: ModelRef,
): StageSpec {
  requirePaper(config);
  const benchmarks = paperBenchmarks(config);
  const dense = model.kind === 'untrained' || model.kind === 'trained';
  return {
    id: `eval/${model.id}`,
    group: 'eval',
    deps: [BENCHMARKS_STAGE, ...(dense ? [model.stage] : [])],
    code: [{ package: '@dv/eval' }, stageFileCode('paper/hub-eval-stage.ts')],
    config: {
      eval: config.eval,
      formatter: config.train.formatter,
      model: model.id,
      benchmarks,
    },
    estimateSeconds: dense ? 600 : 60,
    async run(ctx) {
      let encoded = 0;
      const progress = ctx.progress('encode', undefined, 'texts');
      const dir = dense ? join(ctx.depDir(model.stage), model.exportDir) : null;
      const ranker = await makeRanker({
        dir,
        encoder: config.eval.encoder,
        formatter: config.train.formatter,
        maxLength: config.eval.maxLength,
        batchSize: config.eval.batchSize,
        runDir: ctx.runDir,
        onNote: ctx.log,
        onEncode: (_k, done, total) => {
          if (done !== total) return;
          encoded += total;
          progress.update(encoded);
        },
      });
      const spec = dir ? `${config.eval.encoder}:${dir}` : 'bm25';
      for (const b of benchmarks) {
        const out = join(ctx.dir, b);
        if (existsSync(join(out, 'summary.json'))) continue;
        const sets = await loadBenchmarkSets(BENCHMARKS[b], {
          data: join(ctx.depDir(BENCHMARKS_STAGE), BENCHMARK_DATA, b),
        });
        const s = await runBenchmark(sets, ranker, {
          benchmark: BENCHMARKS[b],
          outDir: out,
          command: ['dv', 'reproduce', '--profile', 'paper'],
          config: { model: model.id, spec },
        });
        const shown = loggedMeasures(b).map(
          (m) => `${m.name} ${(100 * (s.average[m.measure] ?? Number.NaN)).toFixed(2)}`,
        );
        ctx.log(`${b}: ${shown.join(', ')} over ${sets.length} sets`);
        await ctx.checkpoint(`${b} done`);
      }
      progress.done();
      return { outputs: stageFiles(ctx.dir), summary: { model: model.id, ranker: ranker.name } };
    },
  };
}
