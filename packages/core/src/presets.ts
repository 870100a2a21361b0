/**
 * The run profiles as partial overlays over the run config's defaults (run-config.ts), and the
 * presets of the single-stage commands derived from them. Every value an overlay sets carries
 * its provenance in `sources` (dotted path -> where it comes from): "seed" = the paper summary
 * (shared/seed), "PAPER.md" / "DESIGN.md" = the project's paper and design notes,
 * "Arctic-Embed" = the authors' likely training stack, "Promptriever" / "mteb" = the lineage,
 * "measured" = docs/results-mini.md and the issue it cites, "ours" = our choice, with the reason.
 *
 * - `mini` (`pnpm reproduce`, the default: <= 20 min on 2 cores, 3 seeds);
 * - `quick` over `mini` (`pnpm reproduce --quick`: <= 3 min, 1 seed; a smoke test of every stage);
 * - `paper` over `mini` (`pnpm reproduce --profile paper`: PAPER.md's run; world and pretrain are
 *   the mini values and unused, the paper profile builds no world).
 *
 * A value is decided in one overlay and nowhere else; `resolveRunOverlay` merges the chain
 * (`mergeConfig`) and validates it (`RunConfig.parse`).
 */
import { mergeConfig } from './merge-config.js';
import { DEFAULT_SEED } from './rng.js';
import { RunConfig } from './schemas/run-config.js';
import { MlmConfig, TrainerConfig } from './schemas/trainer-config.js';

/** A partial run config: any subset of the tree, merged over its base. */
export type RunOverlayInput = { readonly [k: string]: unknown };

export interface RunOverlay {
  readonly name: string;
  /** The overlay this one is merged over (none: the run config's defaults). */
  readonly extends?: RunOverlayName;
  readonly overlay: RunOverlayInput;
  /** Dotted config path -> where the value comes from. */
  readonly sources: Readonly<Record<string, string>>;
}

