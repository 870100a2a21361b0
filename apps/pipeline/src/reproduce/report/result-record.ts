/**
 * The report's one result record: one model on one set of one registered benchmark (as mteb's
 * TaskResult, whose main score resolves through the task's metadata), with its measures and, per
 * measure the registry reports, its per-topic values. The report builds these from the files the
 * eval stage writes (collect-results.ts); nothing else in the report reads result files, and no
 * report file names a benchmark: which columns a benchmark has is the registry's word
 * (report-registry.ts).
 *
 * Values are fractions, as the eval stage stores them; the report multiplies by the measure's
 * `scale`. Per-topic values are keyed by topic id.
 *
 * Example: `{ model: 'bm25', benchmark: 'mini-followir', split: null, set: 'mini-followir',
 * task: 'mini-followir', measures: { 'p-MRR': 0.026, score: 0.61, ... }, perTopic: { 'p-MRR':
 * { 'mini-academy': 0.22, ... }, score: { ... } }, source: 'stages/eval/bm25/followir/mini-followir.json' }`
 */
import { z } from 'zod';

export const ResultRecord = z.object({
  /** The model's id (ModelRef.id). */
  model: z.string().min(1),
  /** The registry benchmark (report-registry.ts) the set belongs to. */
  benchmark: z.string().min(1),
  /** The split of the benchmark's queries it was measured on (null: the benchmark's own sets). */
  split: z.string().min(1).nullable(),
  /** The set (a result's `dataset`). */
  set: z.string().min(1),
  /** The registered task that scored it (null: none matched by name and the benchmark has several). */
  task: z.string().min(1).nullable(),
  /** Measure -> value (a fraction). */
  measures: z.record(z.string(), z.number()),
  /** Reported measure -> topic id -> value. */
  perTopic: z.record(z.string(), z.record(z.string(), z.number())),
  /** The file it was read from, relative to the run folder. */
  source: z.string().min(1),
});
export type ResultRecord = z.infer<typeof ResultRecord>;

/** What a folder's reader returns, before the record is tied to a model and a benchmark. */
export interface SetResult {
  set: string;
  /** A registered task name, or null to let the benchmark's tasks decide. */
  task: string | null;
  measures: Record<string, number>;
  /** perQuery rows (topic id -> key -> value), as EvaluationResult.perQuery. */
  perQuery: Record<string, Record<string, number>>;
  /** Absolute path of the file. */
  path: string;
}

/**
 * One folder of an eval stage and the benchmark (and split) whose results it holds. `read`
 * reads a folder that is not in runBenchmark's layout (`<set>.json` per set beside
 * summary.json); either way the folder's manifest.json is listed as a source after its results.
 */
export interface EvalOutput {
  benchmark: string;
  split?: string;
  dir: string;
  read?: (dir: string) => SetResult[];
}
