/**
 * Seed training examples of the mini world, in Promptriever's shape (`SeedExample`): query =
 * an ambiguous lemma, instruction = a templated sentence selecting senses by one lever (or, in
 * the compound style, a requirement plus an exclusion),
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
  type InstructionStyle,
  type Passage,
  type Rng,
  type SeedExample,
} from '@dv/core';
import { type Constraint, describeConstraint, holds, type MiniLever } from './constraint.js';
import { mineDistractors } from './distractors.js';
import {
  renderChange,
  renderInstruction,
  renderNarrative,
  SEED_STYLES,
  type SeedStyle,
  type TemplateStyle,
} from './instruction-templates.js';
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

/** Interleaves lists (a0, b0, a1, b1, ...) without repeats, up to `k`. */
function interleave(lists: string[][], k: number): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; out.length < k && lists.some((l) => i < l.length); i++) {
    for (const l of lists) {
      const id = l[i];
      if (id !== undefined && !seen.has(id) && out.length < k) {
        seen.add(id);
        out.push(id);
      }
    }
  }
  return out;
}

const COMPOUND_BASES: ReadonlyArray<TemplateStyle> = ['plain', 'persona', 'background'];

/**
 * One seed example for `lemma`, or null when no lever separates the chosen sense (rare).
 * `k` numbers the examples of one lemma. Styles `exclusion` (compound) and `narrative` are the
 * benchmark's forms worded from the TRAIN pool: a requirement plus an exclusion (or a second
 * requirement) sentence, and a narrative opener with a requirement. Hard negatives are mined
 * around D+ and around the first instruction negative D- (interleaved), and the seed's
 * metadata lists those around D- (`targetHardNegatives`) for the complement view.
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
  let style: SeedStyle = rng.choice(opts.styles);
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
  const constraints: Constraint[] = [constraint];
  const frames: string[] = [];
  let text: string;
  if (style === 'narrative') {
    const r = renderNarrative(lemma, constraint, rng, 'train');
    text = r.text;
    frames.push(...r.frames);
  } else if (style === 'exclusion') {
    // A second constraint the target also satisfies: an exclusion (preferred) or a requirement,
    // preferably one that removes a sense the first constraint keeps (so it matters).
    const keptByFirst = senses.filter((s) => s.docid !== target.docid && holds(s, constraint));
    const pool = (negated: boolean) =>
      [
        ...separatingConstraints(corpus, lemma, senses, target, {
          negated,
          levers: opts.levers.filter((l) => NEGATABLE.includes(l)),
        }).values(),
      ]
        .flat()
        .filter((c) => describeConstraint(c) !== describeConstraint(constraint));
    const exclusions = pool(true);
    const requirements = pool(false).filter((c) => c.lever !== 'length' && c.lever !== 'format');
    const prefer = (cs: Constraint[]) => {
      const matters = cs.filter((c) => keptByFirst.some((s) => !holds(s, c)));
      return matters.length > 0 ? matters : cs;
    };
    const second =
      exclusions.length > 0 && (requirements.length === 0 || rng.float() < 0.6)
        ? rng.choice(prefer(exclusions))
        : requirements.length > 0
          ? rng.choice(prefer(requirements))
          : undefined;
    const base = renderInstruction(rng.choice(COMPOUND_BASES), lemma, constraint, rng);
    if (second) {
      const change = renderChange(second, rng, 'train');
      constraints.push(second);
      frames.push(...change.frames);
      text = `${base} ${change.text}`;
    } else {
      style = 'plain';
      text = base;
    }
  } else {
    text = renderInstruction(style as TemplateStyle, lemma, constraint, rng);
  }

  const ok = (s: Passage) => constraints.every((c) => holds(s, c));
  const satisfying = senses.filter((s) => s.docid !== target.docid && ok(s));
  const violating = senses.filter((s) => !ok(s));
  const described = constraints.map(describeConstraint).join(' & ');
  const instructionNegatives: InstructionNegative[] = violating
    .slice(0, opts.instructionNegatives)
    .map((d) => {
      const broken = constraints.find((c) => !holds(d, c))!;
      return {
        ...d,
        explanation: `violates ${describeConstraint(broken)}: ${explainViolation(d, broken)}`,
      };
    });
  const exclude = new Set(senses.map((s) => s.docid));
  const aroundPositive = mineDistractors(corpus, lemma, [target.docid], exclude, opts.hardNegatives);
  const dMinus = instructionNegatives[0];
  const aroundTarget = dMinus
    ? mineDistractors(corpus, lemma, [dMinus.docid], exclude, opts.hardNegatives)
    : [];
  const hard = interleave([aroundPositive, aroundTarget], opts.hardNegatives);
  const targetSet = new Set(aroundTarget);
  const ranks: Record<string, number> = {};
  senses.forEach((s, i) => {
    ranks[s.docid] = i + 1;
  });
  return {
    id: `mini-${split}-${lemma.replace(/\s+/g, '_')}-${k}`,
    query: lemma,
    instruction: { text, lever, style: style as InstructionStyle, constraint: described },
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
      constraints,
      frames,
      targetHardNegatives: hard.filter((id) => targetSet.has(id)),
      senseRanks: ranks,
    },
  };
}

export { SEED_STYLES };
