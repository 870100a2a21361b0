/**
 * `dv train ...`: the training engine (@dv/train). Building blocks of the mini profile are here
 * (`vocab`: train a WordPiece vocabulary; `init`: a freshly initialised mini backbone as a
 * Hugging Face folder); the training loop itself (`run`) comes with its own issue.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createProgress, createRng, readLines, writeFileAtomic } from '@dv/core';
import { type Command, notBuilt, requireString, UsageError } from '../cli-kit.js';

function positiveInt(ctx: { values: Record<string, unknown> }, name: string, fallback?: number): number {
  const raw = ctx.values[name];
  if (raw === undefined && fallback !== undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0)
    throw new UsageError(`--${name} must be a positive integer, got '${raw}'`);
  return n;
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
    if (ctx.positionals.length === 0) throw new UsageError('give at least one text FILE');
    const { trainWordPiece } = await import('@dv/train');
    const texts: string[] = [];
    const progress = createProgress({ label: 'reading texts', unit: 'lines', stream: ctx.stderr });
    for (const file of ctx.positionals)
      for await (const line of readLines(file)) {
        if (line.text.trim()) texts.push(line.text);
        progress.tick();
      }
    progress.done();
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
Hugging Face folder (config.json, model.safetensors, tokenizer.json) that is also a step-0 checkpoint.`,
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
    if (existsSync(out) && readdirSync(out).length > 0)
      throw new UsageError(`--out ${out} exists and is not empty; choose a new folder`);
    const train = await import('@dv/train');
    if (!(backbone in train.miniBackbones))
      throw new UsageError(
        `unknown backbone '${backbone}'; one of: ${Object.keys(train.miniBackbones).join(', ')}`,
      );
    const seed = Number(ctx.values.seed);
    if (!Number.isInteger(seed)) throw new UsageError(`--seed must be an integer, got '${ctx.values.seed}'`);
    const tokenizer = train.HfTokenizer.fromFile(requireString(ctx, 'tokenizer'));
    const overrides: Record<string, number> = {};
    if (ctx.values.layers !== undefined) overrides.num_hidden_layers = positiveInt(ctx, 'layers');
    if (ctx.values.hidden !== undefined) {
      const h = positiveInt(ctx, 'hidden');
      if (h % 64 !== 0) throw new UsageError('--hidden must be a multiple of 64');
      const base = train.miniBackbones[backbone as keyof typeof train.miniBackbones];
      Object.assign(overrides, {
        hidden_size: h,
        num_attention_heads: h / 64,
        intermediate_size: Math.round((base.intermediate_size / base.hidden_size) * h),
      });
    }
    const backend = await train.initBackend();
    const encoder = train.createMiniEncoder(backbone as keyof typeof train.miniBackbones, {
      vocabSize: tokenizer.vocabSize,
      seed,
      overrides: { ...overrides, pad_token_id: tokenizer.padId },
    });
    await train.saveCheckpoint(out, { encoder, step: 0, rng: createRng(seed), extra: { backbone } });
    await writeFileAtomic(join(out, 'tokenizer.json'), tokenizer.json);
    const n = [...encoder.params.values()].reduce((a, v) => a + v.size, 0);
    encoder.dispose();
    ctx.stdout.write(
      `wrote ${out}: ${backbone}, ${encoder.config.num_hidden_layers} layers, hidden ${encoder.config.hidden_size}, ` +
        `vocabulary ${tokenizer.vocabSize}, ${(n / 1e6).toFixed(2)}M parameters (backend ${backend.tfjsBackend})\n`,
    );
    return 0;
  },
};

export const trainCommand: Command = {
  name: 'train',
  summary: 'train a bi-encoder on a data mix (vocab and init work; run is not built yet)',
  description: `Training engine commands. 'dv doctor' shows which tfjs backend they use (DV_TF_BACKEND overrides).`,
  subcommands: [
    vocabCommand,
    initCommand,
    notBuilt('run', 'train a bi-encoder on a data mix', 'issue: training loop'),
  ],
};
