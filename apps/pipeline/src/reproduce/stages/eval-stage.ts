/**
 * Stage `eval/<model>`: one model on the mini benchmarks, through the same @dv/eval calls as
 * `dv eval run` (createRanker + runBenchmark): the FollowIR-form benchmark, the InfoSearch-style
 * sets, and the held-out dev pairs (complement-view accuracy). Models: `bm25`, each backbone
 * before fine-tuning (`<backbone>/untrained`, the MLM-pretrained export) and every fine-tuned
 * model (`<backbone>/<mix>/seed-<s>`), the dense ones as `onnx:DIR`.
 * Each benchmark's results are final once its summary.json exists, so a resumed stage starts at
 * the first benchmark without one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  DualViewExample,
  type RunConfig,
  readJsonlAll,
  SeedExample,
  writeJsonAtomic,
  writeManifest,
  writeRun,
} from '@dv/core';
import { loadMiniWorld, MINI_FILES } from '@dv/data';
import { applyLexicalRule, benchmarkEntry, rankModes, runBenchmark } from '@dv/eval';
import { makeRanker } from '../internal/make-ranker.js';
import { stageFiles } from '../internal/stage-files.js';
import type { EvalOutput, SetResult } from '../report/result-record.js';
import type { StageSpec } from '../stage.js';
import { stageFileCode } from '../stage-code.js';
import { complementViewAccuracy } from '../stats/complement-view-accuracy.js';
import { devPairsSet } from './dev-pairs-set.js';
import type { MixName } from './mixes-stage.js';
import { SYNTH_DIRS } from './synth-stage.js';

export const EVAL_DIRS = {
  followir: 'followir',
  followirSeen: 'followir-seen',
  infosearch: 'infosearch',
  devPairs: 'dev-pairs',
  /** Paper profile: the Hub MAIR benchmark (FollowIR and InfoSearch use the folders above). */
  mair: 'mair',
} as const;
export const DEV_PAIRS_RESULT = 'result.json';

/**
 * The held-out dev pairs as the report's registry knows a benchmark (report/report-registry.ts):
 * complement-view accuracy (stats/complement-view-accuracy.ts) is the pipeline's own measure,
 * not an @dv/eval task, so its entry lives beside the stage that writes it.
 */
export const DEV_PAIRS_BENCHMARK = Object.freeze({
  name: 'dev-pairs',
  tasks: ['dev-pairs'],
  reported: [
    { measure: 'viewAccuracy', name: 'view accuracy', label: 'dev view acc.' },
    { measure: 'bothRight', name: 'both right', label: 'dev both right' },
  ],
} as const);
export const DEV_PAIRS_TASK = Object.freeze({ name: 'dev-pairs', mainMeasure: 'viewAccuracy' } as const);

/** The dev-pairs folder's result (`result.json`) as the report's set result. */
function readDevPairs(dir: string): SetResult[] {
  const path = join(dir, DEV_PAIRS_RESULT);
  if (!existsSync(path)) return [];
  const d = JSON.parse(readFileSync(path, 'utf8')) as {
    viewAccuracy: number;
    bothRight: number;
    pairs: number;
  };
  return [
    {
      set: DEV_PAIRS_BENCHMARK.name,
      task: DEV_PAIRS_TASK.name,
      measures: { viewAccuracy: d.viewAccuracy, bothRight: d.bothRight, pairs: d.pairs },
      perQuery: {},
      path,
    },
  ];
}

/** What each folder of a mini-profile eval stage holds, in the report's column order. */
export const MINI_EVAL_OUTPUTS: readonly EvalOutput[] = Object.freeze([
  { benchmark: 'mini-followir', dir: EVAL_DIRS.followir },
  { benchmark: 'mini-followir', split: 'seen', dir: EVAL_DIRS.followirSeen },
  { benchmark: 'mini-infosearch', dir: EVAL_DIRS.infosearch },
  { benchmark: DEV_PAIRS_BENCHMARK.name, dir: EVAL_DIRS.devPairs, read: readDevPairs },
]);

export type ModelRef =
  | { id: 'bm25'; kind: 'bm25' }
  /** BM25 re-ranked by the word-matching rule (@dv/eval baselines/lexical-rule.ts): FollowIR-form only. */
  | { id: 'lexical-rule'; kind: 'lexical' }
  | { id: string; kind: 'untrained'; backbone: string; stage: string; exportDir: string }
  | {
      id: string;
      kind: 'trained';
      backbone: string;
      mix: MixName;
      seed: number;
      stage: string;
      exportDir: string;
    };

