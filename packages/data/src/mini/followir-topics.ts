/**
 * FollowIR-form topics of the mini world, one per test lemma:
 * - original instruction (narrative): relevant = the lemma's senses in a chosen set of
 *   lexicographer categories (at least two senses);
 * - changed instruction = original + one exclusion sentence (by hypernym, topic domain or
 *   region domain, docs/architecture.md), so it only removes relevance: some originally relevant senses
 *   become non-relevant, at least one stays relevant;
 * - graded qrels for both (2 = the lemma heads the synset, 1 = the lemma is a secondary word of
 *   it, 0 = judged non-relevant sense);
 * - a fixed candidate list: all senses plus mined distractors, shuffled.
 */
import type { Passage, Rng } from '@dv/core';
import { type Constraint, describeConstraint, holds } from './constraint.js';
import { mineDistractors } from './distractors.js';
import { renderExclusion, renderNarrative } from './instruction-templates.js';
import type { MiniCorpus } from './mini-corpus.js';
import { sensesOf } from './seed-examples.js';
import { separatingConstraints } from './separating-constraints.js';

export interface FollowIRTopic {
  id: string;
  lemma: string;
  instructionOg: string;
  instructionChanged: string;
  ogConstraint: Constraint;
  exclusion: Constraint;
  qrelsOg: Map<string, number>;
  qrelsChanged: Map<string, number>;
  candidates: string[];
  metadata: Record<string, unknown>;
}

export const EXCLUSION_LEVERS = ['hypernym', 'topic', 'region'] as const;
const MAX_CATEGORIES = 10;

/** 2 when the lemma is the synset's first word, else 1 (it is a secondary word of the entry). */
export function senseGrade(doc: Passage, lemma: string): number {
  const words = ((doc.metadata as { lemmas?: string[] }).lemmas ?? []).map((w) => w.toLowerCase());
  return words[0] === lemma ? 2 : 1;
}

function exclusionsFor(corpus: MiniCorpus, lemma: string, relevant: Passage[]): Constraint[] {
  const seen = new Map<string, Constraint>();
  for (const t of relevant) {
    const byLever = separatingConstraints(corpus, lemma, relevant, t, {
      negated: true,
      levers: EXCLUSION_LEVERS,
    });
    for (const list of byLever.values()) for (const c of list) seen.set(describeConstraint(c), c);
  }
  return [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, c]) => c);
}

export function buildFollowIRTopic(
  corpus: MiniCorpus,
  lemma: string,
  rng: Rng,
  candidates: number,
): FollowIRTopic | null {
  const senses = sensesOf(corpus, lemma);
  const cats = [...new Set(senses.map((s) => (s.metadata as { category: string }).category))];
  if (cats.length < 2 || cats.length > MAX_CATEGORIES) return null;
  const options: Array<{ cats: string[]; relevant: Passage[]; exclusions: Constraint[]; proper: boolean }> =
    [];
  for (let mask = 1; mask < 1 << cats.length; mask++) {
    const chosen = cats.filter((_, i) => mask & (1 << i));
    const og: Constraint = { lever: 'category', anyOf: chosen, negated: false };
    const relevant = senses.filter((s) => holds(s, og));
    if (relevant.length < 2) continue;
    const exclusions = exclusionsFor(corpus, lemma, relevant);
    if (exclusions.length > 0)
      options.push({ cats: chosen, relevant, exclusions, proper: chosen.length < cats.length });
  }
  if (options.length === 0) return null;
  const proper = options.filter((o) => o.proper);
  const pick = rng.choice(proper.length > 0 ? proper : options);
  const ogConstraint: Constraint = { lever: 'category', anyOf: pick.cats, negated: false };
  const exclusion = rng.choice(pick.exclusions);
  const instructionOg = renderNarrative(lemma, ogConstraint, rng);
  const instructionChanged = `${instructionOg} ${renderExclusion(exclusion, rng)}`;

  const qrelsOg = new Map<string, number>();
  const qrelsChanged = new Map<string, number>();
  const removed: string[] = [];
  for (const s of senses) {
    const og = holds(s, ogConstraint);
    const changed = og && holds(s, exclusion);
    qrelsOg.set(s.docid, og ? senseGrade(s, lemma) : 0);
    qrelsChanged.set(s.docid, changed ? senseGrade(s, lemma) : 0);
    if (og && !changed) removed.push(s.docid);
  }
  const senseIds = senses.map((s) => s.docid);
  const distractors = mineDistractors(
    corpus,
    lemma,
    senseIds,
    new Set(senseIds),
    candidates - senseIds.length,
  );
  return {
    id: `mini-${lemma.replace(/\s+/g, '_')}`,
    lemma,
    instructionOg,
    instructionChanged,
    ogConstraint,
    exclusion,
    qrelsOg,
    qrelsChanged,
    candidates: rng.shuffle([...senseIds, ...distractors]),
    metadata: {
      lemma,
      ogConstraint: describeConstraint(ogConstraint),
      changedConstraint: describeConstraint(exclusion),
      lever: 'category',
      changedLever: exclusion.lever,
      removedDocids: removed,
      dominantRemoved: removed.includes(senseIds[0]!),
      dominantRelevantOg: (qrelsOg.get(senseIds[0]!) ?? 0) > 0,
    },
  };
}