const miniOverlay: RunOverlay = {
  name: 'mini',
  overlay: {
    profile: 'mini',
    variant: 'full',
    seeds: [DEFAULT_SEED, 42, 1234],
    backbones: ['mini-bert'],
    world: {
      testLemmas: 250,
      devLemmas: 200,
      trainLemmas: 4400,
      generalExamples: 2000,
      candidates: 30,
      infosearchTopicsPerLever: 40,
      hardNegatives: 7,
    },
    synthesis: {
      backend: 'offline',
      model: 'offline-reverser',
      concurrency: 1,
      judge: 'lexical-metadata',
      judgeThreshold: 0.25,
      devPairs: 200,
    },
    mixes: { budget: 4000, controls: true },
    pretrain: {
      steps: 300,
      maxTexts: 40_000,
      optimizer: { lr: 1e-3, weightDecay: 0.01, gradClipNorm: 1 },
      perSeed: true,
    },
    train: {
      model: { pooling: 'mean', maxQueryLength: 128, maxDocLength: 64 },
      optimizer: { lr: 5e-4, weightDecay: 0.01, gradClipNorm: 1 },
      batch: { batchSize: 32, epochs: 2, hardNegatives: 1 },
      checkpoint: { everySteps: 200 },
      logEverySteps: 5,
    },
    eval: { benchmarks: ['mini-followir', 'mini-infosearch'] },
  },
  sources: {
    profile: 'DESIGN.md: mini is the default profile, offline on a 2-core machine',
    seeds:
      'ours: three seeds (the issue minimum) to report confidence intervals, 13 / 42 / 1234 as in the paper profile',
    backbones:
      'ours: one backbone by default; --backbones all adds mini-gte (the two-backbone finding in miniature)',
    'world.testLemmas':
      "ours: 250 FollowIR-form topics (DESIGN.md asks 1,000-2,000; fewer to fit 14 models' evaluation in 20 min)",
    'world.devLemmas': 'ours: 200 dev lemmas for the complement-view accuracy',
    'world.trainLemmas':
      'DESIGN.md: the prototype used 4,000 lemmas; 4,000 seeds plus ~10% spare lets Ins-orig take 4,000 distinct originals',
    'world.generalExamples': 'ours: 2,000 general examples, All-*: half of the 4,000 budget',
    'world.candidates': 'ours: 30 candidates per topic (FollowIR has 1,000)',
    'world.infosearchTopicsPerLever': 'ours: 40 topics per InfoSearch-style lever',
    'world.hardNegatives': 'ours: 7 mined per seed fit a 2-core laptop; the paper mines 30',
    'synthesis.backend': 'DESIGN.md: the offline reverser stands in for the LLM in the mini profile',
    'synthesis.concurrency': 'ours: the offline reverser runs in process',
    'synthesis.judge': 'ours: mini-world documents carry WordNet metadata, so the judge reads it too',
    'synthesis.judgeThreshold': "@dv/synth synthesisJudges: the lexical judges' default 0.25",
    'synthesis.devPairs': 'ours: both views of 200 held-out pairs for the complement-view accuracy',
    'mixes.budget':
      "measured (issue 15): 4,000 per mix (Ins-DV 2,000 pairs; All-* 2,000 + 2,000 general); with 2 epochs 8,000 views per run, the prototype's 8k",
    'mixes.controls':
      'ours: the control arms train 6 more models (3 seeds x Ins-orig-tm, All-orig-tm), about +5 min',
    'pretrain.steps': 'ours: 300 MLM steps per backbone fit the 20 minutes',
    'pretrain.maxTexts': 'ours: 40,000 corpus texts at most',
    'pretrain.perSeed':
      'measured (issue 26): the MLM seed moves Ins-DV - Ins-orig p-MRR as much as the fine-tuning seed (sd 2.51 both), and another CPU gives another backbone; one backbone per seed puts that variance in the intervals, +2 MLM stages',
    'pretrain.optimizer.lr':
      'ours: small models from scratch take a large lr (BERT-small recipes 1e-3 range)',
    'pretrain.optimizer.gradClipNorm': 'ours: torch clip_grad_norm_(1.0), the sentence-transformers default',
    'train.model.pooling':
      'measured (issue 15): MLM never trains [CLS]; fine-tuned from it the CLS query embedding collapsed onto the lemma (view accuracy 51%); mean pooling 82% on training pairs, 60% dev',
    'train.model.maxQueryLength':
      'ours: seed instructions run to ~50-100 word pieces; 64 would cut most of them',
    'train.model.maxDocLength':
      'ours: mini-world entries: median 34, p90 61 word pieces; config A, sequence 64',
    'train.optimizer.lr': 'ours: small models trained from a mini pretraining need a larger lr',
    'train.optimizer.gradClipNorm': 'ours: torch clip_grad_norm_(1.0), the sentence-transformers default',
    'train.batch.batchSize': 'ours: fits a 2-core laptop',
    'train.batch.epochs':
      'measured (issue 15): one epoch of 2,000 (63 steps) barely moved the models; 250 steps reached Score 68.7 (Ins-orig)',
    'train.batch.hardNegatives':
      'measured: 3 negatives and 96-token documents doubled the step time for Score +4 and p-MRR -3 (Ins-DV, one seed); the paper uses 30',
    'train.checkpoint.everySteps': 'ours: a mini run has a few hundred steps',
    'train.logEverySteps': 'ours: a mini run has a few hundred steps',
    'train.loss.temperature': 'seed: InfoNCE with tau = 0.02',
    'train.loss.maskFalseNegatives': 'ours: docs/architecture.md, mask in-batch false negatives',
    'train.batch.pairViewsInBatch': 'seed: each batch holds both views',
    'train.schedule.name': 'Arctic-Embed: warmup-stable-decay',
    'train.formatter.joiner':
      'mteb: query + " " + instruction; seed: query encoded as query+instruction concatenation',
    'eval.benchmarks': "DESIGN.md: the mini world's FollowIR-form and InfoSearch-style benchmarks",
    'eval.maxLength':
      "ours: the changed instruction's constraint sits at the end of a ~100-200 word-piece narrative",
  },
};

