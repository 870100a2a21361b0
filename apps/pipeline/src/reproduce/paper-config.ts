/**
 * The paper profile's own configuration (`config.paper` of a reproduce config): where the seed
 * data, the synthesis endpoint, the backbones and the benchmarks come from, and where training
 * runs. Everything `pnpm reproduce --profile paper` needs beyond the shared sections (mixes,
 * train, eval) is here, so going from the loopback test config to the real run is a config
 * file, never a code change.
 *
 * `paperReproducePreset` carries the paper's values (shared/PAPER.md, "Results to reproduce";
 * DESIGN.md, "Two profiles") with the provenance of each in `sources`.
 */
import { presets, SynthesisConfig, SynthesisJudgeName } from '@dv/core';
import { BENCHMARKS, TASKS } from '@dv/eval';
import { z } from 'zod';

const Commit = z.string().regex(/^[0-9a-f]{40}$/, 'a 40-hex commit');

/** A registered Hub dataset (@dv/data HUB_DATASETS), by name, with an optional revision override. */
export const PaperDataset = z.union([
  z
    .string()
    .min(1)
    .transform((name): { name: string; revision?: string } => ({ name })),
  z.object({ name: z.string().min(1), revision: Commit.optional() }),
]);

export const PaperBenchmark = z.enum(['followir', 'infosearch', 'mair']);

export const PaperSection = z.object({
  /** OpenAI-compatible endpoints for synthesis (the paper: Qwen3-Next-80B-A3B-Instruct, e.g. on vLLM). */
  // The run config's synthesis fields (@dv/core SynthesisConfig), with an endpoint required and
  // the paper run's concurrency.
  synthesis: SynthesisConfig.pick({
    model: true,
    apiKeyEnv: true,
    temperature: true,
    maxTokens: true,
    requestTimeoutMs: true,
    maxRetries: true,
  }).extend({
    baseURLs: SynthesisConfig.shape.baseURLs.unwrap().min(1),
    concurrency: SynthesisConfig.shape.concurrency.unwrap().default(64),
    /** Verification of each complement: the lexical judge (no second model), or none. */
    judge: z.union([SynthesisJudgeName, z.literal('none')]).default('lexical'),
    judgeThreshold: z.number().default(0.25),
  }),
  /** Promptriever seed data: a registered Hub dataset read with @dv/data readPromptriever. */
  seeds: z
    .object({
      dataset: z.string().min(1).default('promptriever'),
      /** Files of the dataset repo to read (glob); default: the registry entry's `include`. */
      include: z.array(z.string().min(1)).min(1).optional(),
      /** Rows with an instruction to synthesize complements for (null: all). */
      instructionSeeds: z.number().int().positive().nullable().default(null),
      /** Rows without an instruction kept as general data for the All-* mixes (null: all). */
      generalExamples: z.number().int().nonnegative().nullable().default(null),
      /** Labelled negatives kept per general example (its mined hard negatives). */
      generalNegatives: z.number().int().nonnegative().default(30),
    })
    .prefault({}),
  /**
   * Revisions for registered Hub datasets (a `revision` pins an entry the registry leaves
   * unpinned, or overrides a pin), and datasets to check beyond those the run reads anyway (the
   * seed dataset and every task of `benchmarks`).
   */
  datasets: z.array(PaperDataset).default([]),
  /** Hub model repos of the backbones (HF BERT-family checkpoints: config.json, model.safetensors, tokenizer.json). */
  models: z
    .array(
      z.object({
        name: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/i, 'letters, digits, . _ - (a stage id)'),
        repo: z.string().min(1),
        revision: z.string().min(1),
      }),
    )
    .min(1),
  /** Benchmarks of the task registry (@dv/eval BENCHMARKS) every model is evaluated on. */
  benchmarks: z.array(PaperBenchmark).min(1).default(['followir', 'infosearch', 'mair']),
  /** Hub address (default $HF_ENDPOINT or https://huggingface.co). */
  hubEndpoint: z.string().url().optional(),
  /** Hub cache folder (default: @dv/data hubCacheDir(), the huggingface_hub layout). */
  hubCache: z.string().optional(),
  /**
   * Where training runs: `gpu` (our trainer on tfjs-node-gpu), `cpu` (our trainer on the CPU
   * backend: scaled-down configs and tests only), or `scale-out` (the mixes are exported for a
   * distributed engine with `dv train export`; where a launcher is found the engine trains each
   * as a stage and the run goes on to evaluation, else it stops with the launch instructions:
   * scale-out-launcher.ts).
   */
  compute: z.enum(['gpu', 'cpu', 'scale-out']).default('gpu'),
  /** For compute = scale-out: the engine the mixes are exported for and its launcher. */
  scaleOut: z
    .object({
      /**
       * The launcher program: `torchrun` (looked up in $VIRTUAL_ENV/bin, then on PATH; a path is
       * taken as it is). Any other program only passes the prerequisite check: the run exports
       * and stops, unless `launcher` is given.
       */
      command: z.string().min(1),
      engine: z.enum(['sentence-transformers', 'flagembedding', 'tevatron']).default('sentence-transformers'),
      nprocPerNode: z.number().int().positive().default(1),
      /**
       * The launcher's command line, to which `dv_st_train.py --settings settings.json` is
       * appended (run in the export folder), e.g. `["accelerate", "launch", "--num_processes",
       * "8"]` or `["srun", "--ntasks-per-node", "1", "torchrun", "--nproc_per_node", "8"]`; a
       * string is split at spaces. Default: `torchrun --standalone --nproc_per_node N`.
       */
      launcher: z
        .union([
          z
            .string()
            .trim()
            .min(1)
            .transform((s) => s.split(/\s+/)),
          z.array(z.string().min(1)).min(1),
        ])
        .optional(),
      /** false: export and stop even where a launcher is found (the engine runs elsewhere). */
      launch: z.boolean().default(true),
    })
    .optional(),
});
export type PaperSection = z.infer<typeof PaperSection>;
export type PaperSectionInput = z.input<typeof PaperSection>;

