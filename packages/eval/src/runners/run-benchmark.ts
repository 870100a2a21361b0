/**
 * Evaluates one ranker (a model) on one benchmark: for each InstructedSet, ranks every mode
 * (rank-modes.ts), scores it with the benchmark's profile under its registered task (an
 * unknown set is an error), and writes into `outDir`:
 *   <dataset>/<mode>.run         TREC runs (tag = model name)
 *   <dataset>.json               EvaluationResult (@dv/core schema)
 *   results/<model>/<revision>/<dataset>.json + model_meta.json
 *                                the same scores in mteb's results layout (results/mteb-results.ts)
 *   summary.json                 all results + the benchmark average of each score
 *   manifest.json                config, formatter, dataset revisions, timings, output digests
 */
import { join } from 'node:path';
import {
  EvaluationResult,
  type InstructedSet,
  resolveInside,
  writeJsonAtomic,
  writeManifest,
  writeRun,
} from '@dv/core';
import { plainMean } from '../metrics/followir-score.js';
import { mtebModelMeta, mtebTaskResult, writeMtebResults } from '../results/mteb-results.js';
import type { Ranker } from '../search/ranker.js';
import { type BenchmarkEntry, type TaskMetadata, taskForSet } from '../tasks/task-registry.js';
import { type BenchmarkEvent, describeBenchmarkEvent } from './benchmark-event.js';
import { benchmarkProfiles, type ScoreOptions } from './benchmark-profiles.js';
import { rankModes } from './rank-modes.js';

export interface RunBenchmarkOptions {
  /** The registered benchmark (tasks/task-registry.ts): its profile scores, its tasks match sets. */
  benchmark: BenchmarkEntry;
  /** Scoring options (e.g. the InfoSearch metric variant). */
  scoring?: ScoreOptions;
  outDir: string;
  /** Overrides the profile's retrieval depth. */
  topK?: number;
  /** Extra manifest fields. */
  command?: string[];
  config?: Record<string, unknown>;
  /** Progress as typed events (benchmark-event.ts). */
  onEvent?: (e: BenchmarkEvent) => void;
  /** Progress notes (one line per event, `describeBenchmarkEvent`). */
  log?: (line: string) => void;
  /**
   * A re-ranking applied to the ranker's runs before they are written and scored (a baseline
   * built on a first stage, e.g. baselines/lexical-rule.ts); results carry `<ranker>+<name>`.
   */
  postprocess?: {
    name: string;
    apply: (
      set: InstructedSet,
      runs: Awaited<ReturnType<typeof rankModes>>,
    ) => Awaited<ReturnType<typeof rankModes>>;
  };
}

export interface BenchmarkSummary {
  benchmark: string;
  model: string;
  results: EvaluationResult[];
  /** Plain mean over datasets of every score they all report. */
  average: Record<string, number>;
  outDir: string;
  manifest: string;
}

