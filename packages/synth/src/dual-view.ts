/**
 * Dual-view assembly: the two training views of a seed.
 *
 * Original view: (q, I), positives = the seed's positives ([D+, ...]), negatives = the
 * instruction negatives first, then the hard negatives (Promptriever's order).
 * Complement view: (q, I'), positive = D-, negatives = D+ first, then the remaining
 * instruction negatives (the prompt asks that they keep their status), then the hard
 * negatives. The seed's other positives are left out of the complement: they satisfied I,
 * and nothing says whether they satisfy I'. Hard negatives mined around D- come first in the
 * complement when the seed lists them (`metadata.targetHardNegatives`, docids; the mini world
 * does), so the complement's hard negatives look like its positive, not like D+.
 * Both views share `pairId`; the complement's `originalId` is the original's id.
 */
import type { DualViewExample, Passage, SeedExample, SynthesisRecord, TrainingExample } from '@dv/core';

export function originalId(seed: SeedExample): string {
  return seed.id;
}

export function pairIdFor(seed: SeedExample): string {
  return `pair:${seed.id}`;
}

function dedupe(ps: Passage[], exclude: Set<string>): Passage[] {
  const seen = new Set(exclude);
  const out: Passage[] = [];
  for (const p of ps) {
    if (seen.has(p.docid)) continue;
    seen.add(p.docid);
    out.push(p);
  }
  return out;
}

export function originalExample(seed: SeedExample, paired: boolean): TrainingExample {
  const positives = seed.positives;
  return {
    id: originalId(seed),
    query: seed.query,
    instruction: seed.instruction.text,
    positives,
    negatives: dedupe(
      [...seed.instructionNegatives, ...seed.hardNegatives],
      new Set(positives.map((p) => p.docid)),
    ),
    view: 'original',
    ...(paired ? { pairId: pairIdFor(seed) } : {}),
    seedId: seed.id,
  };
}

/** The seed's hard negatives, those mined around D- (`metadata.targetHardNegatives`) first. */
export function complementHardNegatives(seed: SeedExample): Passage[] {
  const around = seed.metadata?.targetHardNegatives;
  if (!Array.isArray(around) || around.length === 0) return seed.hardNegatives;
  const first = new Set(around.filter((x): x is string => typeof x === 'string'));
  return [
    ...seed.hardNegatives.filter((p) => first.has(p.docid)),
    ...seed.hardNegatives.filter((p) => !first.has(p.docid)),
  ];
}

export function complementExample(seed: SeedExample, record: SynthesisRecord): DualViewExample {
  if (record.status !== 'accepted' || !record.newInstruction)
    throw new Error(`record ${record.key} for seed ${seed.id} is not accepted`);
  const target = seed.instructionNegatives.find((n) => n.docid === record.negativeDocid);
  if (!target) throw new Error(`seed ${seed.id} has no instruction negative ${record.negativeDocid}`);
  const others = seed.instructionNegatives.filter((n) => n.docid !== target.docid);
  const { explanation: _e, followirScore: _f, jointId: _j, ...positive } = target;
  return {
    id: `${seed.id}::dv`,
    query: seed.query,
    instruction: record.newInstruction,
    positives: [positive],
    negatives: dedupe(
      [seed.positives[0]!, ...others, ...complementHardNegatives(seed)],
      new Set([target.docid]),
    ),
    view: 'complement',
    pairId: pairIdFor(seed),
    seedId: seed.id,
    originalId: originalId(seed),
    synthesisKey: record.key,
    ...(record.lever ? { metadata: { lever: record.lever } } : {}),
  };
}
