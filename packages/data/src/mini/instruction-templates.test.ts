import { createRng } from '@dv/core';
import { describe, expect, it } from 'vitest';
import type { Constraint } from './constraint.js';
import {
  EXCLUSION_FRAMES,
  type Frame,
  type GrammaticalNumber,
  NARRATIVE_OPENERS,
  predicate,
  REQUIREMENT_FRAMES,
  renderChange,
  renderInstruction,
  renderNarrative,
  SEED_STYLES,
  STYLE_TEMPLATES,
  type TemplateStyle,
} from './instruction-templates.js';

/** One constraint per lever and polarity. */
const CONSTRAINTS: Constraint[] = [
  { lever: 'category', anyOf: ['noun.animal', 'noun.food'], negated: false },
  { lever: 'hypernym', anyOf: ['fish'], negated: false },
  { lever: 'topic', anyOf: ['music'], negated: false },
  { lever: 'region', anyOf: ['Britain'], negated: false },
  { lever: 'usage', anyOf: ['slang'], negated: false },
  { lever: 'keyword', anyOf: ['river'], negated: false },
  { lever: 'length', maxWords: 12, negated: false },
  { lever: 'format', hasExample: true, negated: false },
].flatMap((c) => [c as Constraint, { ...c, negated: true } as Constraint]);

const SINGULAR_VERBS = /\b(describes|refers|belongs|mentions|includes|does|has|is)\b/;
const PLURAL_VERBS = /\b(describe|refer|belong|mention|include|do|have|are)\b/;

/**
 * Agreement after a relative pronoun: "entries that describe", "an entry that describes".
 * Checks the first verb of each "entry/entries ... that|which|they|it" clause.
 */
function agreementErrors(text: string): string[] {
  const errors: string[] = [];
  for (const m of text.matchAll(
    /\b(entries|senses|they|entry|sense|it|one|anything)\s+(?:that|which)?\s*(\w+)/gi,
  )) {
    const subject = m[1]!.toLowerCase();
    const verb = m[2]!.toLowerCase();
    const plural = ['entries', 'senses', 'they'].includes(subject);
    if (plural && SINGULAR_VERBS.test(verb) && new RegExp(`^${SINGULAR_VERBS.source}$`).test(verb))
      errors.push(m[0]);
    if (!plural && new RegExp(`^${PLURAL_VERBS.source}$`).test(verb)) errors.push(m[0]);
  }
  return errors;
}

describe('predicate agrees in number', () => {
  it('singular and plural forms differ where English needs it', () => {
    const c = CONSTRAINTS[3]!; // not hypernym=fish
    expect(predicate(c, 'sg')).toBe('does not describe a kind of fish');
    expect(predicate(c, 'pl')).toBe('do not describe a kind of fish');
    expect(predicate(CONSTRAINTS[0]!, 'pl')).toBe('refer to an animal or a food or drink');
    expect(predicate(CONSTRAINTS[12]!, 'pl')).toBe('are short entries of at most 12 words');
  });
});

describe('every template renders grammatically in both numbers', () => {
  const frames: Frame[] = [
    ...Object.values(EXCLUSION_FRAMES).flat(),
    ...Object.values(REQUIREMENT_FRAMES).flat(),
  ];
  it('change frames (both pools) with every lever and polarity', () => {
    for (const f of frames) {
      for (const c of CONSTRAINTS) {
        const text = f.render((n: GrammaticalNumber) => predicate(c, n));
        expect(agreementErrors(text), `${f.id}: ${text}`).toEqual([]);
        expect(text).toMatch(/^[A-Z].*\.$/);
        expect(text).not.toMatch(/\s{2}|\(|undefined/);
      }
    }
  });
  it('style templates, narratives and rendered changes', () => {
    for (const style of Object.keys(STYLE_TEMPLATES) as TemplateStyle[]) {
      for (let i = 0; i < 12; i++) {
        for (const c of CONSTRAINTS) {
          const text = renderInstruction(style, 'bass', c, createRng(i));
          expect(agreementErrors(text), text).toEqual([]);
        }
      }
    }
    for (const pool of ['train', 'test'] as const) {
      for (let i = 0; i < 8; i++) {
        for (const c of CONSTRAINTS) {
          const n = renderNarrative('bass', c, createRng(i), pool);
          const ch = renderChange(c, createRng(i), pool);
          expect(agreementErrors(`${n.text} ${ch.text}`), `${n.text} ${ch.text}`).toEqual([]);
          expect(ch.frames[0]!.startsWith(`${pool}:`)).toBe(true);
        }
      }
    }
  });
  it('the agreement check catches the v2 error ("entries that describes")', () => {
    expect(agreementErrors('However, entries that describes a kind of fish are not relevant.')).not.toEqual(
      [],
    );
    expect(agreementErrors('Leave out any entry that describe a fish.')).not.toEqual([]);
  });
});

describe('wording pools are disjoint', () => {
  it('no train frame renders the same text as a test frame, and ids are unique', () => {
    const c = CONSTRAINTS[3]!;
    const render = (fs: Frame[]) => fs.map((f) => f.render((n) => predicate(c, n)));
    for (const kind of [EXCLUSION_FRAMES, REQUIREMENT_FRAMES]) {
      const train = new Set(render(kind.train));
      for (const t of render(kind.test)) expect(train.has(t), t).toBe(false);
      // not even the opening three words are shared
      const openings = new Set(render(kind.train).map((t) => t.split(' ').slice(0, 3).join(' ')));
      for (const t of render(kind.test))
        expect(openings.has(t.split(' ').slice(0, 3).join(' ')), t).toBe(false);
    }
    const ids = [
      ...Object.values(EXCLUSION_FRAMES).flat(),
      ...Object.values(REQUIREMENT_FRAMES).flat(),
      ...Object.values(NARRATIVE_OPENERS).flat(),
    ].map((f) => f.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(EXCLUSION_FRAMES.test.length).toBeGreaterThanOrEqual(5);
    expect(REQUIREMENT_FRAMES.test.length).toBeGreaterThanOrEqual(4);
  });
  it('the lemma is quoted in about half of the renderings', () => {
    let quoted = 0;
    for (let i = 0; i < 400; i++)
      if (renderInstruction('plain', 'bass', CONSTRAINTS[2]!, createRng(i)).includes('"bass"')) quoted++;
    expect(quoted).toBeGreaterThan(150);
    expect(quoted).toBeLessThan(250);
  });
});

describe("the mini world's option lists in @dv/core", () => {
  it("core's MINI_SEED_STYLES and MINI_LEVERS are this package's styles and levers, in order", async () => {
    const { MINI_LEVERS: coreLevers, MiniWorldOptions } = await import('@dv/core');
    const { MINI_LEVERS } = await import('./constraint.js');
    // the schema's default styles are core's MINI_SEED_STYLES, in order
    expect(MiniWorldOptions.parse({}).styles).toEqual([...SEED_STYLES]);
    expect([...coreLevers]).toEqual([...MINI_LEVERS]);
  });
});
