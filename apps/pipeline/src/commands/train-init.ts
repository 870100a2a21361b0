/** `dv train init`: a freshly initialised mini backbone as an HF + sentence-transformers folder (@dv/train). */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRng, guardOutputDir, writeFileAtomic } from '@dv/core';
import { z } from 'zod';
import { defineCommand, requireString, schemaFlags, UsageError } from '../cli-kit.js';

/** The initialisation's settings (sizes absent: the backbone preset's). */
const InitSettings = z.object({
  seed: z.number().int().default(0).describe('initialisation seed'),
  layers: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('number of layers (default: the backbone preset, 2)'),
  hidden: z.number().int().positive().optional().describe('hidden size (default 128; heads = hidden/64)'),
});

export const trainInitCommand = defineCommand({
  name: 'init',
  summary: 'write a freshly initialised mini backbone (HF folder + checkpoint state)',
  usage: '--backbone mini-bert|mini-gte --tokenizer FILE --out DIR [--seed N] [--layers N] [--hidden N]',
  description: `Creates a mini backbone with random weights sized to the tokenizer's vocabulary and writes it as a
Hugging Face + sentence-transformers folder (config.json, model.safetensors, tokenizer.json,
modules.json, 1_Pooling (CLS), 2_Normalize) that is also a step-0 checkpoint.`,
  flags: schemaFlags(InitSettings, { seed: 'seed', layers: 'layers', hidden: 'hidden' }),
  options: {
    backbone: { type: 'string', description: 'mini-bert or mini-gte', valueName: 'NAME' },
    tokenizer: {
      type: 'string',
      description: 'tokenizer.json (e.g. from dv train vocab)',
      valueName: 'FILE',
    },
    out: { type: 'string', description: 'output folder', valueName: 'DIR' },
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
    const name = backbone as keyof typeof train.miniBackbones;
    const { seed, layers, hidden } = InitSettings.parse(ctx.settings);
    const tokenizer = train.HfTokenizer.fromFile(requireString(ctx, 'tokenizer'));
    let overrides: ReturnType<typeof train.miniBackboneSize>;
    try {
      overrides = train.miniBackboneSize(name, { layers, hidden });
    } catch (err) {
      if (err instanceof RangeError) throw new UsageError(`--${err.message}`);
      throw err;
    }
    const backend = await train.initBackend();
    const encoder = train.createMiniEncoder(name, {
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
});
