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
 * With `sensesOf`, splits are also disjoint in documents: a dev lemma sharing a sense (synset)
 * with a test lemma is skipped, and so is a train lemma sharing one with dev or test (WordNet
 * synsets have several words, e.g. "bass" and "basso"), so no held-out entry is a training positive.
 * With `testFirst`, test lemmas come from the preferred ones while they last.
 * Throws when the pool is too small for the requested test + dev sizes.
 */
export function splitLemmas(
  lemmas: ReadonlyArray<string>,
  sizes: { test: number; dev: number; train: number | null },
  rng: Rng,
  sensesOf?: (lemma: string) => ReadonlyArray<string>,
  testFirst?: (lemma: string) => boolean,
): LemmaSplits {
  if (sizes.test + sizes.dev > lemmas.length) {
    throw new Error(`only ${lemmas.length} ambiguous lemmas for ${sizes.test} test + ${sizes.dev} dev`);
  }
  const shuffled = rng.shuffle([...lemmas].sort());
  // Test lemmas are drawn first from those `testFirst` prefers (e.g. >= 3 senses, so an og
  // instruction can leave a judged sense non-relevant); the order of the rest is unchanged.
  const preferred = testFirst ? shuffled.filter(testFirst) : shuffled;
  const head = preferred.slice(0, sizes.test);
  const taken = new Set(head);
  const order = [...head, ...shuffled.filter((l) => !taken.has(l))];
  const held = new Set<string>();
  const clashes = (l: string) => (sensesOf ? sensesOf(l).some((id) => held.has(id)) : false);
  const hold = (l: string) => {
    for (const id of sensesOf?.(l) ?? []) held.add(id);
  };
  const test = order.slice(0, sizes.test);
  for (const l of test) hold(l);
  const dev: string[] = [];
  let i = sizes.test;
  for (; i < order.length && dev.length < sizes.dev; i++) {
    if (!clashes(order[i]!)) dev.push(order[i]!);
  }
  for (const l of dev) hold(l);
  const train: string[] = [];
  for (; i < order.length && (sizes.train === null || train.length < sizes.train); i++) {
    if (!clashes(order[i]!)) train.push(order[i]!);
  }
  return { train: train.sort(), dev: dev.sort(), test: test.sort() };
}
