import { describe, expect, it } from 'vitest';
import { HfTokenizer } from '../tokenizer/hf-tokenizer.js';
import { trainWordPiece } from '../tokenizer/train-word-piece.js';
import { tokenizeBatch } from './tokenize-batch.js';

const words = Array.from({ length: 90 }, (_, i) => `w${i % 30}`);

describe('tokenizeBatch', () => {
  it('truncates queries to maxQueryLength and documents to maxDocLength, as each side alone', async () => {
    const tok = HfTokenizer.fromJson((await trainWordPiece([words.join(' ')], { vocabSize: 100 })).json);
    // 90 words + [CLS] [SEP]: a query longer than the document limit, shorter than the query limit
    const longQuery = `lemma ${words.join(' ')}`;
    const texts = { queryTexts: [longQuery, 'lemma w1'], docTexts: [words.join(' '), 'w2 w3'] };
    const out = await tokenizeBatch(tok, texts, { maxQueryLength: 128, maxDocLength: 16 });
    const alone = await tok.encode(texts.queryTexts, { maxLength: 128 });
    expect(out.queries.inputIds[0]!.length).toBe(93);
    expect(out.queries.inputIds).toEqual(alone.inputIds);
    expect(out.queries.attentionMask[1]!.reduce((a, x) => a + x, 0)).toBe(4);
    expect(out.docs.inputIds.map((r) => r.length)).toEqual([16, 16]);
    expect(out.docs.tokens[0]!.at(-1)).toBe('[SEP]');
  });
});
