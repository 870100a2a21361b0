/**
 * Reads every evaluated model's result files back from the run folder into result records
 * (result-record.ts): one per (model, set), tied to its registry benchmark and task. The report
 * computes nothing from memory: each number traces to a file listed in `sources`. Which folder
 * holds which benchmark is the eval stage's word (`EvalOutput`); which measures matter is the
 * registry's (report-registry.ts). Values are fractions here; the report scales them.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { EvaluationResult } from '@dv/core';
import { perQueryKey } from '@dv/eval';
import type { ModelRef } from '../stages/eval-stage.js';
import { type ReportRegistry, reportBenchmark } from './report-registry.js';
import { type EvalOutput, ResultRecord, type SetResult } from './result-record.js';

export interface ModelResults {
  model: ModelRef;
  records: ResultRecord[];
  /** Result files (relative to the run folder) each number came from. */
  sources: string[];
}

/** The per-set result files runBenchmark wrote in `dir` (`<set>.json`), sorted; none before its summary.json. */
export function readSetResults(dir: string): SetResult[] {
  if (!existsSync(join(dir, 'summary.json'))) return [];
  return readdirSync(dir)
    .filter(
      (f) =>
        f.endsWith('.json') && !f.endsWith('.mteb.json') && f !== 'summary.json' && f !== 'manifest.json',
    )
    .sort()
    .map((f) => {
      const r = EvaluationResult.parse(JSON.parse(readFileSync(join(dir, f), 'utf8')));
      return {
        set: r.dataset,
        task: null,
        measures: r.scores,
        perQuery: r.perQuery ?? {},
        path: join(dir, f),
      };
    });
}

/**
 * One model's records from its eval stage folder `evalDir`. A set's task is the benchmark's task
 * of that name, else its only task; its per-topic values are kept for every measure the
 * benchmark reports (FollowIR's `score` per topic is the og run's Score measure: perQueryKey).
 */
export function collectModelResults(
  runDir: string,
  evalDir: string,
  model: ModelRef,
  outputs: readonly EvalOutput[],
  registry: ReportRegistry,
): ModelResults {
  const out: ModelResults = { model, records: [], sources: [] };
  for (const o of outputs) {
    const dir = join(evalDir, o.dir);
    const sets = (o.read ?? readSetResults)(dir);
    if (sets.length === 0) continue;
    const bench = reportBenchmark(registry, o.benchmark);
    const reported = [
      ...new Set(bench.reported.filter((m) => (m.split ?? null) === (o.split ?? null)).map((m) => m.measure)),
    ];
    for (const s of sets) {
      const taskName =
        s.task ?? bench.tasks.find((t) => t === s.set) ?? (bench.tasks.length === 1 ? bench.tasks[0]! : null);
      const task = taskName === null ? undefined : registry.tasks[taskName];
      const perTopic: Record<string, Record<string, number>> = {};
      for (const m of reported) {
        const key = task ? perQueryKey(task, m) : m;
        const values: Record<string, number> = {};
        for (const [q, row] of Object.entries(s.perQuery)) if (row[key] !== undefined) values[q] = row[key];
        if (Object.keys(values).length) perTopic[m] = values;
      }
      out.records.push(
        ResultRecord.parse({
          model: model.id,
          benchmark: o.benchmark,
          split: o.split ?? null,
          set: s.set,
          task: taskName,
          measures: s.measures,
          perTopic,
          source: relative(runDir, s.path),
        }),
      );
      out.sources.push(relative(runDir, s.path));
    }
    out.sources.push(relative(runDir, join(dir, 'manifest.json')));
  }
  return out;
}
