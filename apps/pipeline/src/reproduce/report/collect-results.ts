/**
 * Reads every evaluated model's result JSONs back from the run folder (the report computes
 * nothing from memory: each number traces to a file listed in `sources`). Values are fractions
 * here; the report multiplies by 100.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { EvaluationResult } from '@dv/core';
import { taskEntry } from '@dv/eval';
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
  /** Result files (relative to the run folder) each number came from. */
  sources: string[];
}

function readResult(path: string): EvaluationResult {
  return EvaluationResult.parse(JSON.parse(readFileSync(path, 'utf8')));
}

export function collectModelResults(runDir: string, evalDir: string, model: ModelRef): ModelResults {
  const out: ModelResults = { model, sources: [] };
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
