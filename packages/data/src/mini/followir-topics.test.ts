import type { Passage } from '@dv/core';
import { describe, expect, it } from 'vitest';
import type { Constraint } from './constraint.js';
import { agreeingSenses, checkTopic, valueWords } from './followir-topics.js';

const sense = (docid: string, category: string, text: string): Passage => ({
  docid,
  title: 'heart',
  text,
  metadata: { category, textHypernyms: [], topics: [], regions: [], usages: [] },
});

describe('clean labels: lexicographer file and visible text must agree', () => {
  const senses = [
    sense('a', 'noun.animal', 'A small animal of the woods.'),
    // outside "an animal" but its text names an animal: disagrees, so unjudged
    sense('b', 'noun.body', 'The hollow muscular organ of an animal that pumps blood.'),
    sense('c', 'noun.feeling', 'Courage. A kind of spirit.'),
    // inside "an animal" but its text names only another category's word: unjudged
    sense('d', 'noun.animal', 'A feeling of warmth for a pet.'),
  ];
  it('keeps agreeing senses and leaves the others unjudged', () => {
    expect(agreeingSenses(senses, ['noun.animal']).map((s) => s.docid)).toEqual(['a', 'c']);
    // "A feeling of warmth" names the chosen category though its file is noun.animal: unjudged
    expect(agreeingSenses(senses, ['noun.feeling']).map((s) => s.docid)).toEqual(['a', 'b', 'c']);
  });
});

describe('checkTopic (the build-time check)', () => {
  const og: Constraint = { lever: 'category', anyOf: ['noun.animal'], negated: false };
  const q = (o: Record<string, number>) => new Map(Object.entries(o));
  it('accepts a narrowing change', () => {
    const change: Constraint = { lever: 'hypernym', anyOf: ['fish'], negated: true };
    expect(() =>
      checkTopic({
        id: 't',
        ogConstraint: og,
        change,
        qrelsOg: q({ a: 2, b: 1, c: 0 }),
        qrelsChanged: q({ a: 2, b: 0, c: 0 }),
      }),
    ).not.toThrow();
  });
  it('rejects a change that adds relevance, removes nothing or keeps nothing', () => {
    const change: Constraint = { lever: 'hypernym', anyOf: ['fish'], negated: true };
    const base = { id: 't', ogConstraint: og, change, qrelsOg: q({ a: 2, b: 1, c: 0 }) };
    expect(() => checkTopic({ ...base, qrelsChanged: q({ a: 2, b: 0, c: 1 }) })).toThrow(/makes c relevant/);
    expect(() => checkTopic({ ...base, qrelsChanged: q({ a: 2, b: 1, c: 0 }) })).toThrow(/removes 0/);
    expect(() => checkTopic({ ...base, qrelsChanged: q({ a: 0, b: 0, c: 0 }) })).toThrow(/keeps 0/);
  });
  it('rejects a self-contradictory topic ("an animal", then "not a kind of animal")', () => {
    const change: Constraint = { lever: 'hypernym', anyOf: ['animal'], negated: true };
    expect(() =>
      checkTopic({
        id: 't',
        ogConstraint: og,
        change,
        qrelsOg: q({ a: 2, b: 1 }),
        qrelsChanged: q({ a: 2, b: 0 }),
      }),
    ).toThrow(/contradicts/);
  });
  it('value words name what the instruction names', () => {
    expect(valueWords({ lever: 'category', anyOf: ['noun.food'], negated: true })).toEqual(['drink', 'food']);
    expect(valueWords({ lever: 'hypernym', anyOf: ['percoid fish'], negated: false })).toEqual([
      'fish',
      'percoid',
    ]);
  });
});