export function evalStage(
  config: Pick<RunConfig, 'eval' | 'world' | 'train' | 'synthesis'>,
  model: ModelRef,
): StageSpec {
  const dense = model.kind === 'untrained' || model.kind === 'trained';
  const lexical = model.kind === 'lexical';
  const postprocess = lexical ? { postprocess: { name: 'lexical-rule', apply: applyLexicalRule } } : {};
  return {
    id: `eval/${model.id}`,
    group: 'eval',
    deps: ['world', 'synth', ...(dense ? [model.stage] : [])],
    code: [{ package: '@dv/eval' }, stageFileCode('eval-stage.ts')],
    config: { eval: config.eval, formatter: config.train.formatter, model: model.id },
    estimateSeconds: dense ? 8 + (config.world.testLemmas * config.world.candidates) / 3000 : 5,
    async run(ctx) {
      const world = await loadMiniWorld(ctx.depDir('world'));
      let encoded = 0;
      const progress = ctx.progress('encode', undefined, 'texts');
      const spec = dense
        ? `${config.eval.encoder}:${join(ctx.depDir(model.stage), model.exportDir)}`
        : 'bm25';
      const onEncode = (_kind: string, done: number, total: number) => {
        if (done === total) {
          encoded += total;
          progress.update(encoded);
        }
      };
      // As `dv eval run --model tfjs:DIR | onnx:DIR | bm25` (createRanker), with an explicit max
      // length and batches of similar lengths; the embedding cache lets the seen-wording split
      // reuse the corpus embeddings.
      const ranker = await makeRanker({
        dir: dense ? join(ctx.depDir(model.stage), model.exportDir) : null,
        encoder: config.eval.encoder,
        formatter: config.train.formatter,
        maxLength: config.eval.maxLength,
        batchSize: config.eval.batchSize,
        runDir: ctx.runDir,
        onNote: ctx.log,
        onEncode,
      });
      const summary: Record<string, unknown> = { model: model.id, ranker: ranker.name };
      const common = { command: ['dv', 'reproduce'], config: { model: model.id, spec } };
      if (config.eval.benchmarks.includes('mini-followir')) {
        const out = join(ctx.dir, EVAL_DIRS.followir);
        if (!existsSync(join(out, 'summary.json'))) {
          const sets = [await world.loadFollowIR()];
          const s = await runBenchmark(sets, ranker, {
            benchmark: benchmarkEntry('mini-followir'),
            outDir: out,
            ...common,
            ...postprocess,
          });
          ctx.log(
            `FollowIR-form: p-MRR ${(100 * s.average['p-MRR']!).toFixed(2)}, Score ${(100 * s.average.score!).toFixed(2)}`,
          );
        }
        await ctx.checkpoint('followir done');
        // the seen-wording split (train-pool templates; mini world v3 and later)
        const seenOut = join(ctx.dir, EVAL_DIRS.followirSeen);
        const seen = existsSync(join(seenOut, 'summary.json')) ? null : await world.loadFollowIRSeen();
        if (seen) {
          const s = await runBenchmark([seen], ranker, {
            benchmark: benchmarkEntry('mini-followir'),
            outDir: seenOut,
            ...common,
            ...postprocess,
          });
          ctx.log(`FollowIR-form, seen wording: p-MRR ${(100 * s.average['p-MRR']!).toFixed(2)}`);
        }
      }
      // the rule reads the FollowIR-form changed instruction; InfoSearch and dev pairs are not its form
      if (config.eval.benchmarks.includes('mini-infosearch') && !lexical) {
        const out = join(ctx.dir, EVAL_DIRS.infosearch);
        if (!existsSync(join(out, 'summary.json'))) {
          const sets = (await Promise.all(world.levers.map((l) => world.loadInfoSearch(l)))).filter(
            (s) => s.queries.length > 0,
          );
          const s = await runBenchmark(sets, ranker, {
            benchmark: benchmarkEntry('mini-infosearch'),
            outDir: out,
            ...common,
          });
          ctx.log(
            `InfoSearch-style: p-MRR ${(100 * s.average['p-MRR']!).toFixed(2)} over ${sets.length} levers`,
          );
        }
        await ctx.checkpoint('infosearch done');
      }
      if (config.eval.viewAccuracy && config.synthesis.devPairs > 0 && !lexical) {
        const out = join(ctx.dir, EVAL_DIRS.devPairs);
        if (!existsSync(join(out, DEV_PAIRS_RESULT))) {
          const seeds = await readJsonlAll(join(ctx.depDir('world'), MINI_FILES.seedsDev), SeedExample);
          const complements = await readJsonlAll(
            join(ctx.depDir('synth'), SYNTH_DIRS.dev, 'complement.jsonl'),
            DualViewExample,
          );
          const set = devPairsSet(seeds, complements);
          const runs = await rankModes(set, ranker, { topK: 100 });
          const acc = complementViewAccuracy({
            qrelsOg: set.qrels.og!,
            qrelsChanged: set.qrels.changed!,
            runOg: runs.og!,
            runChanged: runs.changed!,
          });
          const files = [join(out, 'og.run'), join(out, 'changed.run')];
          await writeRun(files[0]!, runs.og!, ranker.name.replace(/\s+/g, '_'));
          await writeRun(files[1]!, runs.changed!, ranker.name.replace(/\s+/g, '_'));
          await writeJsonAtomic(join(out, DEV_PAIRS_RESULT), {
            model: model.id,
            ranker: ranker.name,
            ...acc,
          });
          await writeManifest(out, {
            kind: 'dev-pairs-accuracy',
            config: { model: model.id, spec, pairs: acc.pairs },
            formatter: ranker.formatter,
            outputs: [...files, join(out, DEV_PAIRS_RESULT)],
          });
          ctx.log(
            `dev pairs: view accuracy ${(100 * acc.viewAccuracy).toFixed(1)}%, both right ${(100 * acc.bothRight).toFixed(1)}% of ${acc.pairs}`,
          );
        }
      }
      progress.done();
      return { outputs: stageFiles(ctx.dir), summary };
    },
  };
}
