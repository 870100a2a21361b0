import { DualViewExample, SeedExample } from '@dv/core';
import { describe, expect, it } from 'vitest';
import { devPairsSet } from './dev-pairs-set.js';

const p = (docid: string) => ({ docid, title: docid, text: `entry ${docid}` });
const seed = SeedExample.parse({
  id: 's1',
  query: 'bass',
  instruction: { text: 'the fish', lever: 'category' },
  positives: [p('fish')],
  instructionNegatives: [p('voice'), p('guitar')],
  hardNegatives: [p('trout')],
});
const complement = (seedId: string, positive: string) =>
  DualViewExample.parse({
    id: `${seedId}::dv`,
    query: 'bass',
    instruction: 'the instrument',
    positives: [p(positive)],
    negatives: [p('fish')],
    view: 'complement',
    seedId,
    originalId: seedId,
    synthesisKey: 'k',
  });

describe('devPairsSet', () => {
  it("one query per pair: og = I (D+ relevant), changed = I' (D- relevant), candidates = the senses", () => {
    const set = devPairsSet([seed], [complement('s1', 'guitar'), complement('missing', 'x')]);
    expect(set.queries).toEqual([
      { id: 's1', query: 'bass', instructions: { og: 'the fish', changed: 'the instrument' } },
    ]);
    expect(set.candidates?.get('s1')).toEqual(['fish', 'voice', 'guitar']);
    expect([...set.qrels.og!.get('s1')!]).toEqual([['fish', 1]]);
    expect([...set.qrels.changed!.get('s1')!]).toEqual([['guitar', 1]]);
    expect(set.corpus.map((d) => d.docid)).toEqual(['fish', 'voice', 'guitar']);
  });
  it('skips complements whose positive is not another sense of the seed', () => {
    expect(devPairsSet([seed], [complement('s1', 'trout')]).queries).toHaveLength(0);
    expect(devPairsSet([seed], [complement('s1', 'fish')]).queries).toHaveLength(0);
  });
});
