/**
 * `dv train ...`: the training engine (@dv/train), thin over its library calls: `vocab` (a
 * WordPiece vocabulary), `init` (a freshly initialised mini backbone as an HF folder), `mlm`
 * (MLM pretraining of a mini backbone, cached), `run` (contrastive training on a mix), `export`
 * (data and launch files for a distributed engine), `onnx` (a folder's ONNX graph, float32 or int8).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createProgress,
  createRng,
  DataError,
  describeUnknownKeys,
  describeZodIssues,
  guardOutputDir,
  MINI_BACKBONES,
  MlmConfig,
  mergeConfig,
  miniMlmPreset,
  readLines,
  TrainerConfig,
  trainerPresets,
  unknownConfigKeys,
  writeFileAtomic,
} from '@dv/core';
import {
  type Command,
  type CommandContext,
  type NumberSpec,
  numberOption,
  requireString,
  UsageError,
} from '../cli-kit.js';
import { lockOutputFolder } from '../output-folder.js';
import { trainExportCommand } from './train-export.js';
import { trainOnnxCommand } from './train-onnx.js';

const POSITIVE_INT: NumberSpec = { integer: true, positive: true };
/** A required positive-integer option (its default in the option spec, or `fallback`). */
function positiveInt(ctx: CommandContext, name: string, fallback?: number): number {
  const n = numberOption(ctx, name, POSITIVE_INT) ?? fallback;
  if (n === undefined) throw new UsageError(`--${name} is required`);
  return n;
}

/**
 * A training command's Ctrl-C: the first SIGINT asks the loop to stop after the current step
 * (it writes a checkpoint, exit 130); a second one ends the process at once (checkpoints are
 * written atomically). The caller removes `onSigint` when the run ends.
 */
function stopOnInterrupt(stderr: NodeJS.WritableStream): {
  controller: AbortController;
  onSigint: () => void;
} {
  const controller = new AbortController();
  const onSigint = () => {
    stderr.write('\nstopping after this step (checkpoint first); interrupt again to quit at once\n');
    controller.abort(new Error('interrupted'));
  };
  process.once('SIGINT', onSigint);
  return { controller, onSigint };
}

const vocabCommand: Command = {
  name: 'vocab',
  summary: 'train a WordPiece vocabulary (tokenizer.json) for a mini backbone',
  usage: '--out DIR [--vocab-size N] [--cased] FILE...',
  description: `Trains a BERT-style WordPiece vocabulary on text files (one text per line, .gz allowed)
with the Hugging Face tokenizers library and writes DIR/tokenizer.json.`,
  allowPositionals: true,
  options: {
    out: { type: 'string', description: 'output folder', valueName: 'DIR' },
    'vocab-size': { type: 'string', description: 'vocabulary size incl. 5 special tokens', default: '8000' },
    cased: {
      type: 'boolean',
      description: 'keep case and accents (default: lowercase like bert-base-uncased)',
    },
  },
  async run(ctx) {
    const out = requireString(ctx, 'out');
    const vocabSize = positiveInt(ctx, 'vocab-size');
    // 5 special tokens ([PAD] [UNK] [CLS] [SEP] [MASK]) come first; a vocabulary needs pieces too
    if (vocabSize <= 5)
      throw new UsageError(
        `--vocab-size must exceed the 5 special tokens, got '${ctx.values['vocab-size']}'`,
      );
    if (ctx.positionals.length === 0) throw new UsageError('give at least one text FILE');
    guardOutputDir(out);
    const { trainWordPiece } = await import('@dv/train');
    const texts: string[] = [];
    const progress = createProgress({ label: 'reading texts', unit: 'lines', stream: ctx.stderr });
    for (const file of ctx.positionals)
      for await (const line of readLines(file)) {
        if (line.text.trim()) texts.push(line.text);
        progress.tick();
      }
    progress.done();
    if (texts.length === 0)
      throw new DataError(
        `no text to learn a vocabulary from: ${ctx.positionals.join(', ')} ${ctx.positionals.length === 1 ? 'has' : 'have'} no non-blank line`,
      );
    const tok = await trainWordPiece(texts, { vocabSize, lowercase: !ctx.values.cased });
    const path = join(out, 'tokenizer.json');
    await writeFileAtomic(path, tok.json);
    const short =
      tok.vocabSize < vocabSize ? ` (the corpus supports only these of the ${vocabSize} asked)` : '';
    ctx.stdout.write(`wrote ${path}: ${tok.vocabSize} pieces learned from ${texts.length} texts${short}\n`);
    return 0;
  },
};

