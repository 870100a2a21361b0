/**
 * Constraints that separate one sense of a lemma from the others: the target satisfies each
 * returned constraint and at least one other sense violates it. Every value comes from the
 * target's (or, for negated constraints, another sense's) WordNet attributes, so an
 * instruction built from one is justified by WordNet data.
 *
 * Positive mode (`negated: false`): "the sense that is a kind of fish".
 * Negated mode (`negated: true`): values the target lacks but another sense has: "not a food".
 */
import type { Passage } from '@dv/core';
import { tokenize } from '../internal/bm25.js';
import { type Constraint, docTokens, holds, type MiniLever } from './constraint.js';
import { concreteHypernyms } from './hypernym-values.js';
import type { MiniCorpus } from './mini-corpus.js';

type Meta = {
  lemmas: string[];
  category: string;
  hypernyms: string[];
  textHypernyms: string[];
  topics: string[];
  regions: string[];
  usages: string[];
  hasExample: boolean;
  wordCount: number;
};

const meta = (d: Passage) => d.metadata as unknown as Meta;

/** Content words of an entry's definition that a keyword instruction may name. */
export function keywordCandidates(corpus: MiniCorpus, doc: Passage, lemma: string): string[] {
  const banned = new Set([...tokenize(lemma), ...meta(doc).lemmas.flatMap(tokenize)]);
  const def = corpus.facts.get(doc.docid)!.synset.definition;
  return [...new Set(tokenize(def))].filter((t) => t.length >= 4 && !/\d/.test(t) && !banned.has(t)).sort();
}

export function separatingConstraints(
  corpus: MiniCorpus,
  lemma: string,
  senses: ReadonlyArray<Passage>,
  target: Passage,
  options: { negated: boolean; levers?: ReadonlyArray<MiniLever> },
): Map<MiniLever, Constraint[]> {
  const others = senses.filter((s) => s.docid !== target.docid);
  const out = new Map<MiniLever, Constraint[]>();
  const allowed = (l: MiniLever) => !options.levers || options.levers.includes(l);
  const add = (c: Constraint) => {
    if (!allowed(c.lever) || !holds(target, c) || !others.some((o) => !holds(o, c))) return;
    const list = out.get(c.lever) ?? [];
    list.push(c);
    out.set(c.lever, list);
  };
  const t = meta(target);
  const setLever = (
    lever: 'category' | 'hypernym' | 'topic' | 'region' | 'usage' | 'keyword',
    values: (d: Passage) => string[],
  ) => {
    if (!allowed(lever)) return;
    const pool = options.negated
      ? [...new Set(others.flatMap(values))].filter((v) => !values(target).includes(v))
      : [...new Set(values(target))];
    for (const v of pool.sort()) add({ lever, anyOf: [v], negated: options.negated });
  };
  setLever('category', (d) => [meta(d).category]);
  // Printed hypernyms that are concrete enough to name (no "a kind of cognition").
  const concrete = new Map<string, Set<string>>();
  const printedConcrete = (d: Passage) => {
    let c = concrete.get(d.docid);
    if (!c) {
      c = new Set(concreteHypernyms(corpus, d));
      concrete.set(d.docid, c);
    }
    const cs = c;
    return meta(d).textHypernyms.filter((h) => cs.has(h));
  };
  setLever('hypernym', printedConcrete);
  setLever('topic', (d) => meta(d).topics);
  setLever('region', (d) => meta(d).regions);
  setLever('usage', (d) => meta(d).usages);
  if (allowed('keyword')) {
    if (options.negated) {
      const own = docTokens(target);
      const pool = new Set(
        others.flatMap((o) => keywordCandidates(corpus, o, lemma)).filter((k) => !own.has(k)),
      );
      for (const k of [...pool].sort()) add({ lever: 'keyword', anyOf: [k], negated: true });
    } else {
      for (const k of keywordCandidates(corpus, target, lemma))
        add({ lever: 'keyword', anyOf: [k], negated: false });
    }
  }
  if (!options.negated) {
    const wc = t.wordCount;
    const longer = others.map((o) => meta(o).wordCount).filter((w) => w > wc);
    const shorter = others.map((o) => meta(o).wordCount).filter((w) => w < wc);
    if (longer.length > 0)
      add({ lever: 'length', maxWords: Math.floor((wc + Math.min(...longer)) / 2), negated: false });
    if (shorter.length > 0)
      add({ lever: 'length', maxWords: Math.floor((wc + Math.max(...shorter) - 1) / 2), negated: true });
    add({ lever: 'format', hasExample: t.hasExample, negated: false });
  }
  return out;
}
