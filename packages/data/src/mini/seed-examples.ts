/**
 * Seed training examples of the mini world, in Promptriever's shape (`SeedExample`): query =
 * an ambiguous lemma, instruction = a templated sentence selecting senses by one lever,
 * positives = the senses satisfying it (the chosen one first), instruction negatives = other
 * senses of the same lemma that violate it (up to 3, dominant first), hard negatives = mined
 * distractors of other lemmas (up to 30).
 *
 * Like MS MARCO positives, the chosen positive is the lemma's dominant sense with probability
 * `dominantShare` (default 0.8), so a model can score well while ignoring instructions.
 */
import {
  defaultFormatterSettings,
  formatQuery,
  type InstructionNegative,
  type Passage,
  type Rng,
  type SeedExample,
} from '@dv/core';
import { type Constraint, describeConstraint, holds, type MiniLever } from './constraint.js';
import { mineDistractors } from './distractors.js';
import { renderInstruction, SEED_STYLES, type SeedStyle } from './instruction-templates.js';
import type { MiniCorpus } from './mini-corpus.js';
import { separatingConstraints } from './separating-constraints.js';

export interface SeedExampleOptions {
  dominantShare: number;
  instructionNegatives: number;
  hardNegatives: number;
  levers: ReadonlyArray<MiniLever>;
  styles: ReadonlyArray<SeedStyle>;
  datasetName: string;
  revision: string;
}

/** Levers that have a natural negated form ("not a kind of fish"); length/format are two-sided already. */
const NEGATABLE: ReadonlyArray<MiniLever> = ['category', 'hypernym', 'topic', 'region', 'usage', 'keyword'];

export function sensesOf(corpus: MiniCorpus, lemma: string): Passage[] {
  return (corpus.wn.senses.get(lemma) ?? []).map((id) => corpus.byId.get(id)!);
}

/** Why an instruction negative violates the constraint, in WordNet's terms. */
export function explainViolation(doc: Passage, c: Constraint): string {
  const m = doc.metadata as Record<string, unknown>;
  const list = (k: string) => ((m[k] as string[]) ?? []).join(', ') || 'none';
  switch (c.lever) {
    case 'category':
      return `category is ${m.category}`;
    case 'hypernym':
      return `a kind of ${list('textHypernyms')}`;
    case 'topic':
      return `topic domains: ${list('topics')}`;
    case 'region':
      return `region domains: ${list('regions')}`;
    case 'usage':
      return `usage domains: ${list('usages')}`;
    case 'keyword':
      return c.negated ? `mentions "${c.anyOf.join('", "')}"` : `does not mention "${c.anyOf.join('", "')}"`;
    case 'length':
      return `${m.wordCount} words`;
    case 'format':
      return m.hasExample ? 'has a usage example' : 'has no usage example';
  }
}

/**
 * One seed example for `lemma`, or null when no lever separates the chosen sense (rare).
 * `k` numbers the examples of one lemma.
 */
export function buildSeedExample(
  corpus: MiniCorpus,
  lemma: string,
  split: 'train' | 'dev',
  k: number,
  rng: Rng,
  opts: SeedExampleOptions,
): SeedExample | null {
  const senses = sensesOf(corpus, lemma);
  if (senses.length < 2) return null;
  const dominant = rng.float() < opts.dominantShare;
  const target = dominant ? senses[0]! : senses[1 + rng.int(senses.length - 1)]!;
  let style = rng.choice(opts.styles);
  const levers = style === 'negation' ? opts.levers.filter((l) => NEGATABLE.includes(l)) : opts.levers;
  let options = separatingConstraints(corpus, lemma, senses, target, {
    negated: style === 'negation',
    levers,
  });
  if (options.size === 0 && style === 'negation') {
    style = 'plain';
    options = separatingConstraints(corpus, lemma, senses, target, { negated: false, levers: opts.levers });
  }
  if (options.size === 0) return null;
  const lever = rng.choice([...options.keys()]);
  const constraint = rng.choice(options.get(lever)!);
  const text = renderInstruction(style, lemma, constraint, rng);

  const satisfying = senses.filter((s) => s.docid !== target.docid && holds(s, constraint));
  const violating = senses.filter((s) => !holds(s, constraint));
  const instructionNegatives: InstructionNegative[] = violating
    .slice(0, opts.instructionNegatives)
    .map((d) => ({
      ...d,
      explanation: `violates ${describeConstraint(constraint)}: ${explainViolation(d, constraint)}`,
    }));
  const exclude = new Set(senses.map((s) => s.docid));
  const hard = mineDistractors(corpus, lemma, [target.docid], exclude, opts.hardNegatives);
  const ranks: Record<string, number> = {};
  senses.forEach((s, i) => {
    ranks[s.docid] = i + 1;
  });
  return {
    id: `mini-${split}-${lemma.replace(/\s+/g, '_')}-${k}`,
    query: lemma,
    instruction: { text, lever, style, constraint: describeConstraint(constraint) },
    positives: [target, ...satisfying],
    instructionNegatives,
    hardNegatives: hard.map((id) => corpus.byId.get(id)!),
    combinedQuery: formatQuery(defaultFormatterSettings, lemma, text),
    hasInstruction: true,
    source: { dataset: opts.datasetName, revision: opts.revision },
    split,
    metadata: {
      lemma,
      dominantPositive: target.docid === senses[0]!.docid,
      constraint,
      senseRanks: ranks,
    },
  };
}

export { SEED_STYLES };
