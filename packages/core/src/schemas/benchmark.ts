/**
 * Benchmark definitions: one declarative entry per evaluation set, pinning what moves numbers
 * (dataset repository and revision, layout, main metric), as mteb's task metadata does.
 */
import { z } from 'zod';

export const BenchmarkKind = z.enum([
  'followir',
  'infosearch',
  'mair',
  'beir',
  'mini-followir',
  'mini-infosearch',
]);
export type BenchmarkKind = z.infer<typeof BenchmarkKind>;

export const DatasetSource = z.object({
  /** `hub` (Hugging Face dataset repo), `local` (a folder) or `embedded` (built by @dv/data). */
  type: z.enum(['hub', 'local', 'embedded']),
  repo: z.string().optional(),
  /** A commit hash for hub sources: never a branch name in a preset. */
  revision: z.string().optional(),
  path: z.string().optional(),
  layout: z.enum(['followir-v1', 'followir-v2', 'infosearch', 'mair', 'beir']),
});
export type DatasetSource = z.infer<typeof DatasetSource>;

export const BenchmarkDataset = z.object({
  name: z.string().min(1),
  source: DatasetSource,
  mainMetric: z.string().min(1),
  /** `rerank` a fixed candidate list per topic (FollowIR) or `retrieve` from the whole corpus. */
  task: z.enum(['rerank', 'retrieve']),
  topK: z.number().int().positive().default(1000),
});
export type BenchmarkDataset = z.infer<typeof BenchmarkDataset>;

export const BenchmarkDefinition = z.object({
  name: z.string().min(1),
  kind: BenchmarkKind,
  description: z.string().default(''),
  datasets: z.array(BenchmarkDataset).min(1),
  /** How per-dataset main scores combine into the headline (FollowIR: plain mean). */
  aggregate: z.enum(['mean']).default('mean'),
});
export type BenchmarkDefinition = z.infer<typeof BenchmarkDefinition>;
