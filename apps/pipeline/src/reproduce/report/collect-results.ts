/**
 * Reads every evaluated model's result JSONs back from the run folder (the report computes
 * nothing from memory: each number traces to a file listed in `sources`). Values are fractions
 * here; the report multiplies by 100.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { EvaluationResult } from '@dv/core';
import { TASKS, type TaskMetadata, taskEntry } from '@dv/eval';
import type { ModelRef } from '../stages/eval-stage.js';
import { DEV_PAIRS_RESULT, EVAL_DIRS } from '../stages/eval-stage.js';

export interface ModelResults {
  model: ModelRef;
  followir?: {
    pMrr: number;
    score: number;
    /** Per topic: p-MRR (topics with changed docs) and Score. */
    perTopicPMrr: Record<string, number>;
    perTopicScore: Record<string, number>;
  };
  /** The seen-wording split of the FollowIR-form benchmark (train-pool instruction templates). */
  followirSeen?: { pMrr: number; score: number };
  infosearch?: { pMrr: number; byLever: Record<string, number>; ndcgOg: number };
  dev?: { viewAccuracy: number; bothRight: number; pairs: number };
  /** MAIR (paper profile): nDCG@10, plain mean over its tasks. */
  mair?: { ndcg10: number; tasks: number };
  /** Result files (relative to the run folder) each number came from. */
  sources: string[];
}

function readResult(path: string): EvaluationResult {
  return EvaluationResult.parse(JSON.parse(readFileSync(path, 'utf8')));
}

