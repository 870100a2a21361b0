/**
 * Complement-view accuracy on held-out dev pairs (DESIGN.md: "instruction accuracy", a
 * low-variance secondary figure). Each dev seed gives two views of the same candidates (the
 * lemma's senses): the original instruction I, under which D+ is the one relevant entry, and the
 * synthesized complement I', under which D- is. A view is right when its relevant entry ranks
 * first (trec_eval order: score descending, ties by doc id descending).
 *
 *   viewAccuracy = right views / all views          (2 per pair)
 *   bothRight    = pairs with both views right / pairs
 *   ogAccuracy, changedAccuracy = the share per view
 *
 * Pairs missing from either run, or without exactly one relevant doc per view, are an error:
 * the set is built so that each pair has both.
 */
import { type Qrels, type Run, rankTopic } from '@dv/core';

export interface ComplementViewAccuracy {
  pairs: number;
  viewAccuracy: number;
  bothRight: number;
  ogAccuracy: number;
  changedAccuracy: number;
  /** Per pair: [og right, changed right] as 0/1. */
  perPair: Record<string, [number, number]>;
}

function topIsRelevant(run: Run, qrels: Qrels, qid: string, which: string): number {
  const row = run.get(qid);
  const rel = [...(qrels.get(qid) ?? new Map<string, number>()).entries()].filter(([, g]) => g > 0);
  if (!row || row.size === 0) throw new Error(`pair ${qid} has no ${which} ranking`);
  if (rel.length !== 1)
    throw new Error(`pair ${qid} needs one relevant doc in the ${which} view, has ${rel.length}`);
  return rankTopic(row)[0] === rel[0]![0] ? 1 : 0;
}

export function complementViewAccuracy(input: {
  qrelsOg: Qrels;
  qrelsChanged: Qrels;
  runOg: Run;
  runChanged: Run;
}): ComplementViewAccuracy {
  const ids = [...input.qrelsOg.keys()].filter((q) => input.qrelsChanged.has(q)).sort();
  const perPair: Record<string, [number, number]> = {};
  let og = 0;
  let ch = 0;
  let both = 0;
  for (const q of ids) {
    const a = topIsRelevant(input.runOg, input.qrelsOg, q, 'og');
    const b = topIsRelevant(input.runChanged, input.qrelsChanged, q, 'changed');
    perPair[q] = [a, b];
    og += a;
    ch += b;
    both += a * b;
  }
  const n = ids.length;
  const div = (x: number, d: number) => (d > 0 ? x / d : Number.NaN);
  return {
    pairs: n,
    viewAccuracy: div(og + ch, 2 * n),
    bothRight: div(both, n),
    ogAccuracy: div(og, n),
    changedAccuracy: div(ch, n),
    perPair,
  };
}
