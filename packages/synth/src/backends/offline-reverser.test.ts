import { type Passage, SeedExample } from '@dv/core';
import { describe, expect, it } from 'vitest';
import { parseAnswer } from '../parse-answer.js';
import { prepareTask } from '../synthesis-task.js';
import { templates } from '../template-registry.js';
import { metadataSeeds, plainSeeds } from '../test-utils/seed-fixtures.js';
import { createOfflineReverser, findReversal, guessStyle, writeInstruction } from './offline-reverser.js';

const doc = (docid: string, text: string, metadata?: Record<string, unknown>): Passage => ({
  docid,
  title: '',
  text,
  ...(metadata ? { metadata } : {}),
});
const task = (positive: Passage, target: Passage, otherNegatives: Passage[] = [], query = 'bass') => ({
  query,
  instruction: { text: 'Only the fish.' },
  positive,
  target,
  otherNegatives,
});

describe('offline reverser', () => {
  it('uses the category lever when the categories differ', () => {
    const r = findReversal(
      task(
        doc('a', 'a fish', { category: 'noun.animal' }),
        doc('b', 'an instrument', { category: 'noun.artifact' }),
      ),
    );
    expect(r).toEqual({
      lever: 'category',
      require: 'describe it as a man-made object',
      exclude: 'describe it as an animal',
    });
  });
  it('falls to the hypernym lever when another negative shares the target category', () => {
    const r = findReversal(
      task(
        doc('a', 'a fish', { category: 'noun.animal', hypernyms: ['fish', 'vertebrate'] }),
        doc('b', 'a guitar', { category: 'noun.artifact', hypernyms: ['guitar', 'instrument'] }),
        [doc('c', 'a speaker', { category: 'noun.artifact', hypernyms: ['loudspeaker', 'device'] })],
      ),
    );
    expect(r?.lever).toBe('hypernym');
    expect(r?.require).toBe('present it as a kind of guitar');
    expect(r?.exclude).toBe('present it as a kind of fish');
  });
  it('skips lever values another candidate also shows, and meta-task words (regression: judge ties)', () => {
    const r = findReversal(
      task(
        doc('a', 'a lean fish', { category: 'noun.animal', hypernyms: ['fish'] }),
        doc('b', 'a deed', {
          category: 'noun.communication',
          hypernyms: ['document', 'writing', 'communication'],
        }),
        // says "form of communication" in its text, so the category phrase would not separate
        [doc('c', 'a form of communication by drums', { category: 'noun.act', hypernyms: ['signal'] })],
      ),
    );
    expect(r).toEqual({
      lever: 'hypernym',
      require: 'present it as a kind of writing',
      exclude: 'present it as a kind of fish',
    });
  });
  it('uses domain levers, then format', () => {
    expect(
      findReversal(task(doc('a', 'x', { topics: ['music'] }), doc('b', 'y', { topics: ['fishing'] })))
        ?.require,
    ).toBe('place it in the field of fishing');
    expect(findReversal(task(doc('a', 'x'), doc('b', 'y', { regions: ['France'] })))?.lever).toBe('region');
    expect(
      findReversal(
        task(doc('a', 'same words', { hasExample: false }), doc('b', 'same words', { hasExample: true })),
      )?.lever,
    ).toBe('format');
  });
  it('works without metadata: timeframe, keyword, then length levers', () => {
    expect(findReversal(task(doc('a', 'the old harbour'), doc('b', 'the old harbour in 1850')))?.lever).toBe(
      'timeframe',
    );
    const kw = findReversal(
      task(doc('a', 'boil eggs six minutes'), doc('b', 'boil eggs at altitude for longer')),
    );
    expect(kw).toEqual({ lever: 'keyword', require: 'mention altitude' });
    const len = findReversal(
      task(
        doc('a', 'eggs eggs eggs eggs eggs eggs eggs eggs eggs eggs'),
        doc('b', 'eggs eggs eggs'),
        [],
        'eggs',
      ),
    );
    expect(len?.lever).toBe('length');
    expect(len?.require).toBe('run under 7 words');
  });
  it('answers None when nothing separates the target from the positive', () => {
    expect(findReversal(task(doc('a', 'bass fish'), doc('b', 'bass fish')))).toBeNull();
  });
  it('writes I′ in a style different from the original and passes through the parser', async () => {
    expect(guessStyle({ text: "I'm a chef looking for recipes" })).toBe('persona');
    expect(guessStyle({ text: 'Exclude anything about cars.' })).toBe('exclusion');
    expect(guessStyle({ text: 'Only fish.' })).toBe('plain');
    const b = createOfflineReverser();
    for (const s0 of [...metadataSeeds(6), ...plainSeeds(2)]) {
      const seed = SeedExample.parse(s0);
      const p = prepareTask(seed, { template: templates['polarity-reversal'], model: b.model });
      if (!p.ok) throw new Error('fixture without negatives');
      const a = await b.synthesize(p.task);
      const parsed = parseAnswer(a.raw);
      expect(parsed.kind, a.raw ?? '').toBe('instruction');
      if (parsed.kind !== 'instruction') continue;
      const style = guessStyle({ text: parsed.text });
      // persona originals never get a persona complement
      if (seed.instruction.style === 'persona') expect(parsed.text.startsWith("I'm")).toBe(false);
      expect(style).toBeTypeOf('string');
    }
  });
  it('every style stays within two sentences', () => {
    const r = {
      lever: 'category' as const,
      require: 'describe it as a plant',
      exclude: 'describe it as a person',
    };
    for (const s of ['plain', 'persona', 'background', 'exclusion'] as const) {
      const text = writeInstruction('bass', r, s);
      expect(text.split(/[.;]\s/).length).toBeLessThanOrEqual(2);
      expect(text).toContain('bass');
    }
  });
});
