/**
 * The one task registry (as mteb's TaskMetadata): every evaluation task, declaratively, with
 * what moves its numbers pinned in one entry:
 *   - dataset: the @dv/data Hub entry it reads (repo + 40-hex revision live there, in
 *     HUB_DATASETS, the download catalogue; referenced here, never copied), or the mini world;
 *     FollowIR tasks also name the dataset mteb 2 evaluates (`sources.mteb2`: mteb's own copy,
 *     another repo and revision than the paper's), chosen with `TaskSource` (`dv eval run
 *     --source mteb2`); each result records the repo@commit it read (`datasetSource`);
 *   - layout: which @dv/data loader reads it;
 *   - profile: how it is scored (benchmark-profiles.ts) and its main measure;
 *   - scoreMeasure: FollowIR's per-dataset "Score" (Weller et al. 2024, arXiv 2403.15246; mteb
 *     FollowIR tasks): MAP@1000 for Robust04 and Core17, nDCG@5 for News21 (and the mini world).
 *
 * Benchmarks (`BENCHMARKS`) group tasks, and say what a report shows of them (`reported`: the
 * main measure first, then secondary ones, each with its column label; a column's value is the
 * plain mean over the benchmark's sets, as FollowIR's average); `dv eval run --benchmark NAME` and the presets name
 * them. A set is matched to its task by name or alias (a folder under `--data` may be named
 * `robust04`); a task with `anySet` scores every set given to it (MAIR's 100+ tasks, the mini
 * world's sets). A set that matches nothing is an error naming what is registered, never a
 * fallback (issue 12 item 9: Robust04 loaded with --data was scored with nDCG@5).
 */
import { DataError } from '@dv/core';
import { HUB_DATASETS, type HubDatasetEntry, type HubDatasetName } from '@dv/data';
import type { BenchmarkProfileName } from '../runners/benchmark-profiles.js';

export type TaskLayout = 'followir-v1' | 'infosearch' | 'mair' | 'mini-followir' | 'mini-infosearch';

/**
 * Which copy of a task's data to read: `paper` (default), the dataset its paper released (for
 * FollowIR `jhu-clsp/<name>-instructions`, the v1 layout, as mteb 1 evaluated it); `mteb2`, the
 * dataset mteb 2 evaluates (`mteb/<Task>InstructionRetrieval`, the v2 layout), so that scores
 * compare with mteb 2's leaderboard.
 */
export const TASK_SOURCES = ['paper', 'mteb2'] as const;
export type TaskSource = (typeof TASK_SOURCES)[number];

/** Another copy of a task's data: its Hub entry and the layout it is in. */
export interface TaskDataSource {
  readonly hub: HubDatasetName;
  readonly layout: 'followir-v2';
}

export interface TaskMetadata {
  /** The dataset name results carry (mteb's task name where there is one). */
  readonly name: string;
  /** Other names a set or a `--data` subfolder may have (compared case-insensitively). */
  readonly aliases: readonly string[];
  readonly description: string;
  /** The Hub datasets it reads, by @dv/data registry name (none: local or built data only). */
  readonly hub: readonly HubDatasetName[];
  readonly layout: TaskLayout;
  readonly profile: BenchmarkProfileName;
  /** The headline measure (a key of the result's `scores`). */
  readonly mainMeasure: string;
  /** FollowIR's Score measure (trec_eval name), for the followir profile. */
  readonly scoreMeasure?: string;
  /** Scores any set given to it (its set names come from the data). */
  readonly anySet?: boolean;
  /** Copies of the data other than `hub` (the `paper` source), by `TaskSource`. */
  readonly sources?: { readonly mteb2?: TaskDataSource };
}

const followir = (
  name: string,
  alias: string,
  hub: HubDatasetName,
  mteb2: HubDatasetName,
  scoreMeasure: 'map_cut.1000' | 'ndcg_cut.5',
): TaskMetadata => ({
  name,
  aliases: [alias, `followir-${alias}`, `${alias}-instructions`],
  description: `FollowIR ${alias}: rerank 1000 candidates; Score = ${scoreMeasure} of the og run, p-MRR`,
  hub: [hub],
  layout: 'followir-v1',
  profile: 'followir',
  mainMeasure: 'p-MRR',
  scoreMeasure,
  sources: { mteb2: { hub: mteb2, layout: 'followir-v2' } },
});

const infosearch = (dim: string, hub: HubDatasetName): TaskMetadata => ({
  name: `InfoSearch-${dim}`,
  aliases: [dim, `${dim}-v1`, `infosearch-${dim}`],
  description: `InfoSearch ${dim}: full-corpus retrieval in original / instructed / reversed modes`,
  hub: [hub],
  layout: 'infosearch',
  profile: 'infosearch',
  mainMeasure: 'p-MRR',
});

