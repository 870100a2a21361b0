import type { InstructedSet, Passage, SeedExample } from '@dv/core';
import { describe, expect, it } from 'vitest';
import {
  benchmarkQuality,
  constraintAlternatives,
  constraintWords,
  infosearchLeakage,
  leakageOf,
  wordingQuality,
} from './mini-world-quality.js';

const doc = (docid: string, text: string): Passage => ({ docid, title: docid, text });
const grades = (o: Record<string, number>) => new Map(Object.entries(o));

/** Three topics, each with known answers: see the comments. */
function set(): InstructedSet {
  const corpus = [
    doc('a1', 'A kind of fish.'),
    doc('a2', 'A kind of bird.'),
    doc('a3', 'A kind of tool.'),
    doc('b1', 'A kind of fish, animal.'),
    doc('b2', 'A kind of mammal.'),
    doc('c1', 'A kind of tree.'),
    doc('c2', 'A kind of shrub; fish nearby.'),
    doc('c3', 'A kind of vehicle.'),
  ];
  return {
    name: 't',
    corpus,
    queries: [
      // removed a1 prints "fish", kept a2 does not; a3 judged non-relevant (selective)
      {
        id: 'a',
        query: 'a',
        instructions: { og: 'x', changed: 'y' },
        metadata: {
          changeLever: 'exclude-printed-hypernym',
          changedLever: 'hypernym',
          changedConstraint: 'not hypernym=fish',
          ogConstraint: 'category=noun.animal',
          changeFrame: 'test:exclude:0',
        },
      },
      // vacuous (every judged doc relevant); "not a kind of animal" under "an animal": contradiction
      {
        id: 'b',
        query: 'b',
        instructions: { og: 'x', changed: 'y' },
        metadata: {
          changeLever: 'exclude-printed-hypernym',
          changedLever: 'hypernym',
          changedConstraint: 'not hypernym=animal',
          ogConstraint: 'category=noun.animal',
          changeFrame: 'test:exclude:1',
        },
      },
      // the change ADDS c3 (a narrowing violation); kept c2 shows "fish"; removed c1 does not
      {
        id: 'c',
        query: 'c',
        instructions: { og: 'x', changed: 'y' },
        metadata: {
          changeLever: 'require-hypernym',
          changedLever: 'hypernym',
          changeWords: ['fish'],
          changedConstraint: 'hypernym=fish',
          ogConstraint: 'category=noun.plant|noun.animal',
          changeFrame: 'train:require:0',
        },
      },
    ],
    qrels: {
      og: new Map([
        ['a', grades({ a1: 2, a2: 1, a3: 0 })],
        ['b', grades({ b1: 2, b2: 2 })],
        ['c', grades({ c1: 1, c2: 1, c3: 0 })],
      ]),
      changed: new Map([
        ['a', grades({ a1: 0, a2: 1, a3: 0 })],
        ['b', grades({ b1: 0, b2: 2 })],
        ['c', grades({ c1: 0, c2: 1, c3: 1 })],
      ]),
    },
  };
}

describe('benchmarkQuality', () => {
  it('computes lever shares, vacuous og, leakage, violations and contradictions', () => {
    const q = benchmarkQuality(set());
    expect(q.topics).toBe(3);
    expect(q.leverShares).toEqual({ 'exclude-printed-hypernym': 0.667, 'require-hypernym': 0.333 });
    expect(q.maxLeverShare).toBe(0.667);
    expect(q.attributeShares).toEqual({ hypernym: 1 });
    expect(q.vacuousOgShare).toBe(0.333);
    expect(q.selectiveOgShare).toBe(0.667);
    // removed docs show the change's word in a (a1 fish) and b (b1 animal); kept docs in c (c2 fish)
    expect(q.leakage).toEqual({ removed: 0.667, kept: 0.333, ratio: 2 });
    expect(q.narrowingViolations).toBe(1);
    expect(q.contradictions).toBe(1);
  });

  it('dropping one of two og categories is not a contradiction', () => {
    const s = set();
    s.queries[1]!.metadata = {
      ...s.queries[1]!.metadata,
      changedConstraint: 'not category=noun.animal',
      ogConstraint: 'category=noun.animal|noun.person',
    };
    expect(benchmarkQuality(s).contradictions).toBe(0);
  });
});

describe('constraint words and leakage ratio', () => {
  it('reads describeConstraint strings, category phrases included', () => {
    expect(constraintWords('not hypernym=percoid fish|bird')).toEqual(['bird', 'fish', 'percoid']);
    expect(constraintWords('category=noun.food')).toEqual(['drink', 'food']);
    expect(constraintAlternatives('category=noun.animal|noun.food')).toEqual([['animal'], ['food', 'drink']]);
  });
  it('ratio is larger / smaller, null when both are 0, Infinity when one side is 0', () => {
    expect(leakageOf(4, 2, 10)).toEqual({ removed: 0.4, kept: 0.2, ratio: 2 });
    expect(leakageOf(0, 0, 10).ratio).toBeNull();
    expect(leakageOf(3, 0, 10).ratio).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('infosearchLeakage and wordingQuality', () => {
  it('counts constraint words in instructed-relevant vs reversed-relevant docs', () => {
    const s: InstructedSet = {
      name: 'i',
      corpus: [doc('x', 'A kind of fish.'), doc('y', 'A kind of bird.')],
      queries: [
        {
          id: 'q',
          query: 'q',
          instructions: { og: null, changed: 'c', reversed: 'r' },
          metadata: { constraint: { lever: 'hypernym', anyOf: ['fish'], negated: false } },
        },
      ],
      qrels: {
        og: new Map([['q', grades({ x: 1, y: 1 })]]),
        changed: new Map([['q', grades({ x: 1, y: 0 })]]),
        reversed: new Map([['q', grades({ x: 0, y: 1 })]]),
      },
    };
    expect(infosearchLeakage(s)).toEqual({ topics: 1, removed: 1, kept: 0, ratio: Number.POSITIVE_INFINITY });
  });
  it('finds benchmark change frames that the train seeds use', () => {
    const seed = (style: string, frames: string[]) =>
      ({ instruction: { text: 't', style }, metadata: { frames } }) as unknown as SeedExample;
    const w = wordingQuality(set(), [seed('exclusion', ['train:require:0']), seed('plain', [])]);
    expect(w).toEqual({
      benchmarkFrames: 3,
      benchmarkFramesInTrainSeeds: 1,
      trainStyleShares: { exclusion: 0.5, plain: 0.5 },
    });
  });
});
