/**
 * How each benchmark family is scored, as a frozen registry (mteb-style declarative tasks):
 * the task (rerank fixed candidates or retrieve from the corpus), the retrieval depth, the
 * main metric and the function that turns a set's runs into scores. All scores are fractions
 * (tables multiply by 100).
 *
 * - followir: og run vs og qrels gives the Score (the task entry's measure: MAP@1000
 *   Robust04/Core17, nDCG@5 News21 and the mini world; see tasks/task-registry.ts), plus p-MRR
 *   between the og and changed runs (the main metric, as in mteb).
 * - infosearch: nDCG@10 per mode, p-MRR / SICR / WISE (paper variant) over the three runs.
 * - mair: nDCG@10 of the og run, top 100.
 */
import type { EvalMode, InstructedSet, Run } from '@dv/core';
import { evaluateRun } from '../metrics/evaluate-run.js';
import { type InfoSearchVariant, infoSearchScores } from '../metrics/infosearch.js';
import { pMrr } from '../metrics/p-mrr.js';
import type { TaskMetadata } from '../tasks/task-registry.js';

export interface ProfileScores {
  mainMetric: string;
  scores: Record<string, number>;
  perQuery: Record<string, Record<string, number>>;
  numQueries: number;
}

export interface ScoreOptions {
  /** InfoSearch metric definitions: the paper's (default) or the released code's. */
  infoSearchVariant?: InfoSearchVariant;
}

/** What a profile's scorer gets besides the set and runs: the task entry and the options. */
export interface ScoreContext extends ScoreOptions {
  task: TaskMetadata;
}

export interface BenchmarkProfile {
  readonly task: 'rerank' | 'retrieve';
  readonly topK: number;
  readonly description: string;
  readonly score: (
    set: InstructedSet,
    runs: Partial<Record<EvalMode, Run>>,
    context: ScoreContext,
  ) => ProfileScores;
}

function need<T>(value: T | undefined, what: string, set: InstructedSet): T {
  if (value === undefined) throw new Error(`${set.name}: needs ${what}`);
  return value;
}

function rowOf(perQuery: ProfileScores['perQuery'], qid: string): Record<string, number> {
  let row = perQuery[qid];
  if (!row) {
    row = {};
    perQuery[qid] = row;
  }
  return row;
}

function addPerQuery(
  into: ProfileScores['perQuery'],
  prefix: string,
  rows: Record<string, Record<string, number>>,
) {
  for (const [qid, row] of Object.entries(rows)) {
    const target = rowOf(into, qid);
    for (const [k, v] of Object.entries(row)) target[`${prefix}${k}`] = v;
  }
}

function scoreFollowIr(
  set: InstructedSet,
  runs: Partial<Record<EvalMode, Run>>,
  context: ScoreContext,
): ProfileScores {
  const qrelsOg = need(set.qrels.og, 'og qrels', set);
  const qrelsChanged = need(set.qrels.changed, 'changed qrels', set);
  const runOg = need(runs.og, 'an og run', set);
  const runChanged = need(runs.changed, 'a changed run', set);
  const measure = context.task.scoreMeasure;
  if (!measure) throw new Error(`task ${context.task.name} has no FollowIR Score measure in the registry`);
  const og = evaluateRun(qrelsOg, runOg, ['ndcg_cut.5', 'map_cut.1000', measure]);
  const ch = evaluateRun(qrelsChanged, runChanged, ['ndcg_cut.5', 'map_cut.1000']);
  const p = pMrr({ qrelsOg, qrelsChanged, runOg, runChanged });
  const perQuery: ProfileScores['perQuery'] = {};
  addPerQuery(perQuery, 'og_', og.perQuery);
  addPerQuery(perQuery, 'changed_', ch.perQuery);
  for (const [qid, v] of Object.entries(p.perQuery)) rowOf(perQuery, qid)['p-MRR'] = v;
  return {
    mainMetric: 'p-MRR',
    scores: {
      'p-MRR': p.pMrr,
      score: og.means[measure.replace('.', '_')]!,
      og_ndcg_cut_5: og.means.ndcg_cut_5!,
      og_map_cut_1000: og.means.map_cut_1000!,
      changed_ndcg_cut_5: ch.means.ndcg_cut_5!,
      changed_map_cut_1000: ch.means.map_cut_1000!,
    },
    perQuery,
    numQueries: og.numQueries,
  };
}

function scoreInfoSearch(
  set: InstructedSet,
  runs: Partial<Record<EvalMode, Run>>,
  options: ScoreContext,
): ProfileScores {
  const scores: Record<string, number> = {};
  const perQuery: ProfileScores['perQuery'] = {};
  let numQueries = 0;
  for (const mode of ['og', 'changed', 'reversed'] as const) {
    const q = set.qrels[mode];
    const r = runs[mode];
    if (!q || !r) continue;
    const e = evaluateRun(q, r, ['ndcg_cut.10']);
    scores[`${mode}_ndcg_cut_10`] = e.means.ndcg_cut_10!;
    addPerQuery(perQuery, `${mode}_`, e.perQuery);
    if (mode === 'og') numQueries = e.numQueries;
  }
  const s = infoSearchScores(
    {
      qrelsOg: need(set.qrels.og, 'og qrels', set),
      qrelsChanged: need(set.qrels.changed, 'instructed (changed) qrels', set),
      runOg: need(runs.og, 'an og run', set),
      runChanged: need(runs.changed, 'an instructed run', set),
      runReversed: need(runs.reversed, 'a reversed run', set),
    },
    { variant: options.infoSearchVariant ?? 'paper' },
  );
  Object.assign(scores, { 'p-MRR': s.pMrr, SICR: s.sicr, WISE: s.wise, ideal_WISE: s.idealWise });
  for (const [qid, row] of Object.entries(s.perQuery)) {
    const into = rowOf(perQuery, qid);
    if (row.pMrr !== undefined) into['p-MRR'] = row.pMrr;
    if (row.sicr !== undefined) into.SICR = row.sicr;
    if (row.wise !== undefined) into.WISE = row.wise;
  }
  return { mainMetric: 'p-MRR', scores, perQuery, numQueries };
}

function scoreMair(set: InstructedSet, runs: Partial<Record<EvalMode, Run>>): ProfileScores {
  const e = evaluateRun(need(set.qrels.og, 'og qrels', set), need(runs.og, 'an og run', set), [
    'ndcg_cut.10',
    'recall.100',
    'recip_rank_cut.10',
  ]);
  return { mainMetric: 'ndcg_cut_10', scores: e.means, perQuery: e.perQuery, numQueries: e.numQueries };
}

export const benchmarkProfiles = Object.freeze({
  followir: {
    task: 'rerank',
    topK: 1000,
    description: 'FollowIR: rerank 1000 candidates with og and changed instructions; Score and p-MRR',
    score: scoreFollowIr,
  },
  infosearch: {
    task: 'retrieve',
    topK: 1000,
    description: 'InfoSearch: full-corpus retrieval in original / instructed / reversed modes',
    score: scoreInfoSearch,
  },
  mair: {
    task: 'retrieve',
    topK: 100,
    description: 'MAIR: full-corpus retrieval, nDCG@10',
    score: scoreMair,
  },
} as const satisfies Record<string, BenchmarkProfile>);

export type BenchmarkProfileName = keyof typeof benchmarkProfiles;