export const TASKS = Object.freeze({
  Robust04InstructionRetrieval: followir(
    'Robust04InstructionRetrieval',
    'robust04',
    'followir-robust04',
    // mteb 2's Robust04 task file pins jhu-clsp/robust04-instructions-mteb (see hub-datasets.ts)
    'followir-robust04-mteb',
    'map_cut.1000',
  ),
  News21InstructionRetrieval: followir(
    'News21InstructionRetrieval',
    'news21',
    'followir-news21',
    'followir-news21-mteb2',
    'ndcg_cut.5',
  ),
  Core17InstructionRetrieval: followir(
    'Core17InstructionRetrieval',
    'core17',
    'followir-core17',
    'followir-core17-mteb2',
    'map_cut.1000',
  ),
  'InfoSearch-Audience': infosearch('Audience', 'infosearch-audience'),
  'InfoSearch-Keyword': infosearch('Keyword', 'infosearch-keyword'),
  'InfoSearch-Format': infosearch('Format', 'infosearch-format'),
  'InfoSearch-Language': infosearch('Language', 'infosearch-language'),
  'InfoSearch-Length': infosearch('Length', 'infosearch-length'),
  'InfoSearch-Source': infosearch('Source', 'infosearch-source'),
  MAIR: {
    name: 'MAIR',
    aliases: [],
    description: 'MAIR: full-corpus retrieval, nDCG@10 (one set per task folder)',
    hub: ['mair-queries', 'mair-docs'],
    layout: 'mair',
    profile: 'mair',
    mainMeasure: 'ndcg_cut_10',
    anySet: true,
  },
  'mini-followir': {
    name: 'mini-followir',
    aliases: [],
    description: 'the mini world in FollowIR form: rerank candidates; Score = nDCG@5 of the og run, p-MRR',
    hub: [],
    layout: 'mini-followir',
    profile: 'followir',
    mainMeasure: 'p-MRR',
    scoreMeasure: 'ndcg_cut.5',
    anySet: true,
  },
  'mini-infosearch': {
    name: 'mini-infosearch',
    aliases: [],
    description: 'the mini world in InfoSearch form: one set per lever, three modes',
    hub: [],
    layout: 'mini-infosearch',
    profile: 'infosearch',
    mainMeasure: 'p-MRR',
    anySet: true,
  },
} as const satisfies Record<string, TaskMetadata>);

export type TaskName = keyof typeof TASKS;

/**
 * One measure a report shows for a benchmark: a column of its grid. Values are fractions in the
 * results and `scale` x larger in the report (100: percentage points).
 */
export interface ReportedMeasure {
  /** The key of a result's `scores` (per topic: of its `perQuery` rows, through `perQueryKey`). */
  readonly measure: string;
  /** Its name in prose and in paired differences ("p-MRR", "Score"). */
  readonly name: string;
  /** The column head. */
  readonly label: string;
  /** Multiplier from the stored fraction to the shown value (default 100). */
  readonly scale?: number;
  /** Measured on this split of the benchmark's queries rather than its own sets (the mini world's `seen` wording). */
  readonly split?: string;
}

export interface BenchmarkEntry {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly profile: BenchmarkProfileName;
  readonly tasks: readonly TaskName[];
  /** Where its sets come from, for help texts. */
  readonly source: string;
  /** What a report shows of it: the main measure first (the tasks' `mainMeasure`), then secondary ones. */
  readonly reported: readonly ReportedMeasure[];
  /** The benchmark whose form it has (the mini world's stand-ins): a claim about that one is checked on this one. */
  readonly standsFor?: string;
  /** The report's label for its breakdown of the main measure (per set, or per changed lever). */
  readonly breakdown?: string;
}

export const BENCHMARKS = Object.freeze({
  followir: {
    name: 'followir',
    aliases: [],
    profile: 'followir',
    tasks: ['Robust04InstructionRetrieval', 'News21InstructionRetrieval', 'Core17InstructionRetrieval'],
    source:
      'Hub (pinned; cache first), or --data DIR with one FollowIR v1 folder per set, named after the set (robust04, news21, core17 or the mteb task name)',
    reported: [
      { measure: 'p-MRR', name: 'p-MRR', label: 'FollowIR p-MRR' },
      { measure: 'score', name: 'Score', label: 'FollowIR Score' },
    ],
  },
  infosearch: {
    name: 'infosearch',
    aliases: [],
    profile: 'infosearch',
    tasks: [
      'InfoSearch-Audience',
      'InfoSearch-Keyword',
      'InfoSearch-Format',
      'InfoSearch-Language',
      'InfoSearch-Length',
      'InfoSearch-Source',
    ],
    source:
      'Hub (pinned; cache first), or --data DIR with one InfoSearch folder per dimension (audience, ...)',
    reported: [{ measure: 'p-MRR', name: 'p-MRR', label: 'InfoSearch p-MRR' }],
    breakdown: 'InfoSearch (dimension)',
  },
  mair: {
    name: 'mair',
    aliases: [],
    profile: 'mair',
    tasks: ['MAIR'],
    source: '--data DIR with <task>/queries.jsonl and <task>/docs.jsonl per task',
    reported: [{ measure: 'ndcg_cut_10', name: 'nDCG@10', label: 'MAIR nDCG@10' }],
  },
  'mini-followir': {
    name: 'mini-followir',
    aliases: ['mini'],
    profile: 'followir',
    tasks: ['mini-followir'],
    source: "--data DIR, a mini world built by 'dv data build-mini' (its FollowIR-form benchmark)",
    reported: [
      { measure: 'p-MRR', name: 'p-MRR', label: 'FollowIR-form p-MRR' },
      { measure: 'score', name: 'Score', label: 'Score (nDCG@5)' },
      { measure: 'p-MRR', name: 'p-MRR', label: 'p-MRR, seen wording', split: 'seen' },
    ],
    standsFor: 'followir',
    breakdown: 'FollowIR-form (changed lever)',
  },
  'mini-infosearch': {
    name: 'mini-infosearch',
    aliases: [],
    profile: 'infosearch',
    tasks: ['mini-infosearch'],
    source: '--data DIR, a mini world (its InfoSearch-style sets, one per lever with topics)',
    reported: [{ measure: 'p-MRR', name: 'p-MRR', label: 'InfoSearch-style p-MRR' }],
    standsFor: 'infosearch',
    breakdown: 'InfoSearch-style',
  },
} as const satisfies Record<string, BenchmarkEntry>);

