/**
 * Instruction templates of the mini world: a predicate phrase per lever and polarity, wrapped
 * by a writing style (plain constraint, persona, background, negation, narrative, exclusion).
 * Rendering is deterministic given the RNG; the templates are ours, versioned by
 * `TEMPLATE_VERSION` (recorded in the manifest), and never decide relevance (see constraint.ts).
 */
import type { InstructionStyle, Rng } from '@dv/core';
import { categoryPhrase } from '../wordnet/lexnames.js';
import type { Constraint } from './constraint.js';

export const TEMPLATE_VERSION = 'mini-instructions/2';

function joinOr(items: string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

/** "refers to an animal", "does not describe a kind of fish", ... */
export function predicate(c: Constraint): string {
  const neg = c.negated;
  switch (c.lever) {
    case 'category': {
      const p = joinOr(c.anyOf.map(categoryPhrase));
      return neg ? `does not refer to ${p}` : `refers to ${p}`;
    }
    case 'hypernym': {
      const p = joinOr(c.anyOf);
      return neg ? `does not describe a kind of ${p}` : `describes a kind of ${p}`;
    }
    case 'topic': {
      const p = joinOr(c.anyOf);
      return neg ? `is not from the field of ${p}` : `belongs to the field of ${p}`;
    }
    case 'region': {
      const p = joinOr(c.anyOf);
      return neg ? `is not specific to ${p}` : `is specific to ${p}`;
    }
    case 'usage': {
      const p = joinOr(c.anyOf);
      return neg ? `is not labelled as ${p} usage` : `is labelled as ${p} usage`;
    }
    case 'keyword': {
      const p = joinOr(c.anyOf.map((k) => `"${k}"`));
      return neg ? `does not mention the word ${p}` : `mentions the word ${p}`;
    }
    case 'length':
      return neg
        ? `is a longer entry of more than ${c.maxWords} words`
        : `is a short entry of at most ${c.maxWords} words`;
    case 'format':
      return c.hasExample !== neg ? 'includes a usage example' : 'has no usage example';
  }
}

const PERSONAS = [
  'lexicographer',
  'translator',
  'crossword compiler',
  'language teacher',
  'student of English',
  'copy editor',
  'quiz writer',
];

type Template = (q: string, p: string, rng: Rng) => string;

/** Styles used for seed (training) instructions and for InfoSearch-style sets. */
export const STYLE_TEMPLATES = Object.freeze({
  plain: [
    (q, p) => `Find the meaning of "${q}" that ${p}.`,
    (q, p) => `An entry for "${q}" is relevant only if it ${p}.`,
    (q, p) => `Return the sense of "${q}" which ${p}.`,
  ],
  persona: [
    (q, p, rng) => `As a ${rng.choice(PERSONAS)}, I need the sense of "${q}" that ${p}.`,
    (q, p, rng) => `I am a ${rng.choice(PERSONAS)} looking up "${q}"; the entry I want ${p}.`,
  ],
  background: [
    (q, p) =>
      `I came across "${q}" in something I was reading and want to be sure which meaning was meant. The relevant entry ${p}; other meanings do not help me.`,
    (q, p) => `For a glossary I am preparing, I need to pin down one meaning of "${q}": the one that ${p}.`,
  ],
  negation: [
    (q, p) => `Find a meaning of "${q}" that ${p}.`,
    (q, p) => `Any sense of "${q}" will do as long as it ${p}.`,
  ],
} as const satisfies Record<string, readonly Template[]>);

export type SeedStyle = keyof typeof STYLE_TEMPLATES;
export const SEED_STYLES = Object.keys(STYLE_TEMPLATES) as SeedStyle[];

export function renderInstruction(style: SeedStyle, query: string, c: Constraint, rng: Rng): string {
  const t = rng.choice(STYLE_TEMPLATES[style]) as Template;
  return t(query, predicate(c), rng);
}

/**
 * The long, narrative original instruction of a FollowIR-form topic (docs/architecture.md: longer
 * narrative originals, minimal added constraints as changes).
 */
export function renderNarrative(query: string, c: Constraint, rng: Rng): string {
  const openers = [
    `I am reading about "${query}" and need the dictionary entries for the right meaning.`,
    `I am writing notes on the word "${query}" and want to collect the entries that matter to me.`,
    `Someone used the word "${query}" in a conversation and I want the matching dictionary entries.`,
  ];
  return `${rng.choice(openers)} A relevant entry ${predicate(c)}. Entries in which "${query}" means anything else are not relevant, however closely they relate to the word.`;
}

/**
 * The sentence appended to the original instruction to make the changed one: an exclusion.
 * `c` is the negated constraint the changed instruction adds; the sentence names what it removes.
 */
export function renderExclusion(c: Constraint, rng: Rng): string {
  const removed = predicate({ ...c, negated: !c.negated } as Constraint);
  const forms = [
    (p: string) => `However, entries that ${p} are not relevant.`,
    (p: string) => `Leave out any entry that ${p}.`,
    (p: string) => `An entry that ${p} does not count, even if it fits otherwise.`,
  ];
  return rng.choice(forms)(removed);
}

export const NARRATIVE_STYLE: InstructionStyle = 'narrative';
export const EXCLUSION_STYLE: InstructionStyle = 'exclusion';
