/**
 * What an instruction asks of a dictionary entry, as data: the lever (the attribute it
 * constrains), the value(s) and the polarity. `holds` is the single definition of relevance in
 * the mini world: a sense of the query lemma is relevant exactly when it satisfies the
 * instruction's constraint, read off WordNet's annotations kept in the entry's metadata.
 *
 * - category: the lexicographer file is one of `anyOf` (`noun.animal`);
 * - hypernym: one of `anyOf` is in the entry's hypernym chain (WordNet `@` / `@i` pointers);
 * - topic / region / usage: the entry has one of `anyOf` as a topic / region / usage domain
 *   (`;c` / `;r` / `;u` pointers);
 * - keyword: the entry's title or text contains the token;
 * - length: the text has at most `maxWords` words;
 * - format: the entry has (or lacks) a usage example.
 * `negated` flips the result ("it must not be a kind of fish").
 */
import type { Passage } from '@dv/core';
import { tokenize } from '../internal/bm25.js';

export const SET_LEVERS = ['category', 'hypernym', 'topic', 'region', 'usage', 'keyword'] as const;
export type SetLever = (typeof SET_LEVERS)[number];
export const MINI_LEVERS = [...SET_LEVERS, 'length', 'format'] as const;
export type MiniLever = (typeof MINI_LEVERS)[number];

export type Constraint =
  | { lever: SetLever; anyOf: string[]; negated: boolean }
  | { lever: 'length'; maxWords: number; negated: boolean }
  | { lever: 'format'; hasExample: boolean; negated: boolean };

type Meta = {
  category?: string;
  hypernyms?: string[];
  topics?: string[];
  regions?: string[];
  usages?: string[];
  hasExample?: boolean;
  wordCount?: number;
};

const ATTRIBUTE: Record<Exclude<SetLever, 'keyword' | 'category'>, keyof Meta> = {
  hypernym: 'hypernyms',
  topic: 'topics',
  region: 'regions',
  usage: 'usages',
};

const tokenCache = new WeakMap<object, Set<string>>();

/** The entry's tokens (title and text), as the keyword lever and BM25 see them; cached per object. */
export function docTokens(doc: Pick<Passage, 'title' | 'text'>): Set<string> {
  let toks = tokenCache.get(doc);
  if (!toks) {
    toks = new Set(tokenize(`${doc.title} ${doc.text}`));
    tokenCache.set(doc, toks);
  }
  return toks;
}

function baseHolds(doc: Passage, c: Constraint): boolean {
  const m = (doc.metadata ?? {}) as Meta;
  switch (c.lever) {
    case 'length':
      return (m.wordCount ?? 0) <= c.maxWords;
    case 'format':
      return (m.hasExample ?? false) === c.hasExample;
    case 'category':
      return c.anyOf.includes(m.category ?? '');
    case 'keyword': {
      const toks = docTokens(doc);
      return c.anyOf.some((k) => toks.has(k));
    }
    default: {
      const values = (m[ATTRIBUTE[c.lever]] as string[] | undefined) ?? [];
      return c.anyOf.some((v) => values.includes(v));
    }
  }
}

/** Whether the entry satisfies the constraint. */
export function holds(doc: Passage, c: Constraint): boolean {
  return baseHolds(doc, c) !== c.negated;
}

/** A compact, readable form: `category=noun.animal|noun.food`, `not hypernym=fish`, `length<=12`. */
export function describeConstraint(c: Constraint): string {
  switch (c.lever) {
    case 'length':
      return c.negated ? `length>${c.maxWords}` : `length<=${c.maxWords}`;
    case 'format':
      return `format=${c.hasExample !== c.negated ? 'has-example' : 'no-example'}`;
    default:
      return `${c.negated ? 'not ' : ''}${c.lever}=${c.anyOf.join('|')}`;
  }
}

/** Both constraints must hold (the changed FollowIR instruction: original AND exclusion). */
export function holdsAll(doc: Passage, cs: ReadonlyArray<Constraint>): boolean {
  return cs.every((c) => holds(doc, c));
}
