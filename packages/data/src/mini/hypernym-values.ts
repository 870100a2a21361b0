/**
 * Which hypernyms may name a constraint value. WordNet's chains run up to very abstract
 * synsets ("cognition" for Jupiter, "signal", "nature", "determinant"); an instruction saying
 * "not a kind of cognition" is absurd to a reader. A hypernym is usable when its synset is at
 * least `MIN_VALUE_DEPTH` links below the root (entity = depth 0; cognition, signal and
 * determinant sit at depth 3), is not in `noun.Tops`, and its head word is not on a short list
 * of vague words that WordNet places deeper.
 */
import type { Passage } from '@dv/core';
import type { MiniCorpus } from './mini-corpus.js';

export const MIN_VALUE_DEPTH = 4;

export const ABSTRACT_HYPERNYMS: ReadonlySet<string> = new Set(
  `entity abstraction object whole thing matter attribute relation group grouping measure quantity act
  event state signal nature determinant cause part portion unit being content idea concept property feeling
  activity process phenomenon location point quality condition information message knowledge domain
  instrumentality structure system kind sort type form variety category class collection set item piece
  amount way means action change difference power trait characteristic situation status position area
  region place time period body substance material person individual someone somebody organism`
    .split(/\s+/)
    .filter(Boolean),
);

/** Hypernym synset ids of a document with their head words, nearest first. */
export function hypernymIds(corpus: MiniCorpus, doc: Passage): Array<{ id: string; word: string }> {
  const f = corpus.facts.get(doc.docid);
  if (!f) return [];
  return f.chain.map((id, i) => ({ id, word: f.hypernyms[i]! }));
}

export function isConcreteHypernym(corpus: MiniCorpus, id: string): boolean {
  const f = corpus.facts.get(id);
  if (!f) return false;
  const word = f.synset.words[0]!.toLowerCase();
  return (
    f.chain.length >= MIN_VALUE_DEPTH && f.synset.category !== 'noun.Tops' && !ABSTRACT_HYPERNYMS.has(word)
  );
}

/** The head words of a document's hypernyms that may be constraint values (nearest first). */
export function concreteHypernyms(corpus: MiniCorpus, doc: Passage): string[] {
  const out: string[] = [];
  for (const h of hypernymIds(corpus, doc)) {
    if (isConcreteHypernym(corpus, h.id) && !out.includes(h.word)) out.push(h.word);
  }
  return out;
}
