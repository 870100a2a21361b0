/**
 * The run config: one tree holding every setting of a run, the input of `pnpm reproduce` and
 * the source of each stage's slice. One schema per concern, each declared once:
 *
 * | slice | schema | read by |
 * | --- | --- | --- |
 * | `profile`, `variant`, `seeds`, `backbones` | here | the stage graph, the report |
 * | `world` | `MiniWorldOptions` (mini-world-options.ts) | @dv/data `buildMiniWorld` (world stage) |
 * | `synthesis` | `SynthesisConfig` (synthesis-config.ts) + `devPairs` | @dv/synth `runSynthesis` / `createSynthesisRun` (synth stages) |
 * | `mixes` | `MixesConfig` | @dv/synth `writeMixes` (mixes stage) |
 * | `pretrain` | `MlmConfig` without `backbone` (trainer-config.ts), + `perSeed` | @dv/train `pretrainMlm` (pretrain stages) |
 * | `train` | `TrainerConfig` (trainer-config.ts) | @dv/train `trainRetriever` (train stages), `dv train run` |
 * | `eval` | `EvalConfig` | @dv/eval runners (eval stages) |
 * | `paper` | `PaperSection` (paper-section.ts) | the paper profile's Hub and compute stages |
 *
 * The profiles are partial overlays over this tree's defaults (`runOverlays` in presets.ts:
 * `mini`, `quick`, `paper`), each with the provenance of its values. `mergeConfig`
 * (merge-config.ts) layers an overlay, a `--config FILE` and flags; `RunConfig.parse` validates.
 */
import { z } from 'zod';
import { DEFAULT_SEED } from '../rng.js';
import { MiniWorldOptions } from './mini-world-options.js';
import { PaperBenchmark, PaperSection } from './paper-section.js';
import { SynthesisConfig } from './synthesis-config.js';
import { MINI_BACKBONES, MlmConfig, TrainerConfig } from './trainer-config.js';

export const MixesConfig = z.object({
  budget: z
    .number()
    .int()
    .positive()
    .describe('Training examples per mix (the matched budget: every mix holds this many)'),
  instructionExamples: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe(
      'All-* mixes: how many of `budget` are instruction examples, held fixed across mixes (absent: budget / 2)',
    ),
  seed: z.number().int().default(DEFAULT_SEED).describe("Seed of the mixes' sampling and order"),
  controls: z
    .boolean()
    .default(false)
    .describe(
      "Also train the topic-matched control arms (Ins-orig-tm, All-orig-tm: the DV mixes' topics, each original twice), so a verdict on dual-view data is read beside what topic count alone does (issue 26)",
    ),
});
export type MixesConfig = z.infer<typeof MixesConfig>;

/** The mini world's benchmarks, as names of @dv/eval's task registry (checked in its test). */
export const MINI_BENCHMARKS = ['mini-followir', 'mini-infosearch'] as const;

export const EvalConfig = z.object({
  benchmarks: z
    .array(z.string().min(1))
    .default([])
    .describe(
      'Benchmarks every model is evaluated on, by @dv/eval task-registry name: mini-followir / mini-infosearch (mini profile) or followir / infosearch / mair (paper profile)',
    ),
  viewAccuracy: z
    .boolean()
    .default(true)
    .describe(
      'Also measure the complement-view accuracy on the synthesized dev pairs (mini profile; how many pairs: synthesis.devPairs, 0 = none)',
    ),
  baselines: z
    .boolean()
    .default(true)
    .describe(
      'Also evaluate the baselines: BM25 and each backbone before fine-tuning (after MLM pretraining)',
    ),
  batchSize: z.number().int().positive().default(64).describe('Texts per encoding batch when evaluating'),
  maxLength: z
    .number()
    .int()
    .positive()
    .default(256)
    .describe(
      'Tokens per text when encoding for evaluation; the FollowIR-form changed instruction adds its constraint at the END of a long narrative instruction (~100-200 word pieces), so a training-length cut would drop what p-MRR measures',
    ),
  encoder: z
    .enum(['tfjs', 'onnx'])
    .default('tfjs')
    .describe(
      'How dense models run: tfjs (native TensorFlow, ~3x less CPU on the mini encoders) or onnx (the exported onnx/model.onnx)',
    ),
});
export type EvalConfig = z.infer<typeof EvalConfig>;

export const RunSynthesisConfig = SynthesisConfig.extend({
  devPairs: z
    .number()
    .int()
    .min(0)
    .default(0)
    .describe(
      'Dev seeds synthesized for the complement-view accuracy (both views of held-out pairs; mini profile)',
    ),
});
export type RunSynthesisConfig = z.infer<typeof RunSynthesisConfig>;

export const RunConfig = z
  .object({
    profile: z
      .enum(['mini', 'paper'])
      .describe(
        'mini: the WordNet mini world, offline, on a laptop; paper: Hub data, an LLM endpoint, a GPU',
      ),
    variant: z
      .string()
      .min(1)
      .describe("Named size variant, for the report (full, quick, paper, or a config file's)"),
    seeds: z
      .array(z.number().int())
      .min(1)
      .describe('Fine-tuning seeds: each (backbone, mix) is trained once per seed'),
    backbones: z
      .array(z.string().min(1))
      .min(1)
      .describe(
        `Backbones to train: mini backbones (${MINI_BACKBONES.join(', ')}) or, paper profile, names of paper.models`,
      ),
    world: MiniWorldOptions.prefault({}),
    synthesis: RunSynthesisConfig,
    mixes: MixesConfig,
    pretrain: MlmConfig.omit({ backbone: true }).extend({
      perSeed: z
        .boolean()
        .default(false)
        .describe(
          'Mini profile: pretrain one backbone per fine-tuning seed (its MLM seed is that seed), so the intervals over seeds include the pretraining variance; the pretrained backbone is where CPUs of another vector width part (issue 26)',
        ),
    }),
    train: TrainerConfig,
    eval: EvalConfig.prefault({}),
    paper: PaperSection.optional().describe("The paper profile's Hub data, models and compute"),
  })
  .superRefine((c, ctx) => {
    const known: readonly string[] =
      c.profile === 'paper' ? (c.paper?.models ?? []).map((m) => m.name) : MINI_BACKBONES;
    const bad = c.backbones.filter((b) => !known.includes(b));
    if (bad.length)
      ctx.addIssue({
        code: 'custom',
        path: ['backbones'],
        message: `${bad.join(', ')} not among ${c.profile === 'paper' ? 'paper.models' : 'the mini backbones'} (${known.join(', ')})`,
      });
    const allowed: readonly string[] = c.profile === 'paper' ? PaperBenchmark.options : MINI_BENCHMARKS;
    const badBench = c.eval.benchmarks.filter((b) => !allowed.includes(b));
    if (badBench.length)
      ctx.addIssue({
        code: 'custom',
        path: ['eval', 'benchmarks'],
        message: `${badBench.join(', ')} not a ${c.profile} benchmark (${allowed.join(', ')})`,
      });
    if (c.profile === 'paper' && c.eval.benchmarks.length === 0)
      ctx.addIssue({
        code: 'custom',
        path: ['eval', 'benchmarks'],
        message: 'the paper profile evaluates at least one benchmark',
      });
    if (c.profile === 'paper' && c.synthesis.baseURLs.length === 0)
      ctx.addIssue({
        code: 'custom',
        path: ['synthesis', 'baseURLs'],
        message: 'the paper profile needs an endpoint',
      });
  });
export type RunConfig = z.infer<typeof RunConfig>;
export type RunConfigInput = z.input<typeof RunConfig>;
