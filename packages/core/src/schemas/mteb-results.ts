/**
 * mteb's results files, as mteb 1.x reads them back (`TaskResult.from_disk` in
 * mteb/load_results/task_results.py; the loader walks `results/<model>/<revision>/`):
 *
 * - `<task>.json`: a TaskResult. `dataset_revision` and `task_name` are strings (never null),
 *   `mteb_version` a version string (files without one, or older than 1.11.0, go through a
 *   conversion path for historic results that only knows mteb's own tasks), `evaluation_time`
 *   seconds, `kg_co2_emissions` optional, and `scores` maps a split to a list of entries. Each
 *   entry must have `main_score`, `hf_subset` (a string) and `languages` (a list of ISO 639-3 +
 *   script codes such as `eng-Latn`) and be JSON-serialisable (`_validate_scores_dict`).
 *   Metric keys are mteb's: `ndcg_at_10`, `map_at_1000`, `recall_at_100`, `precision_at_10`,
 *   `mrr_at_10` (mteb/_evaluators/retrieval_metrics.py, `make_score_dict`).
 * - FollowIR tasks (`evaluate_p_mrr_change` there): the entry holds `p-MRR` (its main score) and
 *   the `og` and `changed` runs' metric dicts under the keys `og` and `changed`.
 * - `model_meta.json` next to them: the ModelMeta the run used (name, revision, languages, ...).
 * The folder for a model is its name with `/` -> `__` and ` ` -> `_` (`model_name_as_path`).
 */
import { z } from 'zod';

/** One split/subset entry of `scores`. Extra metric keys pass through. */
export const MtebScoreEntry = z
  .object({
    main_score: z.number(),
    hf_subset: z.string(),
    languages: z.array(z.string().regex(/^[a-z]{3}-[A-Z][a-z]{3}$/, 'ISO 639-3 + script, e.g. eng-Latn')),
  })
  .catchall(z.unknown());
export type MtebScoreEntry = z.infer<typeof MtebScoreEntry>;

export const MtebTaskResult = z.object({
  dataset_revision: z.string().min(1),
  task_name: z.string().min(1),
  mteb_version: z.string().regex(/^\d+\.\d+\.\d+/),
  scores: z.record(z.string(), z.array(MtebScoreEntry).min(1)),
  evaluation_time: z.number().nonnegative().nullable(),
  kg_co2_emissions: z.number().nullable().optional(),
});
export type MtebTaskResult = z.infer<typeof MtebTaskResult>;

/** The fields of mteb's ModelMeta a results folder records; unknown values are null. */
export const MtebModelMeta = z.object({
  name: z.string().min(1),
  revision: z.string().min(1),
  release_date: z.string().nullable(),
  languages: z.array(z.string()).nullable(),
  n_parameters: z.number().int().nullable(),
  memory_usage_mb: z.number().nullable(),
  max_tokens: z.number().nullable(),
  embed_dim: z.number().int().nullable(),
  license: z.string().nullable(),
  open_weights: z.boolean().nullable(),
  public_training_code: z.string().nullable(),
  public_training_data: z.string().nullable(),
  framework: z.array(z.string()),
  reference: z.string().nullable(),
  similarity_fn_name: z.string().nullable(),
  use_instructions: z.boolean().nullable(),
  training_datasets: z.record(z.string(), z.unknown()).nullable(),
  adapted_from: z.string().nullable(),
  superseded_by: z.string().nullable(),
});
export type MtebModelMeta = z.infer<typeof MtebModelMeta>;
