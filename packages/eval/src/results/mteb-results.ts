/**
 * Benchmark scores written in mteb's results layout, so mteb's own loader (and the leaderboard
 * tooling built on it) reads them: `<root>/<model>/<revision>/<task>.json` (a TaskResult) and
 * `model_meta.json` beside them. Field by field the schema is @dv/core `MtebTaskResult`, which
 * transcribes mteb 1.x `TaskResult` (mteb/load_results/task_results.py) and FollowIR's score
 * dict (`evaluate_p_mrr_change`, mteb/_evaluators/retrieval_metrics.py).
 *
 * Metric names go from trec_eval's to mteb's (`ndcg_cut_5` -> `ndcg_at_5`, `map_cut_1000` ->
 * `map_at_1000`, `recall_100` -> `recall_at_100`, `P_10` -> `precision_at_10`,
 * `recip_rank_cut_10` -> `mrr_at_10`); scores of one instruction mode (`og_*`, `changed_*`,
 * `reversed_*`) go into that mode's dict (`og`, `changed`, ...), as mteb's FollowIR evaluator
 * nests them; `p-MRR` keeps mteb's spelling.
 */
import { join } from 'node:path';
import { DataError, MtebModelMeta, type MtebScoreEntry, MtebTaskResult, writeJsonAtomic } from '@dv/core';

/**
 * The `mteb_version` the files declare: the layout is the one mteb has read since 1.12.48
 * (from there on `from_disk` takes a file as current-format; older versions trigger its
 * historic conversion, which only knows mteb's own task names).
 */
export const MTEB_LAYOUT_VERSION = '1.12.48';

const renames: Array<[RegExp, string]> = [
  [/^ndcg_cut_(\d+)$/, 'ndcg_at_$1'],
  [/^map_cut_(\d+)$/, 'map_at_$1'],
  [/^recall_(\d+)$/, 'recall_at_$1'],
  [/^P_(\d+)$/, 'precision_at_$1'],
  [/^recip_rank_cut_(\d+)$/, 'mrr_at_$1'],
  [/^recip_rank$/, 'mrr'],
  [/^ndcg$/, 'ndcg'],
  [/^map$/, 'map'],
];

/** mteb's name for one of our (trec_eval-style) metric names; unknown names are kept. */
export function mtebMetricName(name: string): string {
  for (const [re, to] of renames) if (re.test(name)) return name.replace(re, to);
  return name;
}

const modes = ['og', 'changed', 'reversed'] as const;

export interface MtebScoreInput {
  /** Our score names -> values (a benchmark profile's `scores`). */
  scores: Record<string, number>;
  mainMetric: string;
  /** ISO 639-3 + script codes (default `['eng-Latn']`). */
  languages?: string[];
  hfSubset?: string;
}

/** One `scores[split]` entry in mteb's form (see the file comment). */
export function mtebScoreEntry(input: MtebScoreInput): MtebScoreEntry {
  const main = input.scores[input.mainMetric];
  if (main === undefined) throw new Error(`main metric ${input.mainMetric} is not among the scores`);
  const entry: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input.scores)) {
    const mode = modes.find((m) => name.startsWith(`${m}_`));
    if (mode) {
      if (!entry[mode]) entry[mode] = {};
      const dict = entry[mode] as Record<string, number>;
      dict[mtebMetricName(name.slice(mode.length + 1))] = value;
    } else entry[mtebMetricName(name)] = value;
  }
  return {
    ...entry,
    main_score: main,
    hf_subset: input.hfSubset ?? 'default',
    languages: input.languages ?? ['eng-Latn'],
  };
}

export interface MtebTaskInput extends MtebScoreInput {
  taskName: string;
  /** The dataset's revision; a local set without one records where it came from. */
  datasetRevision: string;
  evaluationTimeSeconds: number;
  split?: string;
}

export function mtebTaskResult(input: MtebTaskInput): MtebTaskResult {
  return MtebTaskResult.parse({
    dataset_revision: input.datasetRevision,
    task_name: input.taskName,
    mteb_version: MTEB_LAYOUT_VERSION,
    scores: { [input.split ?? 'test']: [mtebScoreEntry(input)] },
    evaluation_time: input.evaluationTimeSeconds,
    kg_co2_emissions: null,
  });
}

/** ModelMeta for a model of ours; every field not given is null (mteb: unknown). */
export function mtebModelMeta(
  fields: Pick<MtebModelMeta, 'name' | 'revision'> & Partial<MtebModelMeta>,
): MtebModelMeta {
  return MtebModelMeta.parse({
    release_date: null,
    languages: ['eng-Latn'],
    n_parameters: null,
    memory_usage_mb: null,
    max_tokens: null,
    embed_dim: null,
    license: null,
    open_weights: null,
    public_training_code: null,
    public_training_data: null,
    framework: [],
    reference: null,
    similarity_fn_name: 'cosine',
    use_instructions: true,
    training_datasets: null,
    adapted_from: null,
    superseded_by: null,
    ...fields,
  });
}

/** Windows' reserved device names, which no file or folder may be called (with any extension). */
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\.|$)/i;

/**
 * One portable path segment made from a name (a model name such as `onnx:/models/x`, a revision,
 * a task name). First mteb's `model_name_as_path`: `/` -> `__`, space -> `_`. Then every character
 * that Windows, macOS or Linux refuses in a file name (`< > : " \ | ? *`, control characters), and
 * `%` itself, becomes `%XX` (its UTF-8 byte in hex, as in URLs), so this step is reversible
 * (`decodeURIComponent`); a trailing dot and a Windows device name (`CON`, `NUL.txt`...)
 * get their last / first character encoded the same way. The original name stays in
 * model_meta.json (`name`) and in each result (`task_name`), which is what mteb reads.
 * A name that could leave the folder (`..`) is refused.
 */
export function mtebPathSegment(name: string, what = 'name'): string {
  const hex = (c: string) =>
    [...Buffer.from(c, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  let s = name
    .replace(/\//g, '__')
    .replace(/ /g, '_')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it encodes
    .replace(/[%<>:"\\|?*\u0000-\u001f\u007f]/g, hex);
  if (s === '' || s === '.' || s === '..' || s.includes('..'))
    throw new DataError(`${what} "${name}" cannot name a results folder`);
  if (/[.]$/.test(s)) s = `${s.slice(0, -1)}${hex('.')}`;
  if (WINDOWS_DEVICE.test(s)) s = `${hex(s[0]!)}${s.slice(1)}`;
  return s;
}

const segment = mtebPathSegment;

/**
 * Writes `<root>/<model>/<revision>/<task>.json` for each result and `model_meta.json`;
 * returns the paths written.
 */
export async function writeMtebResults(
  root: string,
  meta: MtebModelMeta,
  results: readonly MtebTaskResult[],
): Promise<string[]> {
  const dir = join(root, segment(meta.name, 'model name'), segment(meta.revision, 'model revision'));
  const written: string[] = [];
  for (const r of results) {
    const path = join(dir, `${segment(r.task_name, 'task name')}.json`);
    await writeJsonAtomic(path, MtebTaskResult.parse(r));
    written.push(path);
  }
  const metaPath = join(dir, 'model_meta.json');
  await writeJsonAtomic(metaPath, MtebModelMeta.parse(meta));
  written.push(metaPath);
  return written;
}