const initCommand: Command = {
  name: 'init',
  summary: 'write a freshly initialised mini backbone (HF folder + checkpoint state)',
  usage: '--backbone mini-bert|mini-gte --tokenizer FILE --out DIR [--seed N] [--layers N] [--hidden N]',
  description: `Creates a mini backbone with random weights sized to the tokenizer's vocabulary and writes it as a
Hugging Face + sentence-transformers folder (config.json, model.safetensors, tokenizer.json,
modules.json, 1_Pooling (CLS), 2_Normalize) that is also a step-0 checkpoint.`,
  options: {
    backbone: { type: 'string', description: 'mini-bert or mini-gte', valueName: 'NAME' },
    tokenizer: {
      type: 'string',
      description: 'tokenizer.json (e.g. from dv train vocab)',
      valueName: 'FILE',
    },
    out: { type: 'string', description: 'output folder', valueName: 'DIR' },
    seed: { type: 'string', description: 'initialisation seed', default: '0' },
    layers: { type: 'string', description: 'number of layers (default: the backbone preset, 2)' },
    hidden: { type: 'string', description: 'hidden size (default 128; heads = hidden/64)' },
  },
  async run(ctx) {
    const backbone = requireString(ctx, 'backbone');
    const out = requireString(ctx, 'out');
    guardOutputDir(out);
    if (readdirSync(out).length > 0)
      throw new UsageError(`--out ${out} exists and is not empty; choose a new folder`);
    const train = await import('@dv/train');
    if (!(backbone in train.miniBackbones))
      throw new UsageError(
        `unknown backbone '${backbone}'; one of: ${Object.keys(train.miniBackbones).join(', ')}`,
      );
    const seed = numberOption(ctx, 'seed', NUMBER_SPECS.seed) ?? 0;
    const tokenizer = train.HfTokenizer.fromFile(requireString(ctx, 'tokenizer'));
    let overrides: ReturnType<typeof train.miniBackboneSize>;
    try {
      overrides = train.miniBackboneSize(backbone as keyof typeof train.miniBackbones, {
        layers: numberOption(ctx, 'layers', POSITIVE_INT),
        hidden: numberOption(ctx, 'hidden', POSITIVE_INT),
      });
    } catch (err) {
      if (err instanceof RangeError) throw new UsageError(`--${err.message}`);
      throw err;
    }
    const backend = await train.initBackend();
    const encoder = train.createMiniEncoder(backbone as keyof typeof train.miniBackbones, {
      vocabSize: tokenizer.vocabSize,
      seed,
      overrides: { ...overrides, pad_token_id: tokenizer.padId },
    });
    await train.saveCheckpoint(out, { encoder, step: 0, rng: createRng(seed), extra: { backbone } });
    await writeFileAtomic(join(out, 'tokenizer.json'), tokenizer.json);
    // The sentence-transformers files too, so SentenceTransformer(DIR) pools like our encoders
    // (CLS + Normalize) instead of falling back to mean pooling.
    await train.exportHuggingFace(out, {
      config: encoder.config,
      weights: encoder.toWeights(),
      tokenizerJson: join(out, 'tokenizer.json'),
      pooling: 'cls',
      normalize: true,
    });
    const n = train.parameterCount(encoder.params);
    encoder.dispose();
    ctx.stdout.write(
      `wrote ${out}: ${backbone}, ${encoder.config.num_hidden_layers} layers, hidden ${encoder.config.hidden_size}, ` +
        `vocabulary ${tokenizer.vocabSize}, ${(n / 1e6).toFixed(2)}M parameters (backend ${backend.tfjsBackend})\n`,
    );
    return 0;
  },
};

type Json = Record<string, unknown>;

/** What each numeric flag of `dv train run` / `mlm` accepts. */
const NUMBER_SPECS = {
  int: POSITIVE_INT,
  positive: { positive: true },
  seed: { integer: true },
  count: { integer: true, min: 0 },
} as const satisfies Record<string, NumberSpec>;

