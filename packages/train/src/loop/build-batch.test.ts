import { createFormatter, createRng, type Passage } from '@dv/core';
import { describe, expect, it } from 'vitest';
import { type BatchExample, buildBatch } from './build-batch.js';
import { packBatches } from './pack-batches.js';
import { shuffleBuffer } from './shuffle-buffer.js';

const doc = (docid: string, title = ''): Passage => ({ docid, title, text: `text of ${docid}` });
const formatter = createFormatter();
const opts = { hardNegatives: 30, inBatchNegatives: true, maskFalseNegatives: true, formatter };

// A dual-view pair over lemma "bass": the original (I: fish) has D+ = fish, instruction
// negative D- = voice, hard negative h1; the complement (I': not fish) has positive D- = voice
// and D+ = fish first among its negatives, then h1. A general example follows.
const original: BatchExample = {
  id: 'o1',
  query: 'bass',
  instruction: 'Only fish.',
  positives: [doc('fish', 'Bass')],
  negatives: [doc('voice'), doc('h1')],
  pairId: 'p1',
};
const complement: BatchExample = {
  id: 'c1',
  query: 'bass',
  instruction: 'Not fish.',
  positives: [doc('voice')],
  negatives: [doc('fish', 'Bass'), doc('h1')],
  pairId: 'p1',
};
const general: BatchExample = {
  id: 'g1',
  query: 'oak',
  instruction: null,
  positives: [doc('tree')],
  negatives: [doc('h2'), doc('h3')],
};

describe('buildBatch', () => {
  it('labels a dual-view batch exactly: D- positive for the complement, negative for the original', () => {
    const b = buildBatch([original, complement, general], opts);
    expect(b.queryTexts).toEqual(['bass Only fish.', 'bass Not fish.', 'oak']);
    expect(b.docIds).toEqual(['fish', 'voice', 'h1', 'tree', 'h2', 'h3']);
    expect(b.docTexts[0]).toBe('Bass text of fish');
    expect(b.relations).toEqual([
      //fish voice h1 tree h2 h3
      [1, -1, -1, -1, -1, -1],
      [-1, 1, -1, -1, -1, -1],
      [-1, -1, -1, 1, -1, -1],
    ]);
  });

  it('keeps up to N labelled negatives per query, instruction negatives first', () => {
    const b = buildBatch([original, complement, general], {
      ...opts,
      hardNegatives: 1,
      inBatchNegatives: false,
    });
    // original keeps only "voice" (its instruction negative), complement only "fish" (D+), general h2.
    expect(b.docIds).toEqual(['fish', 'voice', 'tree', 'h2']);
    expect(b.relations).toEqual([
      [1, -1, 0, 0],
      [-1, 1, 0, 0],
      [0, 0, 1, -1],
    ]);
  });

  it('in-batch negatives on: other queries’ documents are -1; off: 0', () => {
    const on = buildBatch([original, general], { ...opts, hardNegatives: 0 });
    expect(on.relations).toEqual([
      [1, -1],
      [-1, 1],
    ]);
    const off = buildBatch([original, general], { ...opts, hardNegatives: 0, inBatchNegatives: false });
    expect(off.relations).toEqual([
      [1, 0],
      [0, 1],
    ]);
  });

  it('ignores false negatives: a duplicate query’s positives, and shares one column per docid', () => {
    const dup: BatchExample = { ...general, id: 'g2', positives: [doc('acorn')], negatives: [] };
    const sharing: BatchExample = {
      id: 's1',
      query: 'elm',
      instruction: null,
      positives: [doc('tree')],
      negatives: [],
    };
    const b = buildBatch([general, dup, sharing], { ...opts, hardNegatives: 1 });
    expect(b.docIds).toEqual(['tree', 'h2', 'acorn']);
    expect(b.relations).toEqual([
      [1, -1, 0], // acorn: positive of the same query text -> ignored
      [0, -1, 1], // tree: positive of the same query text -> ignored; h2 in-batch negative
      [1, -1, -1], // same docid "tree" as g1's positive: one column, positive here too
    ]);
    const unmasked = buildBatch([general, dup], { ...opts, hardNegatives: 1, maskFalseNegatives: false });
    expect(unmasked.relations).toEqual([
      [1, -1, -1],
      [-1, -1, 1],
    ]);
  });

  // Regression (issue 15): the original view lists two positives (D+ "fish" and another sense,
  // "fishing gear", that also satisfies its instruction); the complement's label names only
  // D- "voice". The second positive used to be an in-batch -1 of the complement although it is
  // on topic for "bass" and unlabelled under I' (it may satisfy I' too), so one batch pulled the
  // original towards it and pushed the complement from it. Now it is ignored (0) there, while
  // the complement's own labelled negative D+ stays -1.
  it('masks the other view’s unlabelled positives in a dual-view pair; explicit labels still win', () => {
    const o2: BatchExample = { ...original, positives: [doc('fish', 'Bass'), doc('gear')] };
    const b = buildBatch([o2, complement, general], { ...opts, hardNegatives: 1 });
    expect(b.queryTexts).toEqual(['bass Only fish.', 'bass Not fish.', 'oak']);
    expect(b.docIds).toEqual(['fish', 'gear', 'voice', 'tree', 'h2']);
    expect(b.relations).toEqual([
      //fish gear voice tree h2
      [1, 1, -1, -1, -1],
      [-1, 0, 1, -1, -1], // gear: the original's positive, unlabelled here -> ignored
      [-1, -1, -1, 1, -1], // another query: gear is an ordinary in-batch negative
    ]);
    const unmasked = buildBatch([o2, complement, general], {
      ...opts,
      hardNegatives: 1,
      maskFalseNegatives: false,
    });
    expect(unmasked.relations[1]).toEqual([-1, -1, 1, -1, -1]);
  });

  it('a positive listed among the negatives stays positive', () => {
    const odd: BatchExample = { ...general, negatives: [doc('tree'), doc('h2')] };
    expect(buildBatch([odd], opts).relations).toEqual([[1, -1]]);
  });
});

