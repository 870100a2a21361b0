/**
 * One mini-world document per WordNet noun synset: a dictionary entry whose title is the
 * synset's words and whose text is WordNet's own gloss, grounded with WordNet's own labels:
 * a few hypernyms ("A kind of percoid fish, fish, animal.", the finding of docs/architecture.md that
 * grounding categories in the text is what lets instructions be followed), the topic / region /
 * usage domain labels a printed dictionary shows, and the usage examples.
 *
 * Attributes go to `metadata` under the well-known keys of `DocAttributes` (@dv/core); the
 * extra key `textHypernyms` lists the hypernyms that the text names.
 *
 * @example
 *   title: "bass"
 *   text:  "Nontechnical name for any of numerous edible marine and freshwater spiny-finned
 *           fishes. A kind of percoid fish, fish, animal."
 */
import type { Passage } from '@dv/core';
import type { Synset, WordNet } from '../wordnet/load-wordnet.js';

export interface EntryFacts {
  synset: Synset;
  /** Hypernym synset ids, nearest first, up to the root. */
  chain: string[];
  /** Head words of `chain`. */
  hypernyms: string[];
  /** The hypernym head words named in the text (nearest first). */
  textHypernyms: string[];
  topics: string[];
  regions: string[];
  usages: string[];
}

/** Ancestors this close to the root (entity, physical entity, object...) are too vague to name. */
const MIN_NAMED_DEPTH = 3;
/** How many hypernyms the text names: the nearest one plus the most familiar further ones. */
const NAMED_HYPERNYMS = 3;

export function headWord(s: Synset): string {
  return s.words[0]!;
}

function hypernymOf(s: Synset): string | undefined {
  return (s.pointers.find((p) => p.symbol === '@') ?? s.pointers.find((p) => p.symbol === '@i'))?.target;
}

export function entryFacts(wn: WordNet, synset: Synset): EntryFacts {
  const chain: string[] = [];
  const seen = new Set<string>([synset.id]);
  let cur = hypernymOf(synset);
  while (cur && !seen.has(cur) && wn.synsets.has(cur)) {
    chain.push(cur);
    seen.add(cur);
    cur = hypernymOf(wn.synsets.get(cur)!);
  }
  const hypernyms = chain.map((id) => headWord(wn.synsets.get(id)!));
  const own = new Set(synset.words.map((w) => w.toLowerCase()));
  const named: number[] = [];
  if (chain.length > 0) named.push(0);
  const further = chain
    .map((id, i) => ({ i, depth: chain.length - 1 - i, tags: wn.tagCounts.get(id) ?? 0 }))
    .filter((a) => a.i > 0 && a.depth >= MIN_NAMED_DEPTH)
    .sort((a, b) => b.tags - a.tags || a.i - b.i)
    .slice(0, NAMED_HYPERNYMS - 1)
    .map((a) => a.i);
  named.push(...further);
  const textHypernyms: string[] = [];
  for (const i of named.sort((a, b) => a - b)) {
    const w = hypernyms[i]!;
    if (!own.has(w.toLowerCase()) && !textHypernyms.includes(w)) textHypernyms.push(w);
  }
  const domain = (symbol: string) =>
    [
      ...new Set(
        synset.pointers
          .filter((p) => p.symbol === symbol && wn.synsets.has(p.target))
          .map((p) => headWord(wn.synsets.get(p.target)!)),
      ),
    ].sort();
  return {
    synset,
    chain,
    hypernyms,
    textHypernyms,
    topics: domain(';c'),
    regions: domain(';r'),
    usages: domain(';u'),
  };
}

function sentence(s: string): string {
  const t = s.trim();
  if (t === '') return t;
  const cap = t[0]!.toUpperCase() + t.slice(1);
  return /[.!?]$/.test(cap) ? cap : `${cap}.`;
}

/** The entry's text: gloss, named hypernyms, domain labels, examples. */
export function entryText(f: EntryFacts): string {
  const parts = [sentence(f.synset.definition)];
  if (f.textHypernyms.length > 0) parts.push(`A kind of ${f.textHypernyms.join(', ')}.`);
  if (f.topics.length > 0) parts.push(`Field: ${f.topics.join(', ')}.`);
  if (f.regions.length > 0) parts.push(`Region: ${f.regions.join(', ')}.`);
  if (f.usages.length > 0) parts.push(`Usage: ${f.usages.join(', ')}.`);
  const ex = f.synset.examples;
  if (ex.length > 0)
    parts.push(`${ex.length === 1 ? 'Example' : 'Examples'}: ${ex.map((e) => `"${e}"`).join('; ')}.`);
  return parts.filter((p) => p !== '').join(' ');
}

export function countWords(text: string): number {
  const t = text.trim();
  return t === '' ? 0 : t.split(/\s+/).length;
}

/** The document for a synset. `senseRank` is the rank of the synset among its head word's senses. */
export function entryDocument(wn: WordNet, f: EntryFacts): Passage {
  const s = f.synset;
  const text = entryText(f);
  const lemma = headWord(s);
  const ranks = wn.senses.get(lemma.toLowerCase());
  const rank = ranks ? ranks.indexOf(s.id) + 1 : 0;
  return {
    docid: s.id,
    title: s.words.join(', '),
    text,
    metadata: {
      lemma,
      lemmas: s.words,
      category: s.category,
      hypernyms: f.hypernyms,
      textHypernyms: f.textHypernyms,
      topics: f.topics,
      regions: f.regions,
      usages: f.usages,
      hasExample: s.examples.length > 0,
      wordCount: countWords(text),
      senseRank: rank > 0 ? rank : 1,
    },
  };
}
