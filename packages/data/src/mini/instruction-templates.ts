/**
 * Instruction templates of the mini world: a predicate phrase per lever and polarity, in the
 * singular ("an entry that describes ...") or the plural ("entries that describe ..."), wrapped
 * by a writing style. Rendering is deterministic given the RNG; the templates are ours,
 * versioned by `TEMPLATE_VERSION` (recorded in the manifest), and never decide relevance (see
 * constraint.ts).
 *
 * Held-out wording is its own axis: the sentences that change an instruction (an added
 * requirement or exclusion) and the narrative openers come in two disjoint paraphrase pools.
 * The TRAIN pool words the seeds' compound (requirement + exclusion) and narrative instructions
 * and the seen-wording benchmark split; the TEST pool words the main benchmark only. Every
 * frame has an id (`train:exclude:2`) recorded with what it wrote, so a build can prove that no
 * test frame occurs in training.
 *
 * The query lemma is quoted in half of the instructions (the RNG decides), in seeds and
 * benchmark alike, so quoting is no cue to which view (or split) an instruction comes from.
 */
import { categoryPhrase, type InstructionStyle, type Rng } from '@dv/core';
import type { Constraint } from './constraint.js';

export const TEMPLATE_VERSION = 'mini-instructions/3';

export type GrammaticalNumber = 'sg' | 'pl';

function joinOr(items: string[]): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

/** "refers to an animal" (sg) / "refer to an animal" (pl), "does not describe a kind of fish" ... */
export function predicate(c: Constraint, n: GrammaticalNumber = 'sg'): string {
  const neg = c.negated;
  const v = (sg: string, pl: string) => (n === 'sg' ? sg : pl);
  const does = v('does', 'do');
  const is = v('is', 'are');
  switch (c.lever) {
    case 'category': {
      const p = joinOr(c.anyOf.map(categoryPhrase));
      return neg ? `${does} not refer to ${p}` : `${v('refers', 'refer')} to ${p}`;
    }
    case 'hypernym': {
      const p = joinOr(c.anyOf);
      return neg ? `${does} not describe a kind of ${p}` : `${v('describes', 'describe')} a kind of ${p}`;
    }
    case 'topic': {
      const p = joinOr(c.anyOf);
      return neg ? `${is} not from the field of ${p}` : `${v('belongs', 'belong')} to the field of ${p}`;
    }
    case 'region': {
      const p = joinOr(c.anyOf);
      return neg ? `${is} not specific to ${p}` : `${is} specific to ${p}`;
    }
    case 'usage': {
      const p = joinOr(c.anyOf);
      return neg ? `${is} not labelled as ${p} usage` : `${is} labelled as ${p} usage`;
    }
    case 'keyword': {
      const p = joinOr(c.anyOf.map((k) => `"${k}"`));
      return neg ? `${does} not mention the word ${p}` : `${v('mentions', 'mention')} the word ${p}`;
    }
    case 'length':
      return neg
        ? `${is} ${v('a longer entry', 'longer entries')} of more than ${c.maxWords} words`
        : `${is} ${v('a short entry', 'short entries')} of at most ${c.maxWords} words`;
    case 'format':
      return c.hasExample !== neg
        ? `${v('includes', 'include')} a usage example`
        : `${v('has', 'have')} no usage example`;
  }
}

