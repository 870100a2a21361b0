// A tiny instruction world for trainer tests: lemmas with two senses in different categories,
// dual-view pairs (original: "only <category A>" -> sense A; complement: "not <category A>"
// -> sense B), a WordPiece vocabulary and a freshly initialised one-layer mini backbone.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRng, type TrainingExample, writeFileAtomic } from '@dv/core';
import { saveCheckpoint } from '../../checkpoint/checkpoint.js';
import { createMiniEncoder, type MiniBackboneName } from '../../encoders/mini-backbones.js';
import { trainWordPiece } from '../../tokenizer/train-word-piece.js';

const categories = ['animal', 'music', 'food', 'tool', 'plant', 'place', 'person', 'weather'];
const words = ['red', 'old', 'small', 'loud', 'deep', 'soft', 'fast', 'round', 'tall', 'dark'];

export interface TinyWorld {
  mix: string;
  init: string;
  examples: TrainingExample[];
}

export interface TinyWorldOptions {
  lemmas?: number;
  seed?: number;
  backbone?: MiniBackboneName;
  layers?: number;
  hidden?: number;
  dropout?: number;
}

export async function makeTinyWorld(dir: string, options: TinyWorldOptions = {}): Promise<TinyWorld> {
  const lemmas = options.lemmas ?? 24;
  const rng = createRng(options.seed ?? 7);
  mkdirSync(dir, { recursive: true });
  const examples: TrainingExample[] = [];
  const texts: string[] = [];
  for (let l = 0; l < lemmas; l++) {
    const lemma = `lemma${l}`;
    const [a, b] = rng.sample(categories, 2) as [string, string];
    const gloss = (c: string) =>
      `${lemma}: a ${rng.choice(words)} ${c} thing, ${rng.choice(words)} and ${rng.choice(words)}`;
    const senseA = { docid: `${lemma}.a`, title: lemma, text: gloss(a) };
    const senseB = { docid: `${lemma}.b`, title: lemma, text: gloss(b) };
    const other = { docid: `${lemma}.x`, title: `${lemma}x`, text: gloss(rng.choice(categories)) };
    examples.push(
      {
        id: `${lemma}-o`,
        query: lemma,
        instruction: `Only ${a} senses.`,
        positives: [senseA],
        negatives: [senseB, other],
        view: 'original',
        pairId: lemma,
      },
      {
        id: `${lemma}-c`,
        query: lemma,
        instruction: `Not ${a} senses.`,
        positives: [senseB],
        negatives: [senseA, other],
        view: 'complement',
        pairId: lemma,
      },
    );
    texts.push(senseA.text, senseB.text, other.text, `Only ${a} senses.`, `Not ${a} senses.`);
  }
  const mix = join(dir, 'mix.jsonl');
  writeFileSync(mix, `${examples.map((e) => JSON.stringify(e)).join('\n')}\n`);
  const tok = await trainWordPiece(texts, { vocabSize: 200, lowercase: true });
  const tokPath = join(dir, 'tokenizer.json');
  await writeFileAtomic(tokPath, tok.json);
  const hidden = options.hidden ?? 64;
  const encoder = createMiniEncoder(options.backbone ?? 'mini-bert', {
    vocabSize: tok.vocabSize,
    seed: options.seed ?? 7,
    overrides: {
      num_hidden_layers: options.layers ?? 1,
      hidden_size: hidden,
      num_attention_heads: hidden / 64,
      intermediate_size: 2 * hidden,
      hidden_dropout_prob: options.dropout ?? 0,
      max_position_embeddings: 64,
    },
  });
  const init = join(dir, 'init');
  await saveCheckpoint(init, { encoder, step: 0, rng: createRng(0) });
  await writeFileAtomic(join(init, 'tokenizer.json'), tok.json);
  encoder.dispose();
  return { mix, init, examples };
}
