/**
 * General (no-instruction) training data for the All-* mixes: query = a lemma, positive = its
 * dominant sense (WordNet's first, most frequently tagged sense), negatives = mined distractors
 * of other lemmas. The lemma's other senses are left out entirely: without an instruction they
 * are not wrong answers.
 */
import type { Rng, TrainingExample } from '@dv/core';
import { mineDistractors } from './distractors.js';
import type { MiniCorpus } from './mini-corpus.js';

export function buildGeneralExample(
  corpus: MiniCorpus,
  lemma: string,
  hardNegatives: number,
  _rng: Rng,
): TrainingExample | null {
  const ids = corpus.wn.senses.get(lemma) ?? [];
  const dominant = ids[0];
  if (!dominant) return null;
  const negatives = mineDistractors(corpus, lemma, [dominant], new Set(ids), hardNegatives);
  return {
    id: `mini-general-${lemma.replace(/\s+/g, '_')}`,
    query: lemma,
    instruction: null,
    positives: [corpus.byId.get(dominant)!],
    negatives: negatives.map((id) => corpus.byId.get(id)!),
    view: 'general',
    metadata: { lemma, senses: ids.length },
  };
}
