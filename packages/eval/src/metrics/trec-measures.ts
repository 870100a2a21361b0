/**
 * The trec_eval measures we compute, as a frozen registry keyed by trec_eval's family name,
 * and the parser for measure lists as trec_eval and pytrec_eval spell them
 * (`ndcg_cut.5`, `map_cut.1000`, `P.10`, `recall.100`, `recip_rank`, `map`, `ndcg`).
 * Output names follow trec_eval's printout (`ndcg_cut_5`, `P_10`). A family given without a
 * cutoff expands to trec_eval's default cutoffs (5,10,15,20,30,100,200,500,1000).
 * `recip_rank_cut.k` (MRR@k) is our one extension: trec_eval has no cut reciprocal rank.
 */
import { averagePrecision } from './average-precision.js';
import type { JudgedTopic } from './judged-topic.js';
import { ndcgCut } from './ndcg-cut.js';
import { precisionAt, recallAt } from './precision-recall.js';
import { reciprocalRank } from './reciprocal-rank.js';

export interface MeasureFamily {
  /** Whether the family takes a cutoff (`ndcg_cut.5`) or not (`map`). */
  readonly cut: boolean;
  readonly compute: (rankedGrades: ArrayLike<number>, topic: JudgedTopic, k: number) => number;
  readonly description: string;
}

export const trecMeasureFamilies = Object.freeze({
  ndcg_cut: {
    cut: true,
    compute: ndcgCut,
    description: 'nDCG@k, linear gain, ideal from all judged docs',
  },
  ndcg: {
    cut: false,
    compute: (g, t) => ndcgCut(g, t, Number.POSITIVE_INFINITY),
    description: 'nDCG over the whole run',
  },
  map_cut: { cut: true, compute: averagePrecision, description: 'AP@k over all relevant docs' },
  map: {
    cut: false,
    compute: (g, t) => averagePrecision(g, t, Number.POSITIVE_INFINITY),
    description: 'AP over the whole run',
  },
  P: { cut: true, compute: (g, _t, k) => precisionAt(g, k), description: 'precision at k' },
  recall: { cut: true, compute: recallAt, description: 'recall at k' },
  recip_rank: {
    cut: false,
    compute: (g) => reciprocalRank(g, Number.POSITIVE_INFINITY),
    description: 'reciprocal rank of the first relevant doc',
  },
  recip_rank_cut: {
    cut: true,
    compute: (g, _t, k) => reciprocalRank(g, k),
    description: 'MRR@k (not in trec_eval)',
  },
} as const satisfies Record<string, MeasureFamily>);

export type MeasureFamilyName = keyof typeof trecMeasureFamilies;

export interface MeasureSpec {
  family: MeasureFamilyName;
  /** Cutoff for cut families; Infinity otherwise. */
  k: number;
  /** trec_eval's printed name, e.g. `ndcg_cut_5`, `map`. */
  name: string;
}

/**
 * @internal The order trec_eval 9.0.8 prints measures in, whatever order `-m` named them: its
 * measure table's (`te_trec_measures` in measures.c), each family's cutoffs ascending. Our one
 * extension, recip_rank_cut, comes after trec_eval's own.
 */
export const TREC_EVAL_PRINT_ORDER: readonly MeasureFamilyName[] = [
  'map',
  'recip_rank',
  'P',
  'recall',
  'ndcg',
  'ndcg_cut',
  'map_cut',
  'recip_rank_cut',
];

/** @internal The specs in trec_eval's print order (TREC_EVAL_PRINT_ORDER, then cutoff). */
export function inTrecEvalOrder(specs: readonly MeasureSpec[]): MeasureSpec[] {
  const rank = (s: MeasureSpec) => TREC_EVAL_PRINT_ORDER.indexOf(s.family);
  return [...specs].sort((a, b) => rank(a) - rank(b) || a.k - b.k);
}

/** trec_eval's default cutoffs for P, recall, ndcg_cut and map_cut. */
export const TREC_DEFAULT_CUTOFFS = [5, 10, 15, 20, 30, 100, 200, 500, 1000] as const;

/**
 * Parses `ndcg_cut.5,map_cut.1000,recip_rank` (or the printed forms `ndcg_cut_5`) into
 * specs, in order, without duplicates. Throws an Error naming the bad item.
 */
export function parseMeasures(list: string | readonly string[]): MeasureSpec[] {
  const items = (typeof list === 'string' ? list.split(',') : list).map((s) => s.trim()).filter(Boolean);
  if (items.length === 0) throw new Error('no measures given');
  const out: MeasureSpec[] = [];
  const seen = new Set<string>();
  const families = Object.keys(trecMeasureFamilies).sort((a, b) => b.length - a.length);
  for (const item of items) {
    const family = families.find((f) => item === f || item.startsWith(`${f}.`) || item.startsWith(`${f}_`)) as
      | MeasureFamilyName
      | undefined;
    // `recip_rank_cut.10` must not match `recip_rank` + `_cut.10`: longest family first.
    if (!family)
      throw new Error(`unknown measure "${item}" (known: ${Object.keys(trecMeasureFamilies).join(', ')})`);
    const def = trecMeasureFamilies[family];
    const param = item.slice(family.length + 1);
    let cutoffs: number[];
    if (!def.cut) {
      if (param !== '') throw new Error(`measure "${family}" takes no cutoff, found "${item}"`);
      cutoffs = [Number.POSITIVE_INFINITY];
    } else if (param === '') {
      cutoffs = [...TREC_DEFAULT_CUTOFFS];
    } else {
      if (!/^[1-9]\d*$/.test(param)) throw new Error(`cutoff of "${item}" must be a positive integer`);
      cutoffs = [Number.parseInt(param, 10)];
    }
    for (const k of cutoffs) {
      const name = def.cut ? `${family}_${k}` : family;
      if (seen.has(name)) continue;
      seen.add(name);
      out.push({ family, k, name });
    }
  }
  return out;
}
