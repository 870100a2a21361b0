/**
 * The query lemmas of the mini world and their train / dev / test split. A lemma qualifies
 * when its noun senses span two or more lexicographer categories (~10.8k in WordNet 3.1);
 * lemmas are assigned to exactly one split by a seeded shuffle, so a lemma never crosses splits.
 */
import type { Rng } from '@dv/core';
import type { WordNet } from '../wordnet/load-wordnet.js';

export interface LemmaSplits {
  train: string[];
  dev: string[];
  test: string[];
}

/** Words of three or more letters (spaces, hyphens, apostrophes inside): no initials or codes. */
const QUERY_LEMMA = /^[a-z][a-z' -]*[a-z]$/;
const MIN_LETTERS = 3;

/** Lemmas (sorted) whose senses span at least `minCategories` categories, with at most `maxSenses`. */
export function ambiguousLemmas(wn: WordNet, minCategories = 2, maxSenses = 40): string[] {
  const out: string[] = [];
  for (const [lemma, ids] of wn.senses) {
    if (ids.length > maxSenses || !QUERY_LEMMA.test(lemma)) continue;
    if (lemma.replace(/[^a-z]/g, '').length < MIN_LETTERS) continue;
    const cats = new Set(ids.map((id) => wn.synsets.get(id)!.category));
    if (cats.size >= minCategories) out.push(lemma);
  }
  return out.sort();
}

/**
 * Test first, then dev, then train from one shuffle; `train` null = all remaining lemmas.
 * Throws when the pool is too small for the requested test + dev sizes.
 */
export function splitLemmas(
  lemmas: ReadonlyArray<string>,
  sizes: { test: number; dev: number; train: number | null },
  rng: Rng,
): LemmaSplits {
  if (sizes.test + sizes.dev > lemmas.length) {
    throw new Error(`only ${lemmas.length} ambiguous lemmas for ${sizes.test} test + ${sizes.dev} dev`);
  }
  const order = rng.shuffle([...lemmas].sort());
  const test = order.slice(0, sizes.test).sort();
  const dev = order.slice(sizes.test, sizes.test + sizes.dev).sort();
  const rest = order.slice(sizes.test + sizes.dev);
  const train = (sizes.train === null ? rest : rest.slice(0, sizes.train)).sort();
  return { train, dev, test };
}