/** The revision of dataset `name` configured in `paper.datasets` (undefined: the registry's pin). */
export function configuredRevision(paper: PaperSection, name: string): string | undefined {
  return paper.datasets.find((d) => d.name === name)?.revision;
}

const synthesis = presets.paper.config.synthesis;

/** The paper profile's `paper` section, values from the paper. */
const paperSection = {
  synthesis: {
    baseURLs: [...synthesis.baseURLs],
    model: synthesis.model,
    apiKeyEnv: synthesis.apiKeyEnv,
    temperature: synthesis.temperature,
    maxTokens: synthesis.maxTokens,
    concurrency: synthesis.concurrency,
    requestTimeoutMs: synthesis.requestTimeoutMs,
    maxRetries: synthesis.maxRetries,
    judge: 'lexical',
    judgeThreshold: 0.25,
  },
  seeds: {
    dataset: 'promptriever',
    instructionSeeds: null,
    generalExamples: null,
    generalNegatives: 30,
  },
  // the seed data, then every Hub dataset the benchmarks' tasks read, as the task registry lists them
  datasets: [
    'promptriever',
    ...(['followir', 'infosearch', 'mair'] as const).flatMap((b) =>
      BENCHMARKS[b].tasks.flatMap((t) => TASKS[t].hub),
    ),
  ],
  models: [
    {
      name: 'gte-multilingual-mlm-base',
      repo: 'Alibaba-NLP/gte-multilingual-mlm-base',
      revision: 'main',
    },
    { name: 'bge-m3-retromae', repo: 'BAAI/bge-m3-retromae', revision: 'main' },
  ],
  benchmarks: ['followir', 'infosearch', 'mair'],
  compute: 'gpu',
} as const satisfies PaperSectionInput;

export const paperReproducePreset = {
  name: 'paper',
  /** The `paper` section. The shared sections' paper values are set in reproduce-config.ts. */
  section: paperSection,
  /** Dotted path (in the reproduce config) -> where the value comes from. */
  sources: {
    'paper.synthesis.model': 'seed: complements synthesized with Qwen3-Next-80B-A3B-Instruct',
    'paper.synthesis.baseURLs':
      'ours: a local OpenAI-compatible server (vLLM default port 8000); set your endpoint in --config',
    'paper.synthesis.temperature': '@dv/core paper preset (ours: not reported in the seed)',
    'paper.synthesis.judge': 'ours: the lexical judge verifies each complement without a second model',
    'paper.seeds.dataset':
      'seed / Promptriever: samaya-ai/msmarco-w-instructions (~980k rows), registry entry "promptriever"',
    'paper.datasets[promptriever].revision':
      'no verified commit known (HUB_DATASETS note): give {"name":"promptriever","revision":"<40-hex>"}; the prerequisite check says so',
    'paper.datasets':
      "PAPER.md: FollowIR (Robust04, News21, Core17), InfoSearch (6 dimensions), MAIR: the tasks' Hub datasets from the @dv/eval task registry; pins in @dv/data HUB_DATASETS",
    'paper.models[0]':
      'seed: gte-multilingual-mlm-base, the primary backbone (Hub Alibaba-NLP/gte-multilingual-mlm-base)',
    'paper.models[1]': 'seed: bge-m3-retromae, the second backbone (Hub BAAI/bge-m3-retromae)',
    'paper.models[].revision':
      'ours: "main", resolved to a commit recorded in backbone.json; pin a commit in --config',
    'paper.benchmarks': 'seed: evaluation on FollowIR, InfoSearch and MAIR (@dv/eval task registry)',
    'paper.compute': 'DESIGN.md: a GPU, or the scale-out engine export (dv train export --engine)',
    'mixes.budget': 'seed: 480k examples per mix (Ins-orig 480k = Ins-DV 240k originals + 240k complements)',
    'train.batch.hardNegatives': 'seed: 30 hard negatives per query (@dv/core paper trainer preset)',
    'train.loss.temperature': 'seed: InfoNCE tau = 0.02 (@dv/core paper trainer preset)',
    'train.model.maxQueryLength': 'seed: 512-token maximum sequence length',
    'train.model.maxDocLength': 'seed: 512-token maximum sequence length',
    'eval.maxLength': 'seed: 512-token maximum sequence length',
    seeds: 'ours: three fine-tuning seeds (13, 42, 1234) for confidence intervals',
  },
} as const;