/** The trainer config of `dv train run`: preset <- --config FILE <- flags, validated. */
export function trainRunConfig(ctx: CommandContext): TrainerConfig {
  const presetName = (ctx.values.preset as string | undefined) ?? 'mini';
  if (!(presetName in trainerPresets))
    throw new UsageError(
      `--preset must be one of ${Object.keys(trainerPresets).join(', ')}, got '${presetName}'`,
    );
  let config = trainerPresets[presetName as keyof typeof trainerPresets].config as unknown as Json;
  const file = ctx.values.config as string | undefined;
  if (file) {
    let json: unknown;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
      json = JSON.parse(text);
    } catch (err) {
      throw new UsageError(`--config ${file}: ${(err as Error).message}`);
    }
    if (!json || typeof json !== 'object' || Array.isArray(json))
      throw new UsageError(`--config ${file}: expected a JSON object (a trainer config)`);
    // strict: a misspelt key would otherwise be dropped by zod and the preset's value used
    const unknown = unknownConfigKeys(TrainerConfig, json);
    if (unknown.length) throw new UsageError(describeUnknownKeys(unknown, file, text));
    config = mergeConfig(config, json as Json);
  }
  const flags: Array<[string, string[], keyof typeof NUMBER_SPECS]> = [
    ['steps', ['batch', 'steps'], 'int'],
    ['epochs', ['batch', 'epochs'], 'positive'],
    ['batch', ['batch', 'batchSize'], 'int'],
    ['hard-negatives', ['batch', 'hardNegatives'], 'count'],
    ['grad-cache', ['batch', 'gradCacheChunk'], 'int'],
    ['grad-accumulation', ['batch', 'gradAccumulation'], 'int'],
    ['checkpoint-every', ['checkpoint', 'everySteps'], 'int'],
    ['temperature', ['loss', 'temperature'], 'positive'],
    ['lr', ['optimizer', 'lr'], 'positive'],
    ['seed', ['seed'], 'seed'],
  ];
  for (const [flag, path, kind] of flags) {
    const v = numberOption(ctx, flag, NUMBER_SPECS[kind]);
    if (v === undefined) continue;
    const patch: Json = {};
    let at = patch;
    path.slice(0, -1).forEach((k) => {
      at[k] = {};
      at = at[k] as Json;
    });
    at[path.at(-1)!] = v;
    config = mergeConfig(config, patch);
    if (flag === 'epochs' && ctx.values.steps === undefined) delete (config.batch as Json).steps;
  }
  const parsed = TrainerConfig.safeParse(config);
  if (!parsed.success)
    throw new UsageError(
      `invalid trainer config${file ? ` (${file})` : ''}: ${describeZodIssues(parsed.error.issues)}`,
    );
  return parsed.data;
}

/** The MLM config of `dv train mlm` / `--backbone`: the mini preset <- flags. */
function mlmConfigFrom(ctx: CommandContext, backbone: string): MlmConfig {
  const over: Json = { backbone };
  for (const [flag, key] of [
    ['mlm-steps', 'steps'],
    ['layers', 'layers'],
    ['hidden', 'hidden'],
    ['vocab-size', 'vocabSize'],
    ['mlm-seed', 'seed'],
  ] as const) {
    const v = numberOption(ctx, flag, flag === 'mlm-seed' ? NUMBER_SPECS.seed : NUMBER_SPECS.int);
    if (v !== undefined) over[key] = v;
  }
  const every = numberOption(ctx, 'mlm-checkpoint-every', NUMBER_SPECS.int);
  if (every !== undefined) over.checkpoint = { everySteps: every };
  const parsed = MlmConfig.safeParse(mergeConfig(miniMlmPreset.config as unknown as Json, over));
  if (!parsed.success) throw new UsageError(`invalid MLM config: ${describeZodIssues(parsed.error.issues)}`);
  return parsed.data;
}

/**
 * The MLM corpus of `--backbone`: --corpus FILE, else <data-dir>/corpus.jsonl when that exists;
 * a usage error naming --corpus otherwise (a fresh clone has no runs/mini).
 */
function mlmCorpus(ctx: CommandContext, backbone: string): string {
  if (!(MINI_BACKBONES as readonly string[]).includes(backbone))
    throw new UsageError(
      `unknown backbone '${backbone}'; one of: ${MINI_BACKBONES.join(', ')} (for other models download an HF folder and give --init DIR)`,
    );
  const given = ctx.values.corpus as string | undefined;
  const dataDir = (ctx.values['data-dir'] as string) ?? 'runs/mini';
  const corpus = given ?? join(dataDir, 'corpus.jsonl');
  if (!existsSync(corpus))
    throw new UsageError(
      given
        ? `--corpus ${given} does not exist`
        : `--backbone ${backbone} pretrains on an MLM corpus: give --corpus FILE (${corpus} does not exist; 'dv data build-mini --out ${dataDir}' writes it)`,
    );
  return corpus;
}