const quickOverlay: RunOverlay = {
  name: 'quick',
  extends: 'mini',
  overlay: {
    variant: 'quick',
    seeds: [DEFAULT_SEED],
    world: {
      testLemmas: 60,
      devLemmas: 30,
      trainLemmas: 400,
      generalExamples: 200,
      candidates: 15,
      infosearchTopicsPerLever: 12,
      infosearchDistractors: 5,
      hardNegatives: 3,
    },
    synthesis: { devPairs: 30 },
    mixes: { budget: 320, controls: false },
    pretrain: { steps: 20, batchSize: 32, vocabSize: 3000, maxTexts: 4000 },
    train: { batch: { epochs: 1 }, logEverySteps: 2 },
  },
  sources: {
    seeds: 'ours: one seed; --quick is a smoke test of every stage (<= 3 min), not a result',
    world: 'ours: the smallest world whose every stage still has data',
    'synthesis.devPairs': 'ours: scaled with world.devLemmas',
    'mixes.budget': 'ours: 320 examples, 10 steps of 32',
    'mixes.controls': 'ours: no control arms in the smoke test',
    pretrain: 'ours: 20 MLM steps over a 3,000-piece vocabulary: the stage runs, the model is not useful',
    'train.batch.epochs': 'ours: one epoch of the 320 examples (10 steps)',
    'train.logEverySteps': 'ours: a 10-step run',
  },
};

const paperOverlay: RunOverlay = {
  name: 'paper',
  extends: 'mini',
  overlay: {
    profile: 'paper',
    variant: 'paper',
    backbones: ['gte-multilingual-mlm-base', 'bge-m3-retromae'],
    synthesis: {
      backend: 'openai',
      model: 'Qwen/Qwen3-Next-80B-A3B-Instruct',
      baseURLs: ['http://127.0.0.1:8000/v1'],
      concurrency: 64,
      judge: 'lexical',
      judgeThreshold: 0.25,
      devPairs: 0,
    },
    mixes: { budget: 480_000, controls: false },
    train: {
      model: { pooling: 'cls', maxQueryLength: 512, maxDocLength: 512 },
      optimizer: { lr: 3e-5 },
      batch: { batchSize: 128, epochs: 1, hardNegatives: 30 },
      checkpoint: { everySteps: 1000 },
      logEverySteps: 10,
    },
    eval: {
      benchmarks: ['followir', 'infosearch', 'mair'],
      viewAccuracy: false,
      batchSize: 128,
      maxLength: 512,
    },
    paper: {
      seeds: { dataset: 'promptriever', instructionSeeds: null, generalExamples: null, generalNegatives: 30 },
      datasets: [
        'promptriever',
        'followir-robust04',
        'followir-news21',
        'followir-core17',
        'infosearch-audience',
        'infosearch-keyword',
        'infosearch-format',
        'infosearch-language',
        'infosearch-length',
        'infosearch-source',
        'mair-queries',
        'mair-docs',
      ],
      models: [
        {
          name: 'gte-multilingual-mlm-base',
          repo: 'Alibaba-NLP/gte-multilingual-mlm-base',
          revision: 'main',
        },
        { name: 'bge-m3-retromae', repo: 'BAAI/bge-m3-retromae', revision: 'main' },
      ],
      compute: 'gpu',
    },
  },
  sources: {
    profile: 'DESIGN.md: paper wires the same stages to an endpoint, the Hub and a GPU',
    backbones: 'seed: gte-multilingual-mlm-base (305M) primary backbone, bge-m3-retromae the second',
    'synthesis.model': 'seed: complements synthesized with Qwen3-Next-80B-A3B-Instruct',
    'synthesis.baseURLs':
      'ours: a local OpenAI-compatible server (vLLM default port 8000); set your endpoint in --config',
    'synthesis.temperature': 'ours: not reported in the seed',
    'synthesis.concurrency': 'ours: 64 requests in flight keep one vLLM server busy',
    'synthesis.judge': 'ours: the lexical judge verifies each complement without a second model',
    'synthesis.devPairs': 'ours: the paper profile has no dev pairs (its evaluation is the benchmarks)',
    'mixes.budget': 'seed: 480k examples per mix (Ins-orig 480k = Ins-DV 240k originals + 240k complements)',
    'train.model.pooling': 'gte NewModel and Arctic-Embed use CLS pooling',
    'train.model.maxQueryLength': 'seed: 512-token maximum sequence length',
    'train.model.maxDocLength': 'seed: 512-token maximum sequence length',
    'train.optimizer.lr': 'Arctic-Embed: lr ~3e-5',
    'train.optimizer.weightDecay': 'Arctic-Embed: AdamW weight decay 0.01',
    'train.optimizer.gradClipNorm':
      'ours: torch clip_grad_norm_(1.0), the sentence-transformers / HF Trainer default',
    'train.batch.batchSize':
      'ours: not reported in the seed; fits one GPU with 31 docs per query at 512 tokens',
    'train.batch.hardNegatives': 'seed: 30 hard negatives per query',
    'train.checkpoint.everySteps': 'ours: about every 10 minutes of a GPU run',
    'train.logEverySteps': 'ours: the trainer default',
    'eval.benchmarks': 'seed: evaluation on FollowIR, InfoSearch and MAIR (@dv/eval task registry)',
    'eval.maxLength': 'seed: 512-token maximum sequence length',
    'eval.viewAccuracy': 'ours: no dev pairs in the paper profile',
    'paper.seeds.dataset':
      'seed / Promptriever: samaya-ai/msmarco-w-instructions (~980k rows), registry entry "promptriever"',
    'paper.seeds.generalNegatives': 'seed: 30 hard negatives per query',
    'paper.datasets[promptriever].revision':
      'no verified commit known (HUB_DATASETS note): give {"name":"promptriever","revision":"<40-hex>"}; the prerequisite check says so',
    'paper.datasets':
      'PAPER.md: FollowIR (Robust04, News21, Core17), InfoSearch (6 dimensions), MAIR; pins in @dv/data HUB_DATASETS',
    'paper.models[0]':
      'seed: gte-multilingual-mlm-base, the primary backbone (Hub Alibaba-NLP/gte-multilingual-mlm-base)',
    'paper.models[1]': 'seed: bge-m3-retromae, the second backbone (Hub BAAI/bge-m3-retromae)',
    'paper.models[].revision':
      'ours: "main", resolved to a commit recorded in backbone.json; pin a commit in --config',
    'paper.compute': 'DESIGN.md: a GPU, or the scale-out engine export (dv train export --engine)',
  },
};