/** The per-set result files runBenchmark wrote in `dir` (`<set>.json`), sorted. */
function setResults(dir: string): Array<{ path: string; result: EvaluationResult }> {
  if (!existsSync(join(dir, 'summary.json'))) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json') && f !== 'summary.json' && f !== 'manifest.json')
    .sort()
    .map((f) => ({ path: join(dir, f), result: readResult(join(dir, f)) }));
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * The Hub benchmarks' results (paper profile): FollowIR p-MRR and Score are plain means over
 * its three sets (FollowIR's average), each set's Score its registered measure; per-topic values
 * are keyed `<set>/<topic>`, so paired differences run over all FollowIR topics. InfoSearch
 * p-MRR is the mean over dimensions, MAIR nDCG@10 the mean over tasks.
 */
function collectHubResults(runDir: string, evalDir: string, out: ModelResults): ModelResults {
  const rel = (p: string) => relative(runDir, p);
  const followir = setResults(join(evalDir, EVAL_DIRS.followir));
  if (followir.length) {
    const perTopicPMrr: Record<string, number> = {};
    const perTopicScore: Record<string, number> = {};
    for (const { result: r } of followir) {
      const task = (TASKS as Record<string, TaskMetadata>)[r.dataset];
      const key = `og_${(task?.scoreMeasure ?? 'ndcg_cut.5').replace('.', '_')}`;
      for (const [q, row] of Object.entries(r.perQuery ?? {})) {
        if (row['p-MRR'] !== undefined) perTopicPMrr[`${r.dataset}/${q}`] = row['p-MRR'];
        if (row[key] !== undefined) perTopicScore[`${r.dataset}/${q}`] = row[key];
      }
    }
    out.followir = {
      pMrr: mean(followir.map((x) => x.result.scores['p-MRR']!)),
      score: mean(followir.map((x) => x.result.scores.score!)),
      perTopicPMrr,
      perTopicScore,
    };
    out.sources.push(
      ...followir.map((x) => rel(x.path)),
      rel(join(evalDir, EVAL_DIRS.followir, 'manifest.json')),
    );
  }
  const info = setResults(join(evalDir, EVAL_DIRS.infosearch));
  if (info.length) {
    const byLever: Record<string, number> = {};
    for (const { result: r } of info)
      byLever[r.dataset.replace(/^InfoSearch-/, '').toLowerCase()] = r.scores['p-MRR']!;
    out.infosearch = {
      pMrr: mean(Object.values(byLever)),
      byLever,
      ndcgOg: mean(info.map((x) => x.result.scores.og_ndcg_cut_10 ?? Number.NaN)),
    };
    out.sources.push(
      ...info.map((x) => rel(x.path)),
      rel(join(evalDir, EVAL_DIRS.infosearch, 'manifest.json')),
    );
  }
  const mair = setResults(join(evalDir, EVAL_DIRS.mair));
  if (mair.length) {
    out.mair = { ndcg10: mean(mair.map((x) => x.result.scores.ndcg_cut_10!)), tasks: mair.length };
    out.sources.push(...mair.map((x) => rel(x.path)), rel(join(evalDir, EVAL_DIRS.mair, 'manifest.json')));
  }
  return out;
}

/** `hub`: the paper profile's Hub benchmarks (else the mini world's). */
export function collectModelResults(
  runDir: string,
  evalDir: string,
  model: ModelRef,
  hub = false,
): ModelResults {
  const out: ModelResults = { model, sources: [] };
  if (hub) return collectHubResults(runDir, evalDir, out);
  const rel = (p: string) => relative(runDir, p);
  const fDir = join(evalDir, EVAL_DIRS.followir);
  const fPath = join(fDir, 'mini-followir.json');
  if (existsSync(fPath)) {
    const r = readResult(fPath);
    // the mini world's FollowIR Score measure, as its registered task says (nDCG@5)
    const key = `og_${(taskEntry('mini-followir').scoreMeasure ?? 'ndcg_cut.5').replace('.', '_')}`;
    const perTopicPMrr: Record<string, number> = {};
    const perTopicScore: Record<string, number> = {};
    for (const [q, row] of Object.entries(r.perQuery ?? {})) {
      if (row['p-MRR'] !== undefined) perTopicPMrr[q] = row['p-MRR'];
      if (row[key] !== undefined) perTopicScore[q] = row[key];
    }
    out.followir = { pMrr: r.scores['p-MRR']!, score: r.scores.score!, perTopicPMrr, perTopicScore };
    out.sources.push(rel(fPath), rel(join(fDir, 'manifest.json')));
  }
  const sPath = join(evalDir, EVAL_DIRS.followirSeen, 'mini-followir-seen.json');
  if (existsSync(sPath)) {
    const r = readResult(sPath);
    out.followirSeen = { pMrr: r.scores['p-MRR']!, score: r.scores.score! };
    out.sources.push(rel(sPath), rel(join(evalDir, EVAL_DIRS.followirSeen, 'manifest.json')));
  }
  const iDir = join(evalDir, EVAL_DIRS.infosearch);
  if (existsSync(join(iDir, 'summary.json'))) {
    const byLever: Record<string, number> = {};
    const ndcg: number[] = [];
    for (const f of readdirSync(iDir)
      .filter((f) => /^mini-infosearch-.*\.json$/.test(f) && !f.endsWith('.mteb.json'))
      .sort()) {
      const r = readResult(join(iDir, f));
      byLever[r.dataset.replace(/^mini-infosearch-/, '')] = r.scores['p-MRR']!;
      ndcg.push(r.scores.og_ndcg_cut_10 ?? Number.NaN);
      out.sources.push(rel(join(iDir, f)));
    }
    const vals = Object.values(byLever);
    out.infosearch = {
      pMrr: vals.reduce((a, b) => a + b, 0) / vals.length,
      byLever,
      ndcgOg: ndcg.reduce((a, b) => a + b, 0) / ndcg.length,
    };
    out.sources.push(rel(join(iDir, 'manifest.json')));
  }
  const dPath = join(evalDir, EVAL_DIRS.devPairs, DEV_PAIRS_RESULT);
  if (existsSync(dPath)) {
    const d = JSON.parse(readFileSync(dPath, 'utf8')) as {
      viewAccuracy: number;
      bothRight: number;
      pairs: number;
    };
    out.dev = { viewAccuracy: d.viewAccuracy, bothRight: d.bothRight, pairs: d.pairs };
    out.sources.push(rel(dPath), rel(join(evalDir, EVAL_DIRS.devPairs, 'manifest.json')));
  }
  return out;
}