async function* from<T>(xs: T[]): AsyncGenerator<T> {
  yield* xs;
}
async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('packBatches', () => {
  it('never splits a pair; a held pair opens the next batch while singles fill the current', async () => {
    const units = [['a'], ['p', "p'"], ['b'], ['q', "q'"], ['r', "r'"], ['c']];
    expect(await collect(packBatches(from(units), 3))).toEqual([
      ['a', 'p', "p'"],
      ['b', 'q', "q'"],
      ['r', "r'", 'c'],
    ]);
    const batches = await collect(packBatches(from(units), 2));
    expect(batches).toEqual([['a', 'b'], ['p', "p'"], ['q', "q'"], ['r', "r'"], ['c']]);
  });

  it('closes a batch short when a second unit does not fit; splits pairs when asked', async () => {
    const units = [['a'], ['p', "p'"], ['q', "q'"]];
    expect(await collect(packBatches(from(units), 2))).toEqual([['a'], ['p', "p'"], ['q', "q'"]]);
    expect(await collect(packBatches(from(units), 2, false))).toEqual([['a', 'p'], ["p'", 'q'], ["q'"]]);
  });
});

describe('shuffleBuffer', () => {
  it('emits every item once, deterministically per seed, within a bounded window', async () => {
    const xs = Array.from({ length: 100 }, (_, i) => i);
    const a = await collect(shuffleBuffer(from(xs), 10, createRng(1)));
    const b = await collect(shuffleBuffer(from(xs), 10, createRng(1)));
    const c = await collect(shuffleBuffer(from(xs), 10, createRng(2)));
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    expect([...a].sort((x, y) => x - y)).toEqual(xs);
    // Item k is emitted no earlier than position k - 10 (it cannot be read before then).
    for (const [pos, x] of a.entries()) expect(pos).toBeGreaterThanOrEqual(x - 10);
  });
});
