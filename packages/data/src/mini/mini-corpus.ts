/**
 * The mini world's corpus in memory: one entry document per WordNet noun synset, the facts
 * behind each, a BM25 index over the entries, and the hyponym lists used to find sibling
 * senses. Everything downstream (seeds, general data, benchmarks) reads from this.
 */
import type { Passage } from '@dv/core';
import { Bm25Search } from '../internal/bm25.js';
import type { WordNet } from '../wordnet/load-wordnet.js';
import { type EntryFacts, entryDocument, entryFacts } from './entry-document.js';

export interface MiniCorpus {
  wn: WordNet;
  /** Documents in WordNet file order. */
  docs: Passage[];
  byId: Map<string, Passage>;
  facts: Map<string, EntryFacts>;
  /** docid -> position in `docs` (and in `index`). */
  position: Map<string, number>;
  index: Bm25Search;
  /** Hypernym id -> direct hyponym ids (from the `@` / `@i` chains), most familiar first. */
  children: Map<string, string[]>;
}

export function buildMiniCorpus(wn: WordNet): MiniCorpus {
  const docs: Passage[] = [];
  const byId = new Map<string, Passage>();
  const facts = new Map<string, EntryFacts>();
  const position = new Map<string, number>();
  const children = new Map<string, string[]>();
  for (const s of wn.synsets.values()) {
    const f = entryFacts(wn, s);
    const d = entryDocument(wn, f);
    position.set(d.docid, docs.length);
    docs.push(d);
    byId.set(d.docid, d);
    facts.set(d.docid, f);
    const parent = f.chain[0];
    if (parent) {
      const list = children.get(parent);
      if (list) list.push(d.docid);
      else children.set(parent, [d.docid]);
    }
  }
  for (const list of children.values()) {
    list.sort((a, b) => (wn.tagCounts.get(b) ?? 0) - (wn.tagCounts.get(a) ?? 0) || (a < b ? -1 : 1));
  }
  const index = new Bm25Search(docs.map((d) => `${d.title} ${d.text}`));
  return { wn, docs, byId, facts, position, index, children };
}
