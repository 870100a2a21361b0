import type { Qrels, Run } from '@dv/core';
import { describe, expect, it } from 'vitest';
import { changedDocs, MissingTopicError, pairwiseRankScore, pMrr } from './p-mrr.js';

const m = (entries: Array<[string, number]>) => new Map(entries);
const qrelsOg: Qrels = new Map([
  [
    'a',
    m([
      ['0', 1],
      ['1', 1],
    ]),
  ],
]);
// Doc 0 stops being relevant under the changed instruction.
const qrelsChanged: Qrels = new Map([
  [
    'a',
    m([
      ['0', 0],
      ['1', 1],
    ]),
  ],
]);
const run = (s: number[]): Run =>
  new Map([
    [
      'a',
      m([
        ['0', s[0]!],
        ['1', s[1]!],
        ['2', s[2]!],
        ['3', s[3]!],
      ]),
    ],
  ]);

describe('p-MRR (mteb test vectors)', () => {
  it('pairwise scores: 4 -> 1 is -0.75, 1 -> 4 is +0.75, unchanged is 0', () => {
    expect(pairwiseRankScore(4, 1)).toBe(-0.75);
    expect(pairwiseRankScore(1, 4)).toBe(0.75);
    expect(pairwiseRankScore(3, 3)).toBe(0);
  });
  it('identical runs give 0', () => {
    const r = pMrr({ qrelsOg, qrelsChanged, runOg: run([1, 2, 3, 4]), runChanged: run([1, 2, 3, 4]) });
    expect(r.pMrr).toBe(0);
  });
  it('the changed doc moving from rank 4 to rank 1 gives -0.75', () => {
    const r = pMrr({ qrelsOg, qrelsChanged, runOg: run([1, 2, 3, 4]), runChanged: run([4, 1, 2, 3]) });
    expect(r.pMrr).toBe(-0.75);
    expect(r.perQuery).toEqual({ a: -0.75 });
  });
  it('the changed doc moving from rank 1 to rank 4 gives +0.75', () => {
    const r = pMrr({ qrelsOg, qrelsChanged, runOg: run([4, 1, 2, 3]), runChanged: run([1, 2, 3, 4]) });
    expect(r.pMrr).toBe(0.75);
  });
  it('a changed doc missing from a run ranks at run length + 1', () => {
    const runChanged: Run = new Map([
      [
        'a',
        m([
          ['1', 2],
          ['2', 1],
        ]),
      ],
    ]);
    // og rank 1 (score 4), changed rank 3 = 2 + 1.
    const r = pMrr({ qrelsOg, qrelsChanged, runOg: run([4, 1, 2, 3]), runChanged });
    expect(r.pMrr).toBeCloseTo(1 - 1 / 3, 15);
  });
  it('means per topic first, then over topics; topics without changed docs drop out', () => {
    const og: Qrels = new Map([
      ...qrelsOg,
      [
        'b',
        m([
          ['x', 1],
          ['y', 1],
        ]),
      ],
      ['c', m([['x', 1]])],
    ]);
    const ch: Qrels = new Map([
      ...qrelsChanged,
      [
        'b',
        m([
          ['x', 0],
          ['y', 0],
        ]),
      ],
      ['c', m([['x', 1]])],
    ]);
    const runOg: Run = new Map([
      ...run([4, 1, 2, 3]),
      [
        'b',
        m([
          ['x', 2],
          ['y', 1],
        ]),
      ],
    ]);
    const runCh: Run = new Map([
      ...run([1, 2, 3, 4]),
      [
        'b',
        m([
          ['x', 2],
          ['y', 1],
        ]),
      ],
    ]);
    const r = pMrr({ qrelsOg: og, qrelsChanged: ch, runOg, runChanged: runCh });
    expect(r.numQueries).toBe(2);
    expect(r.numChangedDocs).toBe(3);
    expect(r.perQuery).toEqual({ a: 0.75, b: 0 });
    expect(r.pMrr).toBe(0.375);
  });
  it('changed docs: grade differs, a doc missing from the changed qrels counts as 0', () => {
    const ch: Qrels = new Map([['a', m([['1', 1]])]]);
    expect(changedDocs(qrelsOg, ch)).toEqual(new Map([['a', ['0']]]));
    expect(changedDocs(qrelsOg, new Map())).toEqual(new Map());
  });
  it('a topic with changed docs missing from a run is an error naming the run', () => {
    expect(() => pMrr({ qrelsOg, qrelsChanged, runOg: new Map(), runChanged: run([1, 2, 3, 4]) })).toThrow(
      MissingTopicError,
    );
  });

  // Regression (mteb's p-MRR tie-break fix): with ties broken by insertion order, a model that
  // gives every candidate the same og score is credited or punished depending only on the
  // order the run happens to list the docs in. Sorting ties by doc id descending makes the
  // rank a function of the scores and ids alone.
  it('ties: doc id descending by default, insertion order as the legacy option', () => {
    const runOg = run([1, 1, 1, 1]); // listed 0,1,2,3: all tied
    const runChanged = run([1, 4, 3, 2]); // doc 0 last
    expect(pMrr({ qrelsOg, qrelsChanged, runOg, runChanged }).pMrr).toBe(0); // 4 -> 4
    expect(pMrr({ qrelsOg, qrelsChanged, runOg, runChanged }, { tieBreak: 'insertion' }).pMrr).toBe(0.75); // 1 -> 4
  });
});
