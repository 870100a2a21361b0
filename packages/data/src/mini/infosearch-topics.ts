/**
 * InfoSearch-style topics of the mini world, per lever (keyword, length, format = has-example,
 * topic / region / usage domain, category, hypernym): three modes over the same query lemma:
 * - original: no instruction; every sense of the lemma is relevant (pure query relevance);
 * - instructed: a constraint that some senses satisfy and some violate;
 * - reversed: the negated constraint (the complementary senses are relevant).
 * Retrieval runs over the lever's whole corpus (all senses of its topics plus distractors).
 */
import { createRng, type Rng } from '@dv/core';
import { type Constraint, holds, type MiniLever } from './constraint.js';
import { renderInstruction } from './instruction-templates.js';
import type { MiniCorpus } from './mini-corpus.js';
import { sensesOf } from './seed-examples.js';
import { separatingConstraints } from './separating-constraints.js';

export interface InfoSearchTopic {
  id: string;
  lemma: string;
  instructed: string;
  reversed: string;
  constraint: Constraint;
  qrelsOg: Map<string, number>;
  qrelsChanged: Map<string, number>;
  qrelsReversed: Map<string, number>;
}

export function buildInfoSearchTopic(
  corpus: MiniCorpus,
  lemma: string,
  lever: MiniLever,
  rng: Rng,
): InfoSearchTopic | null {
  const senses = sensesOf(corpus, lemma);
  if (senses.length < 2) return null;
  for (const target of rng.shuffle(senses)) {
    const options = separatingConstraints(corpus, lemma, senses, target, {
      negated: false,
      levers: [lever],
    }).get(lever);
    if (!options || options.length === 0) continue;
    const constraint = rng.choice(options);
    const reversedConstraint = { ...constraint, negated: !constraint.negated } as Constraint;
    // Same template for both modes, so only the constraint differs between them.
    const state = rng.getState();
    const instructed = renderInstruction('plain', lemma, constraint, rng);
    const reversed = renderInstruction('plain', lemma, reversedConstraint, createRng(rng.seed, state));
    const qrelsOg = new Map<string, number>();
    const qrelsChanged = new Map<string, number>();
    const qrelsReversed = new Map<string, number>();
    for (const s of senses) {
      const ok = holds(s, constraint);
      qrelsOg.set(s.docid, 1);
      qrelsChanged.set(s.docid, ok ? 1 : 0);
      qrelsReversed.set(s.docid, ok ? 0 : 1);
    }
    return {
      id: `mini-${lever}-${lemma.replace(/\s+/g, '_')}`,
      lemma,
      instructed,
      reversed,
      constraint,
      qrelsOg,
      qrelsChanged,
      qrelsReversed,
    };
  }
  return null;
}