/** MLM-pretrains (or finds cached under --mlm-cache) the mini backbone NAME. */
async function pretrainBackbone(
  ctx: CommandContext,
  backbone: string,
  onEvent: (e: import('@dv/train').TrainEvent) => void,
  signal?: AbortSignal,
): Promise<{ exportDir: string; cached: boolean; finalLoss: number; steps: number; out: string }> {
  const corpus = mlmCorpus(ctx, backbone);
  const config = mlmConfigFrom(ctx, backbone);
  const train = await import('@dv/train');
  const explicit = ctx.values['mlm-out'] as string | undefined;
  const digest = await train.mlmDigest(config, [corpus]);
  const out =
    explicit ?? join((ctx.values['mlm-cache'] as string) ?? 'runs/mlm', `${backbone}-${digest.slice(0, 12)}`);
  const lock = lockOutputFolder(out, `dv train mlm (${backbone})`, {
    flag: explicit ? '--mlm-out' : '--mlm-cache',
  });
  let r: Awaited<ReturnType<typeof train.pretrainMlm>>;
  try {
    r = await train.pretrainMlm({ config, corpus, out, onEvent, ...(signal ? { signal } : {}) });
  } finally {
    lock.release();
  }
  ctx.stderr.write(
    r.cached
      ? `MLM backbone: cached ${r.exportDir} (${r.steps} steps, final loss ${r.finalLoss.toFixed(4)})\n`
      : `MLM backbone: pretrained ${r.exportDir} (${r.steps} steps${r.resumedFrom !== undefined ? `, resumed from step ${r.resumedFrom}` : ''}, final loss ${r.finalLoss.toFixed(4)})\n`,
  );
  return r;
}

const mlmOptions = {
  corpus: {
    type: 'string',
    description: 'MLM corpus (.jsonl passages or text lines; default: <data-dir>/corpus.jsonl)',
    valueName: 'FILE',
  },
  'data-dir': { type: 'string', description: 'mini world folder', default: 'runs/mini' },
  'mlm-cache': { type: 'string', description: 'MLM runs cached here by config digest', default: 'runs/mlm' },
  'mlm-out': {
    type: 'string',
    description: 'MLM run folder (instead of the digest-named one)',
    valueName: 'DIR',
  },
  'mlm-steps': { type: 'string', description: 'MLM steps (preset: 600)', valueName: 'N' },
  layers: { type: 'string', description: 'MLM backbone layers (preset: 2)', valueName: 'N' },
  hidden: { type: 'string', description: 'MLM backbone hidden size (preset: 128)', valueName: 'N' },
  'vocab-size': { type: 'string', description: 'WordPiece vocabulary (preset: 8000)', valueName: 'N' },
  'mlm-seed': { type: 'string', description: 'MLM seed (preset: 13)', valueName: 'N' },
  'mlm-checkpoint-every': {
    type: 'string',
    description: 'MLM steps between checkpoints (default 50)',
    valueName: 'N',
  },
} as const;

const mlmCommand: Command = {
  name: 'mlm',
  summary: 'MLM-pretrain a mini backbone on a corpus (cached by config digest)',
  usage: '[--backbone mini-bert|mini-gte] [--corpus FILE] [--mlm-steps N] [options]',
  description: `Masked-language-model pretraining of a mini backbone (BERT's recipe: 15% of the tokens, 80% [MASK],
10% random, 10% unchanged; tied-embedding MLM head; AdamW, warmup + linear decay) on the mini
world's corpus by default, with a WordPiece vocabulary trained on it. The run folder
(<mlm-cache>/<backbone>-<digest>/ unless --mlm-out) holds metrics.jsonl (the loss curve),
export/ (an HF folder to give 'dv train run --init'), mlm_head.safetensors, manifest.json and
summary.json; the same config and corpus again is a cache hit and trains nothing. Checkpoints
(checkpoints/, every --mlm-checkpoint-every steps and on Ctrl-C, which exits 130) let the same
command resume an interrupted run (also after kill -9) on the same loss curve; it says so.`,
  options: {
    backbone: { type: 'string', description: 'mini-bert or mini-gte', default: 'mini-bert' },
    ...mlmOptions,
  },
  async run(ctx) {
    const train = await import('@dv/train');
    const onEvent = train.renderTrainEvents(ctx.stderr as NodeJS.WritableStream & { isTTY?: boolean });
    const { controller, onSigint } = stopOnInterrupt(ctx.stderr);
    try {
      const backbone = (ctx.values.backbone as string) ?? 'mini-bert';
      const r = await pretrainBackbone(ctx, backbone, onEvent, controller.signal);
      ctx.stdout.write(
        `${r.cached ? 'cached' : 'pretrained'}: ${r.exportDir}\n  loss curve: ${join(r.out, 'metrics.jsonl')}\n`,
      );
      return 0;
    } catch (err) {
      if (!controller.signal.aborted) throw err;
      ctx.stderr.write('interrupted: the MLM checkpoint is kept; re-run the same command to resume\n');
      return 130;
    } finally {
      process.off('SIGINT', onSigint);
    }
  },
};

