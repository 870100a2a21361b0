/**
 * Configuration of `pnpm reproduce`: what each stage reads, with the sizes of the two mini
 * variants (`full`, the default, <= 20 min on 2 cores; `quick`, <= 3 min, 1 seed) and the paper
 * profile. A `--config FILE` (JSON) is merged over the profile's values (objects merge, arrays
 * and scalars replace), then validated here; a key the schema does not read is an error naming
 * it and the closest known key (core's `assertKnownConfigKeys`).
 *
 * Sizes and where they come from (mini, full; measured in docs/results-mini.md):
 * - world: 250 test lemmas (FollowIR-form topics; DESIGN.md asks 1,000-2,000, we take fewer to
 *   fit 14 models' evaluation in the time), 30 candidates per topic (FollowIR has 1,000), 4,400
 *   train lemmas (one seed each; the DESIGN.md prototype used 4,000, and 4,000 seeds plus ~10%
 *   spare lets Ins-orig take 4,000 distinct originals), 200 dev lemmas for the complement-view
 *   accuracy, 2,000 general examples (All-*: half of 4,000), 40 topics per InfoSearch-style
 *   lever.
 * - budget 4,000 examples per mix (Ins-DV: 2,000 pairs; All-*: 2,000 instruction + 2,000
 *   general), two epochs = 250 steps of 32 queries, 8,000 training views per run (the
 *   prototype's 8k examples). Why: with one epoch of 2,000 (63 steps) the models barely moved
 *   (Score 16-30, BM25 57); at 250 steps Ins-orig reached Score 68.7 and Ins-DV 65.8 against
 *   the untrained backbone's 10.2 (one seed, issue 15 diagnosis). 250 steps take ~60-100 s on
 *   2 shared cores (2.5-4 steps/s at load 12-18), so 12 runs fit the 20 minutes with the
 *   evaluations.
 * - one labelled negative per query (the trainer's mini preset): 3 negatives and 96-token
 *   documents doubled the step time for Score +4 and p-MRR -3 on Ins-DV (one seed), so no.
 * - mean pooling instead of the trainer preset's CLS (issue 15 diagnosis, Ins-DV, 250 steps):
 *   MLM pretraining never trains the [CLS] output, and fine-tuned from it the CLS query
 *   embedding collapsed onto the lemma (cosine of the two views' queries 0.997), so the models
 *   were instruction-blind even on their own training pairs (pairwise view accuracy 51%; 62%
 *   after 750 steps, still 51% on dev; lr 2e-3: 50%). Mean pooling: training pairs 82%, dev
 *   view accuracy 60 / 60% (seeds 13 / 42; CLS 50%), Ins-orig 54.5 / 56%; FollowIR-form p-MRR
 *   6.8 / 5.3 (CLS 2.2), but Score 54 / 46 (CLS 64), and ~1.4x the step time (the CLS path
 *   runs the last layer on the [CLS] row only).
 * - 3 seeds (the issue's minimum), 13 / 42 / 1234 as in the paper preset.
 * - trainer and MLM settings: the trainer's mini presets (@dv/core), overridden only where said.
 */
import { existsSync, readFileSync } from 'node:fs';
import {
  assertKnownConfigKeys,
  DataError,
  DEFAULT_SEED,
  describeZodIssues,
  MlmConfig,
  miniMlmPreset,
  miniTrainerPreset,
  paperTrainerPreset,
  SynthesisJudgeName,
  TrainerConfig,
} from '@dv/core';
import { MiniWorldOptions } from '@dv/data';
import { z } from 'zod';
import { PaperSection, paperReproducePreset } from './paper-config.js';

export const MINI_BACKBONES = ['mini-bert', 'mini-gte'] as const;
export type MiniBackbone = (typeof MINI_BACKBONES)[number];

