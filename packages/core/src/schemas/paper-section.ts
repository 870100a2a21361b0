/**
 * The paper profile's own section of a run config (`paper`): where the seed data and the
 * backbones come from on the Hub, which dataset revisions are pinned, and where training runs.
 * The settings the paper run shares with the mini run (synthesis endpoint and judge, mixes,
 * trainer, eval and its benchmarks) are the run config's other slices, declared once there;
 * this section holds only what the mini world has no counterpart for. The runtime helpers
 * (prerequisite checks, the Hub client calls, the scale-out launcher) are the pipeline app's.
 * The paper values and their provenance are `runOverlays.paper` (presets.ts).
 */
import { z } from 'zod';

const Commit = z.string().regex(/^[0-9a-f]{40}$/, 'a 40-hex commit');

/** A registered Hub dataset (@dv/data HUB_DATASETS), by name, with an optional revision override. */
export const PaperDataset = z
  .union([
    z
      .string()
      .min(1)
      .transform((name): { name: string; revision?: string } => ({ name })),
    z.object({
      name: z.string().min(1).describe('Name of a registered Hub dataset (@dv/data HUB_DATASETS)'),
      revision: Commit.optional().describe(
        "A 40-hex commit pinning (or overriding the registry's pin of) the dataset",
      ),
    }),
  ])
  .describe('A registered Hub dataset, by name or as { name, revision }');

/** The paper's benchmarks: names of @dv/eval's task registry that a paper run may evaluate. */
export const PaperBenchmark = z.enum(['followir', 'infosearch', 'mair']);
export type PaperBenchmark = z.infer<typeof PaperBenchmark>;

export const PaperModel = z.object({
  name: z
    .string()
    .regex(/^[a-z0-9][a-z0-9._-]*$/i, 'letters, digits, . _ - (a stage id)')
    .describe('Backbone name, as `backbones` lists it (also a stage id)'),
  repo: z
    .string()
    .min(1)
    .describe(
      'Hub model repo (an HF BERT-family checkpoint: config.json, model.safetensors, tokenizer.json)',
    ),
  revision: z
    .string()
    .min(1)
    .describe('Hub revision of the repo (a branch is resolved to a commit, recorded in backbone.json)'),
});

export const PaperScaleOut = z.object({
  command: z
    .string()
    .min(1)
    .describe(
      'Launcher program: `torchrun` (looked up in $VIRTUAL_ENV/bin, then PATH; a path is taken as it is); any other program only passes the prerequisite check and the run exports and stops, unless `launcher` is given',
    ),
  engine: z
    .enum(['sentence-transformers', 'flagembedding', 'tevatron'])
    .default('sentence-transformers')
    .describe('Distributed engine the mixes are exported for (dv train export --engine)'),
  nprocPerNode: z.number().int().positive().default(1).describe('Processes per node the launcher starts'),
  launcher: z
    .union([
      z
        .string()
        .trim()
        .min(1)
        .transform((s) => s.split(/\s+/)),
      z.array(z.string().min(1)).min(1),
    ])
    .optional()
    .describe(
      'The launcher command line, to which `dv_st_train.py --settings settings.json` is appended (a string is split at spaces); default `torchrun --standalone --nproc_per_node N`',
    ),
  launch: z
    .boolean()
    .default(true)
    .describe('false: export and stop even where a launcher is found (the engine runs elsewhere)'),
});

export const PaperSection = z.object({
  seeds: z
    .object({
      dataset: z
        .string()
        .min(1)
        .default('promptriever')
        .describe(
          'Registered Hub dataset of the Promptriever seed data (read with @dv/data readPromptriever)',
        ),
      include: z
        .array(z.string().min(1))
        .min(1)
        .optional()
        .describe("Files of the dataset repo to read (glob); default: the registry entry's `include`"),
      instructionSeeds: z
        .number()
        .int()
        .positive()
        .nullable()
        .default(null)
        .describe('Rows with an instruction to synthesize complements for (null: all)'),
      generalExamples: z
        .number()
        .int()
        .nonnegative()
        .nullable()
        .default(null)
        .describe('Rows without an instruction kept as general data for the All-* mixes (null: all)'),
      generalNegatives: z
        .number()
        .int()
        .nonnegative()
        .default(30)
        .describe(
          'Mined hard negatives KEPT per general example when the seed data is read (data on disk, like world.hardNegatives); how many a training query uses is train.batch.hardNegatives',
        ),
    })
    .prefault({}),
  datasets: z
    .array(PaperDataset)
    .default([])
    .describe(
      'Revisions for registered Hub datasets (a `revision` pins an unpinned entry or overrides a pin), and datasets to check beyond those the run reads anyway (the seed dataset and every benchmark)',
    ),
  models: z.array(PaperModel).min(1).describe('Hub model repos of the backbones'),
  hubEndpoint: z
    .string()
    .url()
    .optional()
    .describe('Hub address (default $HF_ENDPOINT or https://huggingface.co)'),
  hubCache: z
    .string()
    .optional()
    .describe('Hub cache folder (default: @dv/data hubCacheDir(), the huggingface_hub layout)'),
  compute: z
    .enum(['gpu', 'cpu', 'scale-out'])
    .default('gpu')
    .describe(
      'Where training runs: gpu (our trainer on tfjs-node-gpu), cpu (our trainer on the CPU: scaled-down configs and tests), or scale-out (mixes exported for a distributed engine, launched where a launcher is found)',
    ),
  scaleOut: PaperScaleOut.optional().describe('For compute = scale-out: the engine and its launcher'),
});
export type PaperSection = z.infer<typeof PaperSection>;
export type PaperSectionInput = z.input<typeof PaperSection>;
