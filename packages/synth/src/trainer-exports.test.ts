import { readFileSync } from 'node:fs';
import { FormatterSettings, TrainingExample } from '@dv/core';
import { describe, expect, it } from 'vitest';
import { tempDir } from './test-utils/write-seeds.js';
import { exportForTrainers } from './trainer-exports.js';

const doc = (docid: string, text: string, title = '') => ({ docid, title, text });
const examples = [
  TrainingExample.parse({
    id: 'a',
    query: 'bass',
    instruction: 'only the fish',
    positives: [doc('p1', 'a fish', 'Bass')],
    negatives: [doc('n1', 'a guitar'), doc('n2', 'a viola'), doc('n3', 'a drum')],
    view: 'original',
  }),
  // General data often has no hard negatives.
  TrainingExample.parse({
    id: 'b',
    query: 'trout',
    instruction: null,
    positives: [doc('p2', 'a trout')],
    view: 'general',
  }),
  TrainingExample.parse({
    id: 'c',
    query: 'viola',
    instruction: 'the instrument',
    positives: [doc('p3', 'a string instrument')],
    negatives: [doc('n4', 'a flower'), doc('n5', 'a name')],
    view: 'original',
  }),
];
const formatter = FormatterSettings.parse({ queryPrefix: 'query: ', documentPrefix: 'passage: ' });
const lines = (p: string) =>
  readFileSync(p, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/**
 * The negative draw of Tevatron's TrainDataset (tevatron/retriever/dataset.py, `__getitem__`:
 * `random.choices(negatives, k=n)` when the row has fewer than n, else a sample) and of
 * FlagEmbedding's AbsEmbedderTrainDataset (`random.sample(neg * ceil(n / len(neg)), n)`), both of
 * which raise on an empty list. Transcribed as the precondition they need: n >= 1 negatives drawable.
 */
function drawNegatives(negatives: unknown[], n: number): unknown[] {
  if (negatives.length === 0) throw new Error('IndexError: Cannot choose from an empty sequence');
  return Array.from({ length: n }, (_, i) => negatives[i % negatives.length]);
}

describe('trainer exports', () => {
  it('an example without negatives drops nobody else’s negatives and never reaches a group sampler', async () => {
    const dir = tempDir();
    const files = await exportForTrainers(
      examples,
      dir,
      ['tevatron', 'sentence-transformers', 'flagembedding'],
      {
        formatter,
      },
    );
    const st = lines(files['sentence-transformers']!);
    expect(st.map((r) => r.anchor)).toEqual(['query: bass only the fish', 'query: viola the instrument']);
    // k = 2 (the smallest count among rows with negatives), the same columns on every row.
    for (const r of st) expect(Object.keys(r)).toEqual(['anchor', 'positive', 'negative_1', 'negative_2']);
    expect(st[0]!.negative_2).toBe('passage: a viola');
    const pairs = lines(files['sentence-transformers-pairs']!);
    expect(pairs).toEqual([{ anchor: 'query: trout', positive: 'passage: a trout' }]);

    const tev = lines(files.tevatron!);
    const fe = lines(files.flagembedding!);
    expect(tev.map((r) => r.query_id)).toEqual(['a', 'c']);
    expect(fe).toHaveLength(2);
    for (const r of tev) expect(drawNegatives(r.negative_passages as unknown[], 7)).toHaveLength(7);
    for (const r of fe) expect(drawNegatives(r.neg as unknown[], 7)).toHaveLength(7);
    expect(() => drawNegatives([], 1)).toThrow(/empty/);
  });

  it('Tevatron documents carry the document prefix, as its queries carry the query prefix', async () => {
    const files = await exportForTrainers(examples, tempDir(), ['tevatron'], { formatter });
    const [a] = lines(files.tevatron!);
    expect(a!.query).toBe('query: bass only the fish');
    // Title folded into the formatted text, and no title key (Tevatron would join title + ' ' + text).
    expect(a!.positive_passages).toEqual([{ docid: 'p1', text: 'passage: Bass a fish' }]);
    expect((a!.negative_passages as Array<{ text: string }>).map((p) => p.text)).toEqual([
      'passage: a guitar',
      'passage: a viola',
      'passage: a drum',
    ]);
  });
});
