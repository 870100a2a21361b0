/**
 * The input of one synthesis run (@dv/synth `createSynthesisRun`): the run config's `synthesis`
 * slice (backend, model, endpoints, sampling, judge) plus what names this run's data: the seed
 * file, the output folder, the shard and limit, and the formatter recorded in the manifest.
 * `dv synth` builds it from flags over a preset and validates it with one parse.
 */
import { z } from 'zod';
import { FormatterSettings } from './formatter-settings.js';
import { SynthesisConfig } from './synthesis-config.js';

/** Shard `index` of `count` (0-based): the seeds whose id hashes to `index` (@dv/synth `inShard`). */
export const ShardSpec = z
  .object({ index: z.number().int().nonnegative(), count: z.number().int().positive() })
  .refine((s) => s.index < s.count, {
    message: 'shard index must be below the shard count',
    path: ['index'],
  });
export type ShardSpec = z.infer<typeof ShardSpec>;

export const SynthesisRunConfig = z.object({
  /** Seed examples (SeedExample JSONL). */
  seedsPath: z.string().min(1),
  /** Output folder; a rerun resumes what is there. */
  outDir: z.string().min(1),
  synthesis: SynthesisConfig,
  /** The formatter settings recorded in the manifest (the exported views use the one formatter). */
  formatter: FormatterSettings.prefault({}),
  shard: ShardSpec.optional(),
  /** Process at most this many seeds of the shard (in file order). */
  limit: z.number().int().positive().optional(),
  /** Redo seeds whose record is `failed`. */
  retryFailed: z.boolean().default(false),
  /** batch-import: the output files of the Batch API / vLLM run_batch. */
  batchOutputs: z.array(z.string().min(1)).default([]),
});
export type SynthesisRunConfig = z.infer<typeof SynthesisRunConfig>;
export type SynthesisRunConfigInput = z.input<typeof SynthesisRunConfig>;
