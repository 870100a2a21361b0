import type { DataMix, DualViewExample, TrainingExample } from '@dv/core';
import { describe, expect, it } from 'vitest';
import { mixComposition } from './mix-composition.js';
import { buildMixes, type MixExample } from './mixes.js';

const doc = (docid: string) => ({ docid, title: '', text: docid });
const ex = (
  id: string,
  query: string,
  instruction: string | null,
  pos: string[],
  neg: string[],
  view: TrainingExample['view'],
): TrainingExample => ({
  id,
  query,
  instruction,
  positives: pos.map(doc),
  negatives: neg.map(doc),
  view,
});

describe('mixComposition', () => {
  it('counts distinct queries, views and documents, and negatives per view (hand-computed)', () => {
    const examples: MixExample[] = [
      ex('a', 'bank', 'river sense', ['d1'], ['d2', 'd3'], 'original'),
      {
        ...ex('a::dv', 'bank', 'money sense', ['d2'], ['d1'], 'complement'),
        view: 'complement',
        instruction: 'money sense',
        pairId: 'p',
        originalId: 'a',
        synthesisKey: 'k',
      } as DualViewExample,
      ex('a#2', 'bank', 'river sense', ['d1'], ['d2', 'd3'], 'original'),
      ex('b', 'bass', 'fish', ['d4'], [], 'original'),
      ex('g', 'weather today', null, ['d5'], ['d6'], 'general'),
    ];
    expect(mixComposition(examples)).toEqual({
      queries: 3,
      views: 4,
      repeatedQueries: 1,
      positives: 4,
      negatives: 4,
      documents: 6,
      negativesPerExample: { original: 4 / 3, complement: 1, general: 1 },
    });
    expect(mixComposition([]).negativesPerExample).toEqual({
      original: null,
      complement: null,
      general: null,
    });
  });

  it("Ins-DV and the control arm cover half of Ins-orig's topics at one budget", () => {
    const originals: TrainingExample[] = [];
    const complements: DualViewExample[] = [];
    for (let i = 0; i < 30; i++) {
      const paired = i < 20;
      originals.push({
        ...ex(`o${i}`, `lemma${i}`, 'keep sense A', [`p${i}`], [`n${i}`], 'original'),
        ...(paired ? { pairId: `pair:o${i}` } : {}),
      });
      if (paired)
        complements.push({
          ...ex(`o${i}::dv`, `lemma${i}`, 'keep sense B', [`n${i}`], [`p${i}`], 'original'),
          view: 'complement',
          instruction: 'keep sense B',
          pairId: `pair:o${i}`,
          originalId: `o${i}`,
          synthesisKey: 'k',
        });
    }
    const m = buildMixes({
      originals,
      complements,
      budget: 20,
      seed: 3,
      mixes: ['ins-orig', 'ins-dv', 'ins-orig-tm'],
    }) as Record<DataMix, MixExample[]>;
    const orig = mixComposition(m['ins-orig']);
    const dv = mixComposition(m['ins-dv']);
    const tm = mixComposition(m['ins-orig-tm']);
    expect([orig.queries, orig.views, orig.repeatedQueries, orig.documents]).toEqual([20, 20, 0, 40]);
    expect([dv.queries, dv.views, dv.repeatedQueries, dv.documents]).toEqual([10, 20, 10, 20]);
    expect([tm.queries, tm.views, tm.repeatedQueries, tm.documents]).toEqual([10, 10, 10, 20]);
  });
});