export const ReproduceConfig = z.object({
  profile: z.enum(['mini', 'paper']),
  /** Named size variant, for the report ("full", "quick", or a config file's). */
  variant: z.string().min(1),
  /** Fine-tuning seeds: each (backbone, mix) is trained once per seed. */
  seeds: z.array(z.number().int()).min(1),
  /** Backbone names: the mini backbones, or (paper profile) names of `paper.models`. */
  backbones: z.array(z.string().min(1)).min(1),
  /** Mini world options (@dv/data MiniWorldOptions). */
  world: MiniWorldOptions,
  synth: z.object({
    judge: z.union([SynthesisJudgeName, z.literal('none')]).default('lexical'),
    judgeThreshold: z.number().default(0.25),
    /** Dev seeds synthesized for the complement-view accuracy (both views of held-out pairs). */
    devPairs: z.number().int().min(0),
  }),
  mixes: z.object({
    budget: z.number().int().positive(),
    /** K instruction examples in All-* (default N/2). */
    instructionExamples: z.number().int().nonnegative().optional(),
    seed: z.number().int().default(DEFAULT_SEED),
    /**
     * Also train the topic-matched control arms (Ins-orig-tm, All-orig-tm: the DV mixes' topics,
     * each original twice), so a verdict on dual-view data is read beside what topic count
     * alone does (issue 26).
     */
    controls: z.boolean().default(false),
  }),
  /** MLM pretraining of each backbone (MlmConfig; `backbone` and `seed` are set per stage). */
  pretrain: MlmConfig.omit({ backbone: true }),
  /** Fine-tuning (TrainerConfig; `seed` is set per stage). */
  train: TrainerConfig,
  eval: z.object({
    followir: z.boolean().default(true),
    infosearch: z.boolean().default(true),
    devPairs: z.boolean().default(true),
    /** Baselines: BM25 and each backbone before fine-tuning (after MLM pretraining). */
    baselines: z.boolean().default(true),
    batchSize: z.number().int().positive().default(64),
    /**
     * Tokens per text when encoding for evaluation. The FollowIR-form changed instruction adds
     * its constraint at the END of a long narrative instruction (~100-200 word pieces), so a
     * training-length cut (32-64) would drop exactly the part p-MRR measures.
     */
    maxLength: z.number().int().positive().default(256),
    /**
     * How dense models are run: tfjs (native TensorFlow; measured here ~3x less CPU than ONNX
     * Runtime on the mini encoders) or onnx (the exported onnx/model.onnx).
     */
    encoder: z.enum(['tfjs', 'onnx']).default('tfjs'),
  }),
  /** The paper profile's sources, endpoint, backbones, benchmarks and compute (paper-config.ts). */
  paper: PaperSection.optional(),
});

/** Backbones name mini backbones (mini profile) or `paper.models` (paper profile). */
function checkBackbones(c: z.infer<typeof ReproduceConfig>): string | null {
  const known: readonly string[] =
    c.profile === 'paper' ? (c.paper?.models ?? []).map((m) => m.name) : MINI_BACKBONES;
  const bad = c.backbones.filter((b) => !known.includes(b));
  return bad.length
    ? `backbones: ${bad.join(', ')} not among ${c.profile === 'paper' ? 'paper.models' : 'the mini backbones'} (${known.join(', ')})`
    : null;
}
export type ReproduceConfig = z.infer<typeof ReproduceConfig>;

const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

function mlmPresetWithoutBackbone() {
  const { backbone: _perStage, ...rest } = clone(miniMlmPreset.config);
  return rest;
}

const fullMini = {
  profile: 'mini',
  variant: 'full',
  seeds: [DEFAULT_SEED, 42, 1234],
  backbones: ['mini-bert'],
  world: {
    seed: DEFAULT_SEED,
    testLemmas: 250,
    devLemmas: 200,
    trainLemmas: 4400,
    generalExamples: 2000,
    candidates: 30,
    infosearchTopicsPerLever: 40,
    infosearchDistractors: 20,
    hardNegatives: 7,
  },
  // ours: mini-world documents carry WordNet metadata, so the judge reads it too
  synth: { judge: 'lexical-metadata', judgeThreshold: 0.25, devPairs: 200 },
  // the control arms train 6 more models (3 seeds x Ins-orig-tm, All-orig-tm): about +5 min
  mixes: { budget: 4000, seed: DEFAULT_SEED, controls: true },
  // `backbone` is set per stage (the schema omits it), so the preset's is left out here
  pretrain: { ...mlmPresetWithoutBackbone(), steps: 300, maxTexts: 40_000 },
  // ours: seed instructions run to ~50-100 word pieces; the preset's 32 would cut most of them
  train: {
    ...clone(miniTrainerPreset.config),
    // ours: mean pooling, not the preset's CLS (see "Sizes" above: CLS stays instruction-blind)
    model: { ...clone(miniTrainerPreset.config.model), maxQueryLength: 128, pooling: 'mean' },
    // ours: two passes over the 4,000 examples (250 steps; see "Sizes" above)
    batch: { ...clone(miniTrainerPreset.config.batch), epochs: 2 },
  },
  eval: {
    followir: true,
    infosearch: true,
    devPairs: true,
    baselines: true,
    batchSize: 64,
    maxLength: 256,
    encoder: 'tfjs',
  },
} as const;

const quickMini = {
  ...fullMini,
  variant: 'quick',
  seeds: [DEFAULT_SEED],
  world: {
    ...fullMini.world,
    testLemmas: 60,
    devLemmas: 30,
    trainLemmas: 400,
    generalExamples: 200,
    candidates: 15,
    infosearchTopicsPerLever: 12,
    infosearchDistractors: 5,
    hardNegatives: 3,
  },
  synth: { ...fullMini.synth, devPairs: 30 },
  mixes: { budget: 320, seed: DEFAULT_SEED },
  pretrain: { ...fullMini.pretrain, steps: 20, batchSize: 32, vocabSize: 3000, maxTexts: 4000 },
  // one epoch of the 320 examples (10 steps): a smoke test of every stage, not a result
  train: { ...fullMini.train, batch: { ...fullMini.train.batch, epochs: 1 }, logEverySteps: 2 },
} as const;