export const runOverlays = Object.freeze({
  mini: miniOverlay,
  quick: quickOverlay,
  paper: paperOverlay,
} as const);
export type RunOverlayName = 'mini' | 'quick' | 'paper';

/** The unvalidated merge of an overlay chain (`paper` = mini's values, then paper's). */
export function runOverlayInput(name: RunOverlayName): Record<string, unknown> {
  const o = runOverlays[name];
  const base = o.extends ? runOverlayInput(o.extends) : {};
  return mergeConfig(base, JSON.parse(JSON.stringify(o.overlay)));
}

/** The sources along an overlay chain; the later overlay's entry wins. */
export function runOverlaySources(name: RunOverlayName): Record<string, string> {
  const o = runOverlays[name];
  return { ...(o.extends ? runOverlaySources(o.extends) : {}), ...o.sources };
}

/** A profile's run config: its overlay chain over the defaults, validated. */
export function resolveRunOverlay(name: RunOverlayName): RunConfig {
  return RunConfig.parse(runOverlayInput(name));
}

export interface Preset {
  readonly name: string;
  readonly config: RunConfig;
  /** Dotted config path -> where the value comes from. */
  readonly sources: Readonly<Record<string, string>>;
}

/**
 * The single-stage commands' `--preset mini`: the mini run with what a lone command does
 * differently, each said here. `dv synth mix --preset mini` builds the prototype's 8,000
 * examples per mix in one pass (the reproduction trains 4,000 twice); `dv train run --preset
 * mini` keeps the trainer's CLS pooling, 64-token queries and one epoch (the reproduction's mean
 * pooling and 128 tokens are its own measured choices, see `runOverlays.mini.sources`).
 */