/** The lemma as an instruction names it: quoted or bare, as the RNG decides (half each). */
export function nameQuery(query: string, rng: Rng): string {
  return rng.float() < 0.5 ? `"${query}"` : query;
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

type Template = (q: string, p: (n: GrammaticalNumber) => string, rng: Rng) => string;

/** Styles used for seed (training) instructions and for InfoSearch-style sets. */
export const STYLE_TEMPLATES = Object.freeze({
  plain: [
    (q, p) => `Find the meaning of ${q} that ${p('sg')}.`,
    (q, p) => `An entry for ${q} is relevant only if it ${p('sg')}.`,
    (q, p) => `Return the senses of ${q} which ${p('pl')}.`,
  ],
  persona: [
    (q, p, rng) => `As a ${rng.choice(PERSONAS)}, I need the sense of ${q} that ${p('sg')}.`,
    (q, p, rng) => `I am a ${rng.choice(PERSONAS)} looking up ${q}; the entries I want ${p('pl')}.`,
  ],
  background: [
    (q, p) =>
      `I came across ${q} in something I was reading and want to be sure which meaning was meant. The relevant entry ${p('sg')}; other meanings do not help me.`,
    (q, p) =>
      `For a glossary I am preparing, I need to pin down one meaning of ${q}: the one that ${p('sg')}.`,
  ],
  negation: [
    (q, p) => `Find a meaning of ${q} that ${p('sg')}.`,
    (q, p) => `Any senses of ${q} will do as long as they ${p('pl')}.`,
  ],
} as const satisfies Record<string, readonly Template[]>);

export type TemplateStyle = keyof typeof STYLE_TEMPLATES;
/**
 * Seed styles: the template styles, plus `exclusion` (compound: a requirement and an exclusion,
 * the exclusion worded from the train pool) and `narrative` (a train-pool opener and a
 * requirement), the two forms the benchmark's instructions take.
 */
export const SEED_STYLES = [
  ...(Object.keys(STYLE_TEMPLATES) as TemplateStyle[]),
  'exclusion',
  'narrative',
] as const;
export type SeedStyle = (typeof SEED_STYLES)[number];

export function renderInstruction(style: TemplateStyle, query: string, c: Constraint, rng: Rng): string {
  const t = rng.choice(STYLE_TEMPLATES[style]) as Template;
  return t(nameQuery(query, rng), (n) => predicate(c, n), rng);
}

/** A sentence frame of a paraphrase pool; `p` is the predicate in the number the frame needs. */
export interface Frame {
  id: string;
  render: (p: (n: GrammaticalNumber) => string) => string;
}

export type WordingPool = 'train' | 'test';

const frames = (pool: WordingPool, kind: string, fs: Array<Frame['render']>): Frame[] =>
  fs.map((render, i) => ({ id: `${pool}:${kind}:${i}`, render }));

/**
 * Sentences that add an exclusion; `p` names what is removed ("describes a kind of fish").
 * Pools are disjoint in wording, not only in ids (a test renders both and compares).
 */
export const EXCLUSION_FRAMES: Record<WordingPool, Frame[]> = {
  test: frames('test', 'exclude', [
    (p) => `However, entries that ${p('pl')} are not relevant.`,
    (p) => `Leave out any entry that ${p('sg')}.`,
    (p) => `An entry that ${p('sg')} does not count, even if it fits otherwise.`,
    (p) => `Set aside, too, the entries that ${p('pl')}.`,
    (p) => `Do not include an entry that ${p('sg')}.`,
  ]),
  train: frames('train', 'exclude', [
    (p) => `Entries that ${p('pl')} are to be ignored.`,
    (p) => `Skip any entry that ${p('sg')}.`,
    (p) => `I have no use for an entry that ${p('sg')}.`,
    (p) => `Please discard entries that ${p('pl')}.`,
    (p) => `Anything that ${p('sg')} is of no interest here.`,
  ]),
};

/** Sentences that add a requirement; `p` names what the kept entries are. */
export const REQUIREMENT_FRAMES: Record<WordingPool, Frame[]> = {
  test: frames('test', 'require', [
    (p) => `In addition, a relevant entry must be one that ${p('sg')}.`,
    (p) => `Only entries that ${p('pl')} still count.`,
    (p) => `From now on I only want entries that ${p('pl')}.`,
    (p) => `Of those, keep just the entries that ${p('pl')}.`,
  ]),
  train: frames('train', 'require', [
    (p) => `It must also be an entry that ${p('sg')}.`,
    (p) => `Restrict this to entries that ${p('pl')}.`,
    (p) => `I am only interested in entries that ${p('pl')}.`,
    (p) => `On top of that, the entry has to be one that ${p('sg')}.`,
  ]),
};

/** Narrative openers (`q` = the lemma as named) and closers of the long original instructions. */
export const NARRATIVE_OPENERS: Record<WordingPool, Array<{ id: string; render: (q: string) => string }>> = {
  test: [
    (q: string) => `I am reading about ${q} and need the dictionary entries for the right meaning.`,
    (q: string) => `I am writing notes on the word ${q} and want to collect the entries that matter to me.`,
    (q: string) => `Someone used the word ${q} in a conversation and I want the matching dictionary entries.`,
  ].map((render, i) => ({ id: `test:open:${i}`, render })),
  train: [
    (q: string) => `I found the word ${q} in an old letter and want to look it up properly.`,
    (q: string) =>
      `My class is studying the word ${q} this week, and I am gathering dictionary entries for it.`,
    (q: string) => `A friend used ${q} in a way I did not recognise, so I am checking the dictionary.`,
  ].map((render, i) => ({ id: `train:open:${i}`, render })),
};

const CLOSERS: Record<WordingPool, Array<(q: string) => string>> = {
  test: [
    (q) =>
      `Entries in which ${q} means anything else are not relevant, however closely they relate to the word.`,
  ],
  train: [(q) => `Other meanings of ${q} are of no help to me, even when they are close.`],
};

export interface Rendered {
  text: string;
  frames: string[];
}

/**
 * The long, narrative original instruction (docs/architecture.md: longer narrative originals, minimal added
 * constraints as changes): an opener, "A relevant entry <predicate>.", a closer.
 */
export function renderNarrative(
  query: string,
  c: Constraint,
  rng: Rng,
  pool: WordingPool = 'test',
): Rendered {
  const q = nameQuery(query, rng);
  const opener = rng.choice(NARRATIVE_OPENERS[pool]);
  const closer = rng.choice(CLOSERS[pool]);
  return {
    text: `${opener.render(q)} A relevant entry ${predicate(c, 'sg')}. ${closer(q)}`,
    frames: [opener.id],
  };
}

/**
 * The sentence that changes an instruction: for a negated `c` an exclusion naming what it
 * removes, otherwise a requirement naming what the kept entries are.
 */
export function renderChange(c: Constraint, rng: Rng, pool: WordingPool): Rendered {
  if (c.negated) {
    const removed = { ...c, negated: false } as Constraint;
    const f = rng.choice(EXCLUSION_FRAMES[pool]);
    return { text: f.render((n) => predicate(removed, n)), frames: [f.id] };
  }
  const f = rng.choice(REQUIREMENT_FRAMES[pool]);
  return { text: f.render((n) => predicate(c, n)), frames: [f.id] };
}

export const NARRATIVE_STYLE: InstructionStyle = 'narrative';
export const EXCLUSION_STYLE: InstructionStyle = 'exclusion';
