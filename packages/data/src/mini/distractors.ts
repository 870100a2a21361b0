/**
 * Hard distractors for a lemma: entries of OTHER lemmas that look like the right answer
 * (docs/architecture.md: same-category entries, compounds containing the lemma, sibling senses rather
 * than random ones). Three deterministic sources, interleaved round-robin:
 *   A. BM25 with the lemma (weighted x2) plus an anchor sense's definition;
 *   B. siblings: other hyponyms of an anchor sense's nearest hypernym, most familiar first;
 *   C. BM25 with the lemma alone (compounds like "sea bass", glosses that use the word).
 * Senses of the lemma itself are never distractors (they are on topic by construction).
 */
import { tokenize } from '../internal/bm25.js';
import type { MiniCorpus } from './mini-corpus.js';

/** Ranked lists are cached per corpus: seeds, general data and benchmarks ask for the same lemmas. */
const POOL = 100;
const cache = new WeakMap<MiniCorpus, Map<string, string[]>>();

function ranked(corpus: MiniCorpus, key: string, terms: string[], k: number): string[] {
  let m = cache.get(corpus);
  if (!m) {
    m = new Map();
    cache.set(corpus, m);
  }
  const hit = m.get(key);
  if (hit && (hit.length >= k || hit.length < POOL)) return hit;
  const list = corpus.index.search(terms, Math.max(k, POOL)).map((h) => corpus.docs[h.index]!.docid);
  m.set(key, list);
  return list;
}

export function mineDistractors(
  corpus: MiniCorpus,
  lemma: string,
  anchors: ReadonlyArray<string>,
  exclude: ReadonlySet<string>,
  k: number,
): string[] {
  if (k <= 0) return [];
  const lemmaTokens = tokenize(lemma);
  // Lists are ranked without exclusions (so they can be shared) and filtered below; the pool
  // is over-fetched by the number of excluded ids so that k usable ones remain.
  const want = k + exclude.size;
  const sources: string[][] = [];
  for (const a of anchors) {
    const f = corpus.facts.get(a)!;
    const q = [...lemmaTokens, ...lemmaTokens, ...tokenize(f.synset.definition)];
    sources.push(ranked(corpus, `${lemma}\0${a}`, q, want));
    const parent = f.chain[0];
    sources.push(
      (parent ? (corpus.children.get(parent) ?? []) : []).filter((id) => !exclude.has(id)).slice(0, k),
    );
  }
  sources.push(ranked(corpus, `${lemma}\0`, lemmaTokens, want));
  const out: string[] = [];
  const seen = new Set<string>();
  const cursors = sources.map(() => 0);
  let progressed = true;
  while (out.length < k && progressed) {
    progressed = false;
    for (let s = 0; s < sources.length && out.length < k; s++) {
      const src = sources[s]!;
      while (cursors[s]! < src.length) {
        const id = src[cursors[s]!++]!;
        if (!seen.has(id) && !exclude.has(id)) {
          seen.add(id);
          out.push(id);
          progressed = true;
          break;
        }
      }
    }
  }
  return out;
}