const miniCommandOverlay = {
  mixes: { budget: 8_000 },
  train: { model: { pooling: 'cls', maxQueryLength: 64 }, batch: { epochs: 1 } },
} as const;

export const paperPreset: Preset = {
  name: 'paper',
  config: resolveRunOverlay('paper'),
  sources: runOverlaySources('paper'),
};

export const miniPreset: Preset = {
  name: 'mini',
  config: RunConfig.parse(mergeConfig(runOverlayInput('mini'), miniCommandOverlay)),
  sources: {
    ...runOverlaySources('mini'),
    'mixes.budget': 'DESIGN.md: the prototype used 8k examples',
    'train.model.pooling': 'ours: the trainer default (CLS), as gte and Arctic-Embed',
    'train.model.maxQueryLength':
      'ours: mini-world lemma + instruction: median 39, p99 49 word pieces (8k vocabulary); config A, sequence 64',
    'train.batch.epochs': 'ours: one pass (dv train run --epochs N for more)',
  },
};

export const presets = Object.freeze({ paper: paperPreset, mini: miniPreset } as const);
export type PresetName = keyof typeof presets;

/** A trainer preset: a `TrainerConfig` (or `MlmConfig`) with the provenance of each value. */
export interface TrainerPreset<C> {
  readonly name: string;
  readonly config: C;
  /** Dotted config path -> where the value comes from. */
  readonly sources: Readonly<Record<string, string>>;
}

/** The `train.` sources of a preset, re-rooted at the trainer config. */
const trainSources = (sources: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(sources)
      .filter(([k]) => k.startsWith('train.'))
      .map(([k, v]) => [k.slice('train.'.length), v]),
  );

export const paperTrainerPreset: TrainerPreset<TrainerConfig> = {
  name: 'paper',
  config: TrainerConfig.parse(paperPreset.config.train),
  sources: {
    ...trainSources(paperPreset.sources),
    'batch.gradAccumulation': 'ours: 1; use batch.gradCacheChunk to fit larger batches',
    seed: 'ours: first of the run seeds (13, 42, 1234)',
  },
};

/**
 * Mini trainer: config A (2 layers, hidden 128) trains a few thousand examples in about a minute
 * on 2 cores (issue 10 sizing: 4 mixes x 3 seeds + eval within 20 minutes).
 */
export const miniTrainerPreset: TrainerPreset<TrainerConfig> = {
  name: 'mini',
  config: TrainerConfig.parse(miniPreset.config.train),
  sources: { ...trainSources(miniPreset.sources), seed: 'ours: first of the run seeds (13, 42, 1234)' },
};

/** MLM pretraining of the mini backbones on the mini world corpus (`dv train mlm`). */
export const miniMlmPreset: TrainerPreset<MlmConfig> = {
  name: 'mini',
  config: MlmConfig.parse({ ...miniPreset.config.pretrain, steps: 600, maxTexts: null }),
  sources: {
    maskProbability: 'BERT (Devlin et al. 2019): 15% of the tokens are predicted',
    maskReplace: 'BERT: 80% of the chosen tokens become [MASK]',
    randomReplace: 'BERT: 10% a random token, 10% unchanged',
    layers: 'ours: config A (2 layers, hidden 128), the mini default',
    hidden: 'ours: config A',
    maxLength: 'ours: config A, sequence 64; mini-world entries fit',
    vocabSize: 'ours: 8,000 word pieces cover the mini world corpus (benchmark vocabulary)',
    steps:
      'ours: 600 steps of 64 sequences (~3 minutes on 2 cores at ~3.5 steps/s), paid once per config digest; the reproduction takes 300 (runOverlays.mini)',
    maxTexts: 'ours: the whole corpus (the reproduction reads 40,000 texts at most)',
    'optimizer.lr': 'ours: small models from scratch take a large lr (BERT-small recipes 1e-3 range)',
    'schedule.name': 'BERT: linear decay after warmup',
    seed: 'ours',
  },
};

export const trainerPresets = Object.freeze({ paper: paperTrainerPreset, mini: miniTrainerPreset } as const);