/**
 * The paper profile: configuration only (PAPER.md; provenance in paper-config.ts): Promptriever
 * seeds, an OpenAI-compatible endpoint, 480k budgets, the two Hub backbones, 30 hard negatives,
 * tau 0.02, 512 tokens, FollowIR + InfoSearch + MAIR.
 */
const paperProfile = {
  ...fullMini,
  profile: 'paper',
  variant: 'paper',
  backbones: paperReproducePreset.section.models.map((m) => m.name),
  world: fullMini.world,
  synth: { judge: 'lexical', judgeThreshold: 0.25, devPairs: 0 },
  mixes: { budget: 480_000, seed: DEFAULT_SEED },
  train: clone(paperTrainerPreset.config),
  eval: { ...fullMini.eval, devPairs: false, batchSize: 128, maxLength: 512 },
  paper: clone(paperReproducePreset.section),
} as const;

export const REPRODUCE_PROFILES = Object.freeze({
  mini: fullMini,
  quick: quickMini,
  paper: paperProfile,
} as const);
export type ReproduceProfileName = keyof typeof REPRODUCE_PROFILES;

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** Deep merge: objects merge member by member, anything else replaces. */
export function mergeConfig(base: unknown, over: unknown): unknown {
  if (!isObject(base) || !isObject(over)) return over === undefined ? base : over;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = mergeConfig(base[k], v);
  return out;
}

/**
 * The dotted paths where two configs differ (leaves; arrays compare whole), sorted: what a run
 * folder made by another config changes (`pnpm reproduce --out` of another config's folder).
 */
export function configDifferences(a: unknown, b: unknown, path = ''): string[] {
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((k) => configDifferences(a[k], b[k], path ? `${path}.${k}` : k));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [path || '(the whole config)'];
}

export interface ResolveConfigOptions {
  profile: 'mini' | 'paper';
  quick?: boolean;
  /** JSON file merged over the profile. */
  configFile?: string;
  /** `--seeds N` (the profile's first N seeds, then 7919 * i) or `--seeds A,B,C` (these seeds). */
  seeds?: number | readonly number[];
  /** `--world-seed S`: the mini world's seed (another world of the same sizes). */
  worldSeed?: number;
  backbones?: 'default' | 'all';
}

/** The run config from a profile, `--quick`, `--config FILE`, `--seeds N|LIST`, `--world-seed S`, `--backbones all`. */
export function resolveReproduceConfig(o: ResolveConfigOptions): ReproduceConfig {
  let raw: unknown = clone(
    o.profile === 'paper'
      ? REPRODUCE_PROFILES.paper
      : o.quick
        ? REPRODUCE_PROFILES.quick
        : REPRODUCE_PROFILES.mini,
  );
  if (o.configFile) {
    if (!existsSync(o.configFile)) throw new DataError('config file not found', o.configFile);
    let file: unknown;
    let text: string;
    try {
      text = readFileSync(o.configFile, 'utf8');
      file = JSON.parse(text);
    } catch (err) {
      throw new DataError(`not valid JSON: ${(err as Error).message}`, o.configFile);
    }
    if (!isObject(file)) throw new DataError('a config file holds one JSON object', o.configFile);
    // strict: a misspelt key would otherwise be dropped by zod and the profile's value used
    assertKnownConfigKeys(ReproduceConfig, file, o.configFile, text);
    raw = mergeConfig(raw, file);
    // paper: a config that names its own models and no backbones trains all of its models
    if (o.profile === 'paper' && file.backbones === undefined && isObject(file.paper) && file.paper.models)
      (raw as Record<string, unknown>).backbones = (
        (raw as { paper: { models: { name?: unknown }[] } }).paper.models ?? []
      ).map((m) => m.name);
  }
  const r = raw as Record<string, unknown>;
  if (typeof o.seeds === 'number') {
    const base = REPRODUCE_PROFILES.mini.seeds;
    const count = o.seeds;
    r.seeds = Array.from({ length: count }, (_, i) => base[i] ?? 7919 * (i + 1));
  } else if (o.seeds !== undefined) r.seeds = [...o.seeds];
  if (o.worldSeed !== undefined) {
    if (o.profile === 'paper')
      throw new DataError('--world-seed is for the mini world; the paper profile has no world to build');
    (r.world as Record<string, unknown>).seed = o.worldSeed;
  }
  if (o.backbones === 'all')
    r.backbones =
      o.profile === 'paper'
        ? ((r.paper as { models?: { name: string }[] } | undefined)?.models ?? []).map((m) => m.name)
        : [...MINI_BACKBONES];
  const parsed = ReproduceConfig.safeParse(raw);
  if (!parsed.success)
    throw new DataError(`invalid reproduce config: ${describeZodIssues(parsed.error.issues)}`, o.configFile);
  const bad = checkBackbones(parsed.data);
  if (bad) throw new DataError(`invalid reproduce config: ${bad}`, o.configFile);
  return parsed.data;
}
