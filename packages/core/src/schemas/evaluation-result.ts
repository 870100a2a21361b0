/**
 * One model on one benchmark dataset: scores by trec_eval-style measure name, optionally per
 * query. Field names follow mteb's result JSON where a counterpart exists
 * (`task_name`, `scores.test[].main_score`), so results can sit beside MTEB ones.
 */
import { z } from 'zod';

export const EvaluationResult = z.object({
  benchmark: z.string().min(1),
  dataset: z.string().min(1),
  model: z.string().min(1),
  split: z.string().default('test'),
  mainMetric: z.string().min(1),
  mainScore: z.number(),
  scores: z.record(z.string(), z.number()),
  perQuery: z.record(z.string(), z.record(z.string(), z.number())).optional(),
  numQueries: z.number().int().nonnegative(),
  evaluationTimeSeconds: z.number().nonnegative().optional(),
  manifest: z.string().optional(),
  /**
   * What the set was read from: `<hub repo>@<commit>` (for FollowIR e.g.
   * `jhu-clsp/core17-instructions@e39f...`, the paper's data, or `mteb/Core17InstructionRetrieval@67d8...`,
   * the copy mteb 2 evaluates), a local folder or file, or absent for built sets.
   */
  datasetSource: z.string().min(1).optional(),
});
export type EvaluationResult = z.infer<typeof EvaluationResult>;
