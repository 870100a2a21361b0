import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dataExternalDir } from '@dv/core/test-utils';
import { describe, expect, it } from 'vitest';
import { HfTokenizer } from './hf-tokenizer.js';

const models = dataExternalDir('the tokenizer fixture tests', 'models');

interface Fixture {
  texts: string[];
  pair?: [string, string];
  tensors: Record<string, { data: number[][] }>;
}
const fixture = (name: string): Fixture =>
  JSON.parse(readFileSync(join(models!, name, 'expected.json'), 'utf8')) as Fixture;

describe.skipIf(!models)('HfTokenizer on real tokenizer.json files', () => {
  it('the real bert-base-uncased tokenizer.json gives the fixture ids, masks and types', async () => {
    const f = fixture('tiny-bert-uncased-wordpiece');
    const tok = HfTokenizer.fromFile(
      join(models!, 'bert-base-uncased-tokenizer-json', 'bert-base-uncased.tokenizer.json'),
    );
    const b = await tok.encode(f.texts);
    expect(b.inputIds).toEqual(f.tensors.input_ids!.data);
    expect(b.attentionMask).toEqual(f.tensors.attention_mask!.data);
    expect(b.tokenTypeIds).toEqual(f.tensors.token_type_ids!.data);
    const p = await tok.encode([f.pair!]);
    expect(p.inputIds).toEqual(f.tensors.pair_input_ids!.data);
    expect(p.tokenTypeIds).toEqual(f.tensors.pair_token_type_ids!.data);
  });

  it('the XLM-R Unigram tokenizer gives the fixture ids (pad id 1)', async () => {
    const f = fixture('tiny-xlm-roberta-unigram');
    const tok = HfTokenizer.fromFile(join(models!, 'tiny-xlm-roberta-unigram', 'tokenizer.json'));
    expect(tok.padId).toBe(1);
    const b = await tok.encode(f.texts);
    expect(b.inputIds).toEqual(f.tensors.input_ids!.data);
    expect(b.attentionMask).toEqual(f.tensors.attention_mask!.data);
  });

  it('truncates to maxLength keeping the closing special token, and pads as asked', async () => {
    const tok = HfTokenizer.fromFile(
      join(models!, 'bert-base-uncased-tokenizer-json', 'bert-base-uncased.tokenizer.json'),
    );
    const long = 'hybrid retrieval combines dense and sparse vectors';
    const t = await tok.encode([long, 'what'], { maxLength: 5 });
    expect(t.tokens[0]).toEqual(['[CLS]', 'hybrid', 'retrieval', 'combines', '[SEP]']);
    expect(t.tokens[1]).toEqual(['[CLS]', 'what', '[SEP]', '[PAD]', '[PAD]']);
    expect(t.attentionMask[1]).toEqual([1, 1, 1, 0, 0]);
    const m = await tok.encode(['what'], { maxLength: 6, padding: 'max-length' });
    expect(m.inputIds[0]).toEqual([101, 2054, 102, 0, 0, 0]);
    const mult = await tok.encode(['what'], { padToMultipleOf: 8 });
    expect(mult.inputIds[0]).toHaveLength(8);
    const none = await tok.encode(['what', 'what is'], { padding: 'none' });
    expect(none.inputIds.map((r) => r.length)).toEqual([3, 4]);
    // The file's own settings never leak in: all-MiniLM's file pads to multiples of 8.
    const mini = HfTokenizer.fromFile(
      join(models!, 'bert-base-uncased-tokenizer-json', 'all-minilm-l6-v2.tokenizer.json'),
    );
    expect((await mini.encode(['what'])).inputIds[0]).toEqual([101, 2054, 102]);
  });
});
