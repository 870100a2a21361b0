/**
 * What a training mix covers beyond its view counts: distinct queries (the topics a retriever
 * sees), distinct query + instruction pairs, distinct positive and labelled-negative documents,
 * how many queries occur more than once, and the labelled negatives per example of each view.
 *
 * Two mixes of one budget can cover very different ground: Ins-DV's N/2 pairs put N/2 queries
 * under two instructions each, Ins-orig's N originals N queries under one. Issue 26 found that
 * this difference in topic count, not the complement view, drove the mini headline, so a mix
 * build reports it beside the counts (`mixes.json`, the report's data section).
 *
 * Queries are compared by their text, documents by `docid`; a general (no-instruction) example
 * counts its query under the empty instruction.
 */
import type { MixExample } from './mixes.js';

export interface MixComposition {
  /** Distinct query texts. */
  queries: number;
  /** Distinct (query, instruction) pairs: the views a retriever is trained on. */
  views: number;
  /** Queries with more than one example (repeated topics). */
  repeatedQueries: number;
  /** Distinct positive docids. */
  positives: number;
  /** Distinct labelled-negative docids. */
  negatives: number;
  /** Distinct docids over positives and negatives. */
  documents: number;
  /** Mean labelled negatives per example, by view (null: no example of that view). */
  negativesPerExample: Record<'original' | 'complement' | 'general', number | null>;
}

export function mixComposition(examples: readonly MixExample[]): MixComposition {
  const perQuery = new Map<string, number>();
  const views = new Set<string>();
  const positives = new Set<string>();
  const negatives = new Set<string>();
  const neg = { original: [0, 0], complement: [0, 0], general: [0, 0] } as Record<
    MixExample['view'],
    [number, number]
  >;
  for (const e of examples) {
    perQuery.set(e.query, (perQuery.get(e.query) ?? 0) + 1);
    views.add(JSON.stringify([e.query, e.instruction ?? '']));
    for (const p of e.positives) positives.add(p.docid);
    for (const n of e.negatives) negatives.add(n.docid);
    const slot = neg[e.view];
    slot[0] += e.negatives.length;
    slot[1] += 1;
  }
  const mean = ([sum, n]: [number, number]) => (n === 0 ? null : sum / n);
  return {
    queries: perQuery.size,
    views: views.size,
    repeatedQueries: [...perQuery.values()].filter((n) => n > 1).length,
    positives: positives.size,
    negatives: negatives.size,
    documents: new Set([...positives, ...negatives]).size,
    negativesPerExample: {
      original: mean(neg.original),
      complement: mean(neg.complement),
      general: mean(neg.general),
    },
  };
}
