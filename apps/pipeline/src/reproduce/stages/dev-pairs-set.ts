/**
 * The held-out dev pairs as an InstructedSet for the complement-view accuracy: per dev seed
 * with an accepted complement, one query whose `og` instruction is the seed's I (relevant: D+)
 * and whose `changed` instruction is the synthesized I' (relevant: D-, the complement's
 * positive); candidates are the seed's senses (D+ and its instruction negatives), so both views
 * rerank the same list.
 */
import type { DualViewExample, InstructedSet, Passage, Qrels, SeedExample } from '@dv/core';

export function devPairsSet(
  seeds: readonly SeedExample[],
  complements: readonly DualViewExample[],
): InstructedSet {
  const bySeed = new Map(seeds.map((s) => [s.id, s]));
  const corpus = new Map<string, Passage>();
  const queries: InstructedSet['queries'] = [];
  const candidates = new Map<string, string[]>();
  const og: Qrels = new Map();
  const changed: Qrels = new Map();
  for (const c of [...complements].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const seed = c.seedId ? bySeed.get(c.seedId) : undefined;
    if (!seed) continue;
    const positive = seed.positives[0]!;
    const target = c.positives[0]!;
    const senses = [positive, ...seed.instructionNegatives];
    if (!senses.some((p) => p.docid === target.docid) || target.docid === positive.docid) continue;
    for (const p of senses) if (!corpus.has(p.docid)) corpus.set(p.docid, p);
    queries.push({
      id: seed.id,
      query: seed.query,
      instructions: { og: seed.instruction.text, changed: c.instruction },
    });
    candidates.set(
      seed.id,
      senses.map((p) => p.docid),
    );
    og.set(seed.id, new Map([[positive.docid, 1]]));
    changed.set(seed.id, new Map([[target.docid, 1]]));
  }
  return {
    name: 'mini-dev-pairs',
    corpus: [...corpus.values()],
    queries,
    qrels: { og, changed },
    candidates,
  };
}
