import type { Qrels, Run } from '@dv/core';
import { describe, expect, it } from 'vitest';
import { taskEntry } from '../tasks/task-registry.js';
import { plainMean } from './followir-score.js';
import { infoSearchScores, wiseScore } from './infosearch.js';

const m = (entries: Array<[string, number]>) => new Map(entries);

// q: gold g (relevant in both modes), n relevant only in og (an instruction negative).
// q2: two golds a, b and no negative; only a responds to the instruction.
const qrelsOg: Qrels = new Map([
  [
    'q',
    m([
      ['g', 1],
      ['n', 1],
      ['o', 0],
    ]),
  ],
  [
    'q2',
    m([
      ['a', 1],
      ['b', 1],
    ]),
  ],
]);
const qrelsChanged: Qrels = new Map([
  [
    'q',
    m([
      ['g', 1],
      ['n', 0],
      ['o', 0],
    ]),
  ],
  [
    'q2',
    m([
      ['a', 1],
      ['b', 1],
    ]),
  ],
]);
const runOg: Run = new Map([
  [
    'q',
    m([
      ['n', 0.9],
      ['g', 0.8],
      ['o', 0.1],
    ]),
  ],
  [
    'q2',
    m([
      ['x', 0.9],
      ['a', 0.5],
      ['b', 0.4],
    ]),
  ],
]);
const runChanged: Run = new Map([
  [
    'q',
    m([
      ['g', 0.95],
      ['n', 0.5],
      ['o', 0.2],
    ]),
  ],
  [
    'q2',
    m([
      ['a', 0.95],
      ['x', 0.5],
      ['b', 0.3],
    ]),
  ],
]);
const runReversed: Run = new Map([
  [
    'q',
    m([
      ['n', 0.9],
      ['o', 0.85],
      ['g', 0.3],
    ]),
  ],
  [
    'q2',
    m([
      ['x', 0.9],
      ['b', 0.6],
      ['a', 0.1],
    ]),
  ],
]);
const input = { qrelsOg, qrelsChanged, runOg, runChanged, runReversed };

describe('InfoSearch metrics, hand-computed', () => {
  it('WISE cases: full reward, window reward, far reward, both penalties', () => {
    expect(wiseScore({ ori: 2, ins: 1, rev: 5, n: 3 })).toBe(1);
    expect(wiseScore({ ori: 2, ins: 1, rev: 3, n: 2 })).toBeCloseTo(0.95, 15);
    expect(wiseScore({ ori: 9, ins: 4, rev: 10, n: 2 })).toBeCloseTo((1 - 5 / 20) / 2, 15);
    expect(wiseScore({ ori: 30, ins: 5, rev: 40, n: 2 })).toBe(0.01);
    expect(wiseScore({ ori: 2, ins: 4, rev: 9, n: 2 })).toBe(-0.5); // instruction pushed gold down
    expect(wiseScore({ ori: 5, ins: 1, rev: 3, n: 2 })).toBeCloseTo(-0.4, 15); // reversal pulled it up
  });

  it('p-MRR over instruction negatives, SICR and WISE over golds (paper variant)', () => {
    const s = infoSearchScores(input);
    // q: negative n goes from rank 1 (og) to rank 2 (instructed): 1 - 1/2.
    expect(s.pMrr).toBe(0.5);
    expect(s.perQuery.q).toEqual({ pMrr: 0.5, sicr: 1, wise: 0.95 });
    // q2: a complies (rank 2 -> 1 instructed, 3 reversed, scores move too), b does not (3 -> 3).
    expect(s.perQuery.q2!.sicr).toBe(0.5);
    expect(s.perQuery.q2!.wise).toBeCloseTo((0.95 + 0) / 2, 15);
    expect(s.sicr).toBe(0.75);
    expect(s.wise).toBeCloseTo((0.95 + 0.475) / 2, 15);
    // ideal: instructed rank 1, reversed below og. q: 0.95; q2: a 0.95, b (1 - 2/20).
    expect(s.idealWise).toBeCloseTo((0.95 + (0.95 + 0.9) / 2) / 2, 15);
  });

  // The released code resets its SICR counter inside the per-gold loop, so only the last gold
  // of a query counts: q2's last gold b fails, and q2 scores 0 instead of 0.5.
  it('code variant reproduces the released SICR (last gold only)', () => {
    const s = infoSearchScores(input, { variant: 'code' });
    expect(s.perQuery.q2!.sicr).toBe(0);
    expect(s.sicr).toBe(0.5);
    expect(s.pMrr).toBe(0.5);
  });

  it('code variant breaks ties by run order, paper variant by doc id descending', () => {
    const qo: Qrels = new Map([
      [
        'q',
        m([
          ['a', 1],
          ['z', 1],
        ]),
      ],
    ]);
    const qc: Qrels = new Map([
      [
        'q',
        m([
          ['a', 0],
          ['z', 1],
        ]),
      ],
    ]);
    const tied: Run = new Map([
      [
        'q',
        m([
          ['a', 1],
          ['z', 1],
        ]),
      ],
    ]);
    const moved: Run = new Map([
      [
        'q',
        m([
          ['z', 2],
          ['a', 1],
        ]),
      ],
    ]);
    const inp = { qrelsOg: qo, qrelsChanged: qc, runOg: tied, runChanged: moved, runReversed: tied };
    // paper: og order z, a -> a at rank 2, stays 2: 0. code: og order a, z -> a 1 -> 2: +0.5.
    expect(infoSearchScores(inp).pMrr).toBe(0);
    expect(infoSearchScores(inp, { variant: 'code' }).pMrr).toBe(0.5);
  });
});

describe('FollowIR Score', () => {
  it('MAP@1000 for Robust04 and Core17, nDCG@5 for News21, plain mean', () => {
    const score = (task: string) => taskEntry(task).scoreMeasure;
    expect(score('Robust04InstructionRetrieval')).toBe('map_cut.1000');
    expect(score('Core17InstructionRetrieval')).toBe('map_cut.1000');
    expect(score('News21InstructionRetrieval')).toBe('ndcg_cut.5');
    expect(score('mini-followir')).toBe('ndcg_cut.5');
    expect(plainMean([0.121, 0.193, 0.081])).toBeCloseTo(0.13166666, 7);
  });
});