const runCommandSpec: Command = {
  name: 'run',
  summary: 'train a bi-encoder on a data mix (InfoNCE, dual-view batches, exact resume)',
  usage:
    '--mix FILE (--init DIR | --backbone NAME --corpus FILE) --out DIR [--config FILE] [--json] [options]',
  description: `Contrastive fine-tuning of a bi-encoder on a mix JSONL (what 'dv synth mix' writes; Tevatron,
Promptriever and sentence-transformers rows are read too): InfoNCE over each query's positives, its first N labelled
negatives (instruction negatives first) and in-batch negatives (false negatives ignored), both views
of a dual-view pair in the same batch, AdamW, warmup-stable-decay, gradient clipping.

The config is the preset (--preset, default mini; every value's provenance is in @dv/core's
presets.ts), then --config FILE (a JSON TrainerConfig, merged field by field), then the flags.
--backbone NAME pretrains (once; cached by config digest) a mini backbone with MLM on --corpus FILE
(default <data-dir>/corpus.jsonl, which 'dv data build-mini' writes; 600 MLM steps unless
--mlm-steps) and starts from it; --init DIR starts from an HF folder (config.json,
model.safetensors, tokenizer.json).

DIR gets checkpoints/, metrics.jsonl, export/ (Hugging Face + sentence-transformers folder with
onnx/model.onnx), manifest.json and summary.json. Re-running the same command resumes an
interrupted run (also after kill -9) on the same loss curve, and says so and does nothing for a
finished one. Ctrl-C checkpoints and exits 130. NaN/inf stops with the step named (exit 1).
A folder made by other trainer code (the code digest of @dv/train in its run.json differs, or
it predates code digests) is refused naming what changed (exit 1); --reuse-stale accepts it
as it is (resumes it, or keeps the finished run) and records that in run.json and manifest.json.`,
  options: {
    mix: { type: 'string', description: 'training mix JSONL', valueName: 'FILE' },
    init: { type: 'string', description: 'start from this HF folder', valueName: 'DIR' },
    backbone: {
      type: 'string',
      description: 'mini-bert or mini-gte: MLM-pretrain it (cached) and start from it',
      valueName: 'NAME',
    },
    out: { type: 'string', description: 'run folder', valueName: 'DIR' },
    config: { type: 'string', description: 'trainer config JSON merged over the preset', valueName: 'FILE' },
    preset: { type: 'string', description: 'mini or paper', default: 'mini' },
    steps: { type: 'string', description: 'optimiser steps (overrides --epochs)', valueName: 'N' },
    epochs: { type: 'string', description: 'passes over the mix', valueName: 'X' },
    batch: { type: 'string', description: 'queries per batch', valueName: 'N' },
    'hard-negatives': { type: 'string', description: 'labelled negatives per query at most', valueName: 'N' },
    temperature: { type: 'string', description: 'InfoNCE temperature tau', valueName: 'T' },
    lr: { type: 'string', description: 'peak learning rate', valueName: 'LR' },
    seed: { type: 'string', description: 'seed (batch order, dropout)', valueName: 'N' },
    'grad-cache': {
      type: 'string',
      description: 'gradient cache with chunks of N sequences',
      valueName: 'N',
    },
    'grad-accumulation': { type: 'string', description: 'micro-batches per optimiser step', valueName: 'N' },
    'checkpoint-every': { type: 'string', description: 'steps between checkpoints', valueName: 'N' },
    'reuse-stale': {
      type: 'boolean',
      description: 'accept a run folder made by other trainer code (recorded in the manifest)',
    },
    json: {
      type: 'boolean',
      description:
        'print the result as one JSON object (out, exportDir, steps, finalLoss...); progress stays on stderr',
    },
    ...mlmOptions,
  },
  async run(ctx) {
    const mix = requireString(ctx, 'mix');
    const out = requireString(ctx, 'out');
    const config = trainRunConfig(ctx);
    if (!existsSync(mix)) throw new UsageError(`--mix ${mix} does not exist`);
    const initFlag = ctx.values.init as string | undefined;
    const backbone = ctx.values.backbone as string | undefined;
    if (!!initFlag === !!backbone) throw new UsageError('give exactly one of --init DIR or --backbone NAME');
    if (backbone) mlmCorpus(ctx, backbone); // before loading TensorFlow
    const json = ctx.values.json === true;
    guardOutputDir(out); // the /proc hang, a file as --out (issue 25)
    const train = await import('@dv/train');
    const onEvent = train.renderTrainEvents(ctx.stderr as NodeJS.WritableStream & { isTTY?: boolean });
    let init = initFlag;
    let pretrained: Awaited<ReturnType<typeof pretrainBackbone>> | undefined;
    if (backbone) {
      pretrained = await pretrainBackbone(ctx, backbone, onEvent);
      init = pretrained.exportDir;
    }
    if (!existsSync(join(init!, 'config.json'))) throw new UsageError(`--init ${init}: no config.json there`);
    // one trainer per run folder: a second one exits 1 at once naming this PID (released below)
    const lock = lockOutputFolder(out, `dv train run --out ${out}`);
    const { controller, onSigint } = stopOnInterrupt(ctx.stderr);
    try {
      const r = await train.trainRetriever({
        config,
        data: mix,
        init: init!,
        out,
        onEvent,
        signal: controller.signal,
        command: ['dv', 'train', 'run', ...process.argv.slice(4)],
        reuseStale: ctx.values['reuse-stale'] === true,
      });
      if (r.staleReuse)
        ctx.stderr.write(
          `reused a run folder made by other trainer code (${r.staleReuse.reasons.join('; ')}); recorded in ${join(out, 'manifest.json')}\n`,
        );
      if (json) {
        ctx.stdout.write(
          `${JSON.stringify({
            out,
            exportDir: r.exportDir,
            steps: r.steps,
            finalLoss: r.finalLoss,
            alreadyComplete: r.alreadyComplete,
            resumed: r.resumed,
            seconds: r.seconds,
            ...(r.bestEval ? { bestEval: r.bestEval } : {}),
            init: init!,
            ...(pretrained
              ? {
                  backbone: {
                    name: backbone,
                    exportDir: pretrained.exportDir,
                    cached: pretrained.cached,
                    steps: pretrained.steps,
                    finalLoss: pretrained.finalLoss,
                  },
                }
              : {}),
            ...(r.staleReuse ? { staleReuse: r.staleReuse.reasons } : {}),
          })}\n`,
        );
        return 0;
      }
      if (r.alreadyComplete) {
        ctx.stdout.write(
          `${out} is a finished run (${r.steps} steps, final loss ${r.finalLoss.toFixed(4)}); nothing to do. Export: ${r.exportDir}\n`,
        );
        return 0;
      }
      ctx.stdout.write(
        `trained ${r.steps} steps${r.resumed ? ' (resumed)' : ''} in ${r.seconds.toFixed(1)} s: final loss ${r.finalLoss.toFixed(4)}` +
          `${r.bestEval ? `, best ${r.bestEval.key} ${r.bestEval.value.toFixed(4)} at step ${r.bestEval.step}` : ''}\n` +
          `  run folder: ${out} (metrics.jsonl, checkpoints/, manifest.json)\n  export:     ${r.exportDir} (HF + sentence-transformers, onnx/model.onnx)\n`,
      );
      return 0;
    } catch (err) {
      if (controller.signal.aborted) {
        ctx.stderr.write(
          `interrupted: checkpoint kept in ${join(out, 'checkpoints')}; re-run the same command to resume\n`,
        );
        return 130;
      }
      if (err instanceof train.TrainingDivergedError) {
        ctx.stderr.write(`error: ${err.message}\n`);
        return 1;
      }
      throw err;
    } finally {
      process.off('SIGINT', onSigint);
      lock.release();
    }
  },
};

export const trainCommand: Command = {
  name: 'train',
  summary: 'train bi-encoders: vocabulary, init, MLM pretraining, contrastive training on a mix',
  description: `Training engine commands. 'dv doctor' shows which tfjs backend they use (DV_TF_BACKEND overrides).`,
  subcommands: [vocabCommand, initCommand, mlmCommand, runCommandSpec, trainExportCommand, trainOnnxCommand],
};
