/**
 * The registry the report reads: @dv/eval's benchmarks and tasks (what each reports: measures,
 * labels, scale, main measure) plus the pipeline's own evaluations in the same shape (the dev
 * pairs' complement-view accuracy, eval-stage.ts). The report's grid has one column per
 * (benchmark, measure[, split]) the registry declares as reported, for each benchmark the run
 * evaluated; a finding names `{ benchmark, measure }` and is resolved here.
 *
 * `buildReport` takes a registry argument (default `REPORT_REGISTRY`), so a report can be built
 * against another registry (a new benchmark, a test's fake one) without report code changing.
 */
import { BENCHMARKS, type ReportedMeasure, TASKS, type TaskMetadata } from '@dv/eval';
import { DEV_PAIRS_BENCHMARK, DEV_PAIRS_TASK } from '../stages/eval-stage.js';
import type { EvalOutput } from './result-record.js';

/** What the report needs of a benchmark entry (@dv/eval BenchmarkEntry has it). */
export interface ReportBenchmark {
  readonly name: string;
  readonly tasks: readonly string[];
  readonly reported: readonly ReportedMeasure[];
  readonly standsFor?: string;
  readonly breakdown?: string;
}

/** What the report needs of a task entry (@dv/eval TaskMetadata has it). */
export type ReportTask = Pick<TaskMetadata, 'name' | 'mainMeasure'> &
  Partial<Pick<TaskMetadata, 'scoreMeasure'>>;

export interface ReportRegistry {
  readonly benchmarks: Readonly<Record<string, ReportBenchmark>>;
  readonly tasks: Readonly<Record<string, ReportTask>>;
}

export const REPORT_REGISTRY: ReportRegistry = Object.freeze({
  benchmarks: Object.freeze({ ...BENCHMARKS, [DEV_PAIRS_BENCHMARK.name]: DEV_PAIRS_BENCHMARK }),
  tasks: Object.freeze({ ...TASKS, [DEV_PAIRS_TASK.name]: DEV_PAIRS_TASK }),
});

/** One column of the report's grid. `key` names it in TableRow.values and results.json. */
export interface Column extends ReportedMeasure {
  benchmark: string;
  key: string;
  scale: number;
}

export const columnKey = (benchmark: string, measure: string, split?: string | null) =>
  `${benchmark}/${measure}${split ? `@${split}` : ''}`;

export function reportBenchmark(registry: ReportRegistry, name: string): ReportBenchmark {
  const b = registry.benchmarks[name];
  if (!b)
    throw new Error(
      `benchmark '${name}' is not in the report's registry (${Object.keys(registry.benchmarks).join(', ')})`,
    );
  return b;
}

/** The grid's columns: per evaluated folder, its benchmark's reported measures on that split. */
export function reportColumns(registry: ReportRegistry, outputs: readonly EvalOutput[]): Column[] {
  return outputs.flatMap((o) =>
    reportBenchmark(registry, o.benchmark)
      .reported.filter((m) => (m.split ?? null) === (o.split ?? null))
      .map((m) => ({
        ...m,
        benchmark: o.benchmark,
        scale: m.scale ?? 100,
        key: columnKey(o.benchmark, m.measure, m.split),
      })),
  );
}

/**
 * The benchmark of this run a finding's benchmark names: itself where the run evaluated it, else
 * the evaluated one that stands for it (the mini world's FollowIR form for `followir`), else null.
 */
export function resolveBenchmark(
  registry: ReportRegistry,
  outputs: readonly EvalOutput[],
  name: string,
): string | null {
  const run = [...new Set(outputs.map((o) => o.benchmark))];
  return run.find((b) => b === name) ?? run.find((b) => registry.benchmarks[b]?.standsFor === name) ?? null;
}

/** A benchmark's main measure: its tasks' `mainMeasure` (the first task's), else its first reported one. */
export function mainMeasure(registry: ReportRegistry, benchmark: string): string {
  const b = reportBenchmark(registry, benchmark);
  const task = b.tasks[0] === undefined ? undefined : registry.tasks[b.tasks[0]];
  const main = task?.mainMeasure ?? b.reported[0]?.measure;
  if (!main) throw new Error(`benchmark '${benchmark}' reports no measure`);
  return main;
}

/** The name a measure of a benchmark has in prose ("p-MRR", "Score"); the measure id otherwise. */
export function measureName(registry: ReportRegistry, benchmark: string | null, measure: string): string {
  const b = benchmark === null ? undefined : registry.benchmarks[benchmark];
  return b?.reported.find((m) => m.measure === measure && !m.split)?.name ?? measure;
}