export async function runBenchmark(
  sets: readonly InstructedSet[],
  ranker: Ranker,
  options: RunBenchmarkOptions,
): Promise<BenchmarkSummary> {
  const bench = options.benchmark;
  const profile = benchmarkProfiles[bench.profile];
  const topK = options.topK ?? profile.topK;
  const emit = (e: BenchmarkEvent) => {
    options.onEvent?.(e);
    options.log?.(describeBenchmarkEvent(e));
  };
  const modelName = options.postprocess ? `${ranker.name}+${options.postprocess.name}` : ranker.name;
  const outputs: string[] = [];
  const results: EvaluationResult[] = [];
  const timings: Record<string, number> = {};
  const revisions: Record<string, string> = {};
  const mtebResults: ReturnType<typeof mtebTaskResult>[] = [];
  const started = performance.now();
  // Set names come from data (a --set file, a folder name): check them all before ranking.
  const where = (set: InstructedSet, file = '') =>
    resolveInside(options.outDir, `${set.name}${file}`, {
      what: 'set name',
      ...(set.origin ? { source: set.origin } : {}),
    });
  // Each set is scored by its registered task: an unknown set is an error before any work.
  const tasks = new Map<InstructedSet, TaskMetadata>();
  for (const set of sets) {
    where(set);
    tasks.set(set, taskForSet(bench, set.name, set.origin));
  }
  for (const set of sets) {
    const t0 = performance.now();
    if (profile.task === 'rerank' && !set.candidates)
      throw new Error(`${set.name}: ${bench.name} reranks candidate lists, and this set has none`);
    const ranked = await rankModes(set, ranker, {
      topK,
      onMode: (mode, n) => emit({ type: 'ranking', set: set.name, mode, queries: n }),
    });
    const runs = options.postprocess ? options.postprocess.apply(set, ranked) : ranked;
    for (const [mode, run] of Object.entries(runs)) {
      const path = join(where(set), `${mode}.run`);
      await writeRun(path, run!, modelName.replace(/\s+/g, '_'));
      outputs.push(path);
    }
    const task = tasks.get(set)!;
    const s = profile.score(set, runs, { ...options.scoring, task });
    const seconds = (performance.now() - t0) / 1000;
    timings[set.name] = seconds;
    if (set.origin) revisions[set.name] = set.revision ? `${set.origin}@${set.revision}` : set.origin;
    const result = EvaluationResult.parse({
      benchmark: bench.name,
      dataset: set.name,
      model: modelName,
      split: 'test',
      mainMetric: task.mainMeasure,
      mainScore: s.scores[task.mainMeasure],
      scores: s.scores,
      perQuery: s.perQuery,
      numQueries: s.numQueries,
      evaluationTimeSeconds: seconds,
      manifest: 'manifest.json',
      ...(revisions[set.name] ? { datasetSource: revisions[set.name] } : {}),
    });
    results.push(result);
    const resultPath = where(set, '.json');
    await writeJsonAtomic(resultPath, result);
    mtebResults.push(
      mtebTaskResult({
        // mteb's task name where the registry knows one (one file per task), else the set's.
        taskName: task.anySet ? set.name : task.name,
        datasetRevision: set.revision ?? (set.origin ? `local:${set.origin}` : 'no_revision_available'),
        evaluationTimeSeconds: seconds,
        scores: s.scores,
        mainMetric: task.mainMeasure,
      }),
    );
    outputs.push(resultPath);
    emit({
      type: 'set-done',
      set: set.name,
      index: results.length,
      total: sets.length,
      mainMeasure: task.mainMeasure,
      mainScore: result.mainScore,
      seconds,
    });
  }
  const keys = results.length
    ? Object.keys(results[0]!.scores).filter((k) => results.every((r) => k in r.scores))
    : [];
  const average = Object.fromEntries(keys.map((k) => [k, plainMean(results.map((r) => r.scores[k]!))]));
  const digest = ranker.settings.weightsSha256 ?? ranker.settings.modelSha256;
  outputs.push(
    ...(await writeMtebResults(
      join(options.outDir, 'results'),
      mtebModelMeta({
        name: modelName,
        revision: typeof digest === 'string' ? digest.slice(0, 12) : 'no_revision_available',
      }),
      mtebResults,
    )),
  );
  const summaryPath = join(options.outDir, 'summary.json');
  await writeJsonAtomic(summaryPath, {
    benchmark: bench.name,
    model: modelName,
    average,
    datasets: results.map((r) => ({ dataset: r.dataset, mainMetric: r.mainMetric, scores: r.scores })),
  });
  outputs.push(summaryPath);
  timings.total = (performance.now() - started) / 1000;
  const manifest = await writeManifest(options.outDir, {
    kind: 'eval-run',
    command: options.command,
    config: {
      benchmark: bench.name,
      profile: bench.profile,
      tasks: Object.fromEntries(sets.map((x) => [x.name, tasks.get(x)!.name])),
      task: profile.task,
      topK,
      scoring: options.scoring ?? {},
      model: modelName,
      modelSettings: ranker.settings,
      ...options.config,
    },
    formatter: ranker.formatter,
    datasetRevisions: revisions,
    timings,
    outputs,
  });
  return {
    benchmark: bench.name,
    model: modelName,
    results,
    average,
    outDir: options.outDir,
    manifest,
  };
}
