/**
 * Regression tests for issue 12 item 10 (text half): trec_eval prints with C's printf, which
 * rounds exact binary ties half to even (0.03125 -> 0.0312; toFixed gave 0.0313), and `-q`
 * groups lines by topic in strcmp order.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { formatTrecFloat, trecEvalText } from './trec-eval-text.js';
import { parseMeasures } from './trec-measures.js';

describe('formatTrecFloat (printf %.4f)', () => {
  it.each([
    [0.03125, '0.0312'], // exact tie, 2 even: down (toFixed says 0.0313)
    [0.09375, '0.0938'], // exact tie, 7 odd: up
    [0.15625, '0.1562'],
    [0.5, '0.5000'],
    [1, '1.0000'],
    [0, '0.0000'],
    [0.00005, '0.0001'], // not a binary tie: 5e-5 is stored just above, printf rounds up too
    [0.12345, '0.1235'], // stored as 0.123450000000000004174...: above the tie
    [0.33333333, '0.3333'],
    [-0.03125, '-0.0312'],
    [2 / 3, '0.6667'],
  ])('%d -> %s', (x, want) => {
    expect(formatTrecFloat(x)).toBe(want);
  });
});

/** Python's '%.4f' is C's printf (correctly rounded, ties to even): an external reference. */
function python(): boolean {
  try {
    execFileSync('python3', ['-c', 'pass']);
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!python())('formatTrecFloat against printf (python3 %.4f)', () => {
  it('agrees on 4096 exact ties k/2^16 and 2000 pseudo-random values', () => {
    const xs: number[] = [];
    for (let k = 0; k < 4096; k++) xs.push(k / 65536);
    let s = 12345;
    for (let i = 0; i < 2000; i++) {
      s = (s * 1103515245 + 12345) % 2 ** 31;
      xs.push(s / 2 ** 31);
    }
    const want = execFileSync('python3', ['-c', "import sys\nfor l in sys.stdin: print('%.4f' % float(l))"], {
      input: xs.map((x) => x.toPrecision(17)).join('\n'),
    })
      .toString()
      .trim()
      .split('\n');
    expect(xs.map((x) => formatTrecFloat(x))).toEqual(want);
  });
});

describe('trecEvalText', () => {
  it('per topic like trec_eval -q: grouped by topic in strcmp order, then all', () => {
    const specs = parseMeasures('map,P.5');
    const text = trecEvalText(
      {
        means: { map: 0.5, P_5: 0.03125 },
        perQuery: { '9': { map: 1, P_5: 0.2 }, '10': { map: 0, P_5: 0 } },
        numQueries: 2,
      },
      specs,
      { perQuery: true },
    );
    expect(text).toBe(
      [
        'map                   \t10\t0.0000',
        'P_5                   \t10\t0.0000',
        'map                   \t9\t1.0000',
        'P_5                   \t9\t0.2000',
        'map                   \tall\t0.5000',
        'P_5                   \tall\t0.0312',
        '',
      ].join('\n'),
    );
  });

  it("lists measures in trec_eval's order (its measure table, cutoffs ascending), not the order asked", () => {
    const specs = parseMeasures(
      'ndcg_cut.10,recip_rank_cut.5,map,recip_rank,P.10,P.5,ndcg,recall.5,map_cut.5',
    );
    const means = Object.fromEntries(specs.map((s) => [s.name, 0.5]));
    const names = trecEvalText({ means, perQuery: {}, numQueries: 1 }, specs)
      .trim()
      .split('\n')
      .map((l) => l.split(/\s+/)[0]);
    expect(names).toEqual([
      'map',
      'recip_rank',
      'P_5',
      'P_10',
      'recall_5',
      'ndcg',
      'ndcg_cut_10',
      'map_cut_5',
      'recip_rank_cut_5',
    ]);
  });
});