export type BenchmarkName = keyof typeof BENCHMARKS;

export class UnknownTaskError extends DataError {}

/** Every name `benchmarkEntry` accepts (names and aliases). */
export function benchmarkNames(): string[] {
  return Object.values(BENCHMARKS).flatMap((b) => [b.name, ...b.aliases]);
}

/** The benchmark registered under `name` or an alias; an UnknownTaskError otherwise. */
export function benchmarkEntry(name: string): BenchmarkEntry {
  const found = Object.values(BENCHMARKS).find(
    (b: BenchmarkEntry) => b.name === name || b.aliases.includes(name),
  );
  if (!found)
    throw new UnknownTaskError(`unknown benchmark '${name}'; registered: ${benchmarkNames().join(', ')}`);
  return found;
}

/** The task registered under `name`; an UnknownTaskError otherwise. */
export function taskEntry(name: string): TaskMetadata {
  const t = (TASKS as Record<string, TaskMetadata>)[name];
  if (!t) throw new UnknownTaskError(`unknown task '${name}'; registered: ${Object.keys(TASKS).join(', ')}`);
  return t;
}

/** The task of `benchmark` whose name or alias is `setName`, else its `anySet` task, else null. */
export function findTask(benchmark: BenchmarkEntry, setName: string): TaskMetadata | null {
  const key = setName.toLowerCase();
  const tasks = benchmark.tasks.map(taskEntry);
  return (
    tasks.find((t) => t.name.toLowerCase() === key || t.aliases.some((a) => a.toLowerCase() === key)) ??
    tasks.find((t) => t.anySet) ??
    null
  );
}

/** `findTask`, or an UnknownTaskError that lists the benchmark's tasks (`where`: file/folder). */
export function taskForSet(benchmark: BenchmarkEntry, setName: string, where?: string): TaskMetadata {
  const t = findTask(benchmark, setName);
  if (t) return t;
  const names = benchmark.tasks.map(taskEntry).map((x) => [x.name, ...x.aliases].join(' / '));
  throw new UnknownTaskError(
    `set '${setName}' is not a registered ${benchmark.name} task (${names.join('; ')}); its scoring (e.g. the FollowIR Score measure) would be a guess`,
    where,
  );
}

/**
 * The `perQuery` key holding a topic's value of `measure` in a result of `task`: the measure
 * itself, except FollowIR's `score`, which per topic is the og run's Score measure
 * (`og_map_cut_1000` for Robust04, benchmark-profiles.ts).
 */
export function perQueryKey(task: Pick<TaskMetadata, 'scoreMeasure'>, measure: string): string {
  return measure === 'score' && task.scoreMeasure ? `og_${task.scoreMeasure.replace('.', '_')}` : measure;
}

/** The @dv/data entries (repo + revision) a task reads from `source` (default `paper`). */
export function taskDatasets(
  task: TaskMetadata,
  source: TaskSource = 'paper',
): Array<HubDatasetEntry & { key: HubDatasetName }> {
  const keys = source === 'paper' ? task.hub : task.sources?.[source] ? [task.sources[source].hub] : [];
  return keys.map((key) => ({ key, ...HUB_DATASETS[key] }));
}

/** The layout of a task's data from `source`; an UnknownTaskError when it has no such copy. */
export function taskLayout(task: TaskMetadata, source: TaskSource = 'paper'): TaskLayout | 'followir-v2' {
  if (source === 'paper') return task.layout;
  const s = task.sources?.[source];
  if (!s)
    throw new UnknownTaskError(
      `${task.name} has no ${source} copy of its data (${TASK_SOURCES.filter((x) => x === 'paper' || task.sources?.[x]).join(', ')})`,
    );
  return s.layout;
}
