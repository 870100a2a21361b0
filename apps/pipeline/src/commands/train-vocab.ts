/** `dv train vocab`: a WordPiece vocabulary (tokenizer.json) for a mini backbone (@dv/train `trainWordPiece`). */
import { join } from 'node:path';
import { createProgress, DataError, guardOutputDir, readLines, writeFileAtomic } from '@dv/core';
import { z } from 'zod';
import { defineCommand, requireString, schemaFlags, UsageError } from '../cli-kit.js';

/** The vocabulary's settings (the CLI's; @dv/train takes them as options). */
const VocabSettings = z.object({
  vocabSize: z.number().int().positive().default(8000).describe('vocabulary size incl. 5 special tokens'),
});

export const trainVocabCommand = defineCommand({
  name: 'vocab',
  summary: 'train a WordPiece vocabulary (tokenizer.json) for a mini backbone',
  usage: '--out DIR [--vocab-size N] [--cased] FILE...',
  description: `Trains a BERT-style WordPiece vocabulary on text files (one text per line, .gz allowed)
with the Hugging Face tokenizers library and writes DIR/tokenizer.json.`,
  allowPositionals: true,
  flags: schemaFlags(VocabSettings, { 'vocab-size': 'vocabSize' }),
  options: {
    out: { type: 'string', description: 'output folder', valueName: 'DIR' },
    cased: {
      type: 'boolean',
      description: 'keep case and accents (default: lowercase like bert-base-uncased)',
    },
  },
  async run(ctx) {
    const out = requireString(ctx, 'out');
    const { vocabSize } = VocabSettings.parse(ctx.settings);
    // 5 special tokens ([PAD] [UNK] [CLS] [SEP] [MASK]) come first; a vocabulary needs pieces too
    if (vocabSize <= 5)
      throw new UsageError(`--vocab-size must exceed the 5 special tokens, got '${vocabSize}'`);
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
});
