import type { Qrels, Run } from '@dv/core';
import { describe, expect, it } from 'vitest';
import { evaluateRun } from './evaluate-run.js';
import { parseMeasures } from './trec-measures.js';

const topic = (entries: Array<[string, number]>) => new Map(entries);

describe('trec_eval measures, hand-computed', () => {
  // q1: a=2, b=1, c=0 judged, d=1 judged but never retrieved; x retrieved but unjudged.
  const qrels: Qrels = new Map([
    [
      'q1',
      topic([
        ['a', 2],
        ['b', 1],
        ['c', 0],
        ['d', 1],
      ]),
    ],
  ]);
  const run: Run = new Map([
    [
      'q1',
      topic([
        ['c', 0.6],
        ['a', 0.9],
        ['b', 0.7],
        ['x', 0.8],
      ]),
    ],
  ]);
  // Ranked by score: a(2) x(0) b(1) c(0).
  const r = evaluateRun(
    qrels,
    run,
    'ndcg_cut.3,ndcg_cut.10,map,map_cut.1,recip_rank,P.5,recall.5,recall.1,recip_rank_cut.1,ndcg',
  ).means;

  it('nDCG uses linear gain and an ideal list of all judged relevant docs', () => {
    const dcg3 = 2 / 1 + 0 + 1 / 2; // ranks 1 and 3
    const idcg3 = 2 / 1 + 1 / Math.log2(3) + 1 / 2; // ideal gains 2, 1, 1
    expect(r.ndcg_cut_3).toBeCloseTo(dcg3 / idcg3, 12);
    // k beyond the run: DCG stops at the run's end, the ideal keeps all three relevant docs.
    expect(r.ndcg_cut_10).toBeCloseTo(dcg3 / idcg3, 12);
    expect(r.ndcg).toBeCloseTo(dcg3 / idcg3, 12);
  });
  it('AP divides by every relevant doc in the qrels, retrieved or not', () => {
    expect(r.map).toBeCloseTo((1 / 1 + 2 / 3) / 3, 12);
    expect(r.map_cut_1).toBeCloseTo(1 / 3, 12);
  });
  it('P@k divides by k even when the run is shorter; recall by all relevant docs', () => {
    expect(r.P_5).toBeCloseTo(2 / 5, 12);
    expect(r.recall_5).toBeCloseTo(2 / 3, 12);
    expect(r.recall_1).toBeCloseTo(1 / 3, 12);
    expect(r.recip_rank).toBe(1);
    expect(r.recip_rank_cut_1).toBe(1);
  });
});

describe('trec_eval edge cases', () => {
  it('ties are broken by doc id descending (byte order), whatever the rank column said', () => {
    const qrels: Qrels = new Map([['q', topic([['a', 1]])]]);
    const run: Run = new Map([
      [
        'q',
        topic([
          ['a', 1],
          ['b', 1],
          ['c', 1],
        ]),
      ],
    ]);
    // c, b, a: the relevant doc is third.
    expect(evaluateRun(qrels, run, 'recip_rank').means.recip_rank).toBeCloseTo(1 / 3, 15);
    // Byte order, not locale order: 'B' (0x42) < 'a' (0x61), so 'a' ranks before 'B'.
    const run2: Run = new Map([
      [
        'q',
        topic([
          ['B', 1],
          ['a', 1],
        ]),
      ],
    ]);
    expect(evaluateRun(qrels, run2, 'recip_rank').means.recip_rank).toBe(1);
  });

  it('scores equal in float32 tie (pytrec_eval parity); float64 mode keeps them apart', () => {
    const qrels: Qrels = new Map([['q', topic([['a', 1]])]]);
    const run: Run = new Map([
      [
        'q',
        topic([
          ['a', 1 + 1e-9],
          ['b', 1],
        ]),
      ],
    ]);
    expect(evaluateRun(qrels, run, 'recip_rank').means.recip_rank).toBe(0.5);
    expect(evaluateRun(qrels, run, 'recip_rank', { float32: false }).means.recip_rank).toBe(1);
  });

  it('a topic with no relevant docs scores 0 and still counts in the mean', () => {
    const qrels: Qrels = new Map([
      ['q1', topic([['a', 1]])],
      ['q2', topic([['z', 0]])],
    ]);
    const run: Run = new Map([
      ['q1', topic([['a', 1]])],
      ['q2', topic([['z', 1]])],
    ]);
    const e = evaluateRun(qrels, run, 'ndcg_cut.10,map,recall.10,recip_rank');
    expect(e.numQueries).toBe(2);
    expect(e.perQuery.q2).toEqual({ ndcg_cut_10: 0, map: 0, recall_10: 0, recip_rank: 0 });
    expect(e.means.map).toBe(0.5);
  });

  it('averages only over topics in both run and qrels', () => {
    const qrels: Qrels = new Map([
      ['q1', topic([['a', 1]])],
      ['judged-only', topic([['a', 1]])],
    ]);
    const run: Run = new Map([
      ['q1', topic([['a', 1]])],
      ['run-only', topic([['a', 1]])],
    ]);
    const e = evaluateRun(qrels, run, 'map');
    expect(e.numQueries).toBe(1);
    expect(Object.keys(e.perQuery)).toEqual(['q1']);
    expect(e.means.map).toBe(1);
  });

  it('relevant docs missing from the run lower AP, recall and nDCG', () => {
    const qrels: Qrels = new Map([
      [
        'q',
        topic([
          ['a', 1],
          ['m', 3],
        ]),
      ],
    ]);
    const run: Run = new Map([['q', topic([['a', 1]])]]);
    const e = evaluateRun(qrels, run, 'map,recall.1000,ndcg_cut.5').means;
    expect(e.map).toBe(0.5);
    expect(e.recall_1000).toBe(0.5);
    expect(e.ndcg_cut_5).toBeCloseTo(1 / (3 + 1 / Math.log2(3)), 12);
  });

  it('negative grades gain nothing and are not relevant', () => {
    const qrels: Qrels = new Map([
      [
        'q',
        topic([
          ['a', -1],
          ['b', 1],
        ]),
      ],
    ]);
    const run: Run = new Map([
      [
        'q',
        topic([
          ['a', 2],
          ['b', 1],
        ]),
      ],
    ]);
    const e = evaluateRun(qrels, run, 'ndcg_cut.2,map,recip_rank').means;
    expect(e.recip_rank).toBe(0.5);
    expect(e.map).toBe(0.5);
    expect(e.ndcg_cut_2).toBeCloseTo(1 / Math.log2(3), 12);
  });
});

describe('parseMeasures', () => {
  it('accepts trec_eval and printed spellings and expands default cutoffs', () => {
    expect(parseMeasures('ndcg_cut.5,map_cut_1000,recip_rank,recip_rank_cut.10').map((m) => m.name)).toEqual([
      'ndcg_cut_5',
      'map_cut_1000',
      'recip_rank',
      'recip_rank_cut_10',
    ]);
    expect(parseMeasures('P').map((m) => m.name)).toEqual([
      'P_5',
      'P_10',
      'P_15',
      'P_20',
      'P_30',
      'P_100',
      'P_200',
      'P_500',
      'P_1000',
    ]);
  });
  it.each([
    ['bogus', /unknown measure "bogus"/],
    ['map.5', /takes no cutoff/],
    ['ndcg_cut.0', /positive integer/],
    ['', /no measures/],
  ])('refuses %j', (spec, re) => {
    expect(() => parseMeasures(spec)).toThrow(re);
  });
});
