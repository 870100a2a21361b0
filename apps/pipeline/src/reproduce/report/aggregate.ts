/**
 * The paper's table shape from per-model results: rows Ins-orig / Ins-DV / All-orig / All-DV per
 * backbone with mean +- 95% CI over seeds (t), and the paired differences between mixes:
 * per topic, each mix's seed-averaged value, then a t interval over topics of the difference
 * (the verdicts' evidence), plus the Welch interval over seeds of the difference in means.
 * All values x100.
 */
import type { MixName } from '../stages/mixes-stage.js';
import { ALL_MIXES } from '../stages/mixes-stage.js';
import { pooledSd, seedsNeeded } from '../stats/seeds-needed.js';
import { type Interval, meanCi, pairedDiffCi, welchDiffCi } from '../stats/t-interval.js';
import type { ModelResults } from './collect-results.js';

export const METRICS = [
  'pMrr',
  'score',
  'seenPMrr',
  'infosearchPMrr',
  'viewAccuracy',
  'bothRight',
  'mairNdcg',
] as const;
export type Metric = (typeof METRICS)[number];

export interface TableRow {
  backbone: string;
  mix: MixName;
  seeds: number[];
  metrics: Record<Metric, Interval>;
}

export interface Comparison {
  backbone: string;
  a: MixName;
  b: MixName;
  metric: 'pMrr' | 'score';
  /** t over topics of the seed-averaged per-topic difference a - b. */
  perTopic: Interval;
  /** Welch over seeds of mean(a) - mean(b). */
  overSeeds: Interval;
  seeds: number;
  /** Mean of arm b over seeds (the reference a relative change is taken against). */
  referenceMean: number;
  /** Pooled per-seed sd of the two arms (NaN under 2 seeds each). */
  seedSd: number;
  /** Seeds per arm the observed seed variance needs for the seed interval to exclude 0 (null: > 200 or ~0). */
  seedsNeeded: number | null;
}

export function metricOf(r: ModelResults, m: Metric): number | undefined {
  switch (m) {
    case 'pMrr':
      return r.followir?.pMrr;
    case 'score':
      return r.followir?.score;
    case 'seenPMrr':
      return r.followirSeen?.pMrr;
    case 'infosearchPMrr':
      return r.infosearch?.pMrr;
    case 'viewAccuracy':
      return r.dev?.viewAccuracy;
    case 'bothRight':
      return r.dev?.bothRight;
    case 'mairNdcg':
      return r.mair?.ndcg10;
  }
}

const x100 = (v: number) => 100 * v;

function trained(results: readonly ModelResults[], backbone: string, mix: MixName): ModelResults[] {
  return results.filter(
    (r) => r.model.kind === 'trained' && r.model.backbone === backbone && r.model.mix === mix,
  );
}

export function tableRows(results: readonly ModelResults[], backbones: readonly string[]): TableRow[] {
  const rows: TableRow[] = [];
  for (const backbone of backbones)
    for (const mix of ALL_MIXES) {
      const rs = trained(results, backbone, mix);
      if (rs.length === 0) continue;
      const metrics = Object.fromEntries(
        METRICS.map((m) => [
          m,
          meanCi(
            rs
              .map((r) => metricOf(r, m))
              .filter((v): v is number => v !== undefined)
              .map(x100),
          ),
        ]),
      ) as Record<Metric, Interval>;
      rows.push({
        backbone,
        mix,
        seeds: rs.map((r) => (r.model.kind === 'trained' ? r.model.seed : 0)),
        metrics,
      });
    }
  return rows;
}

/** Per-topic values averaged over the seeds that have the topic. */
export function seedAveragedPerTopic(
  rs: readonly ModelResults[],
  metric: 'pMrr' | 'score',
): Record<string, number> {
  const sum = new Map<string, [number, number]>();
  for (const r of rs) {
    const per = metric === 'pMrr' ? r.followir?.perTopicPMrr : r.followir?.perTopicScore;
    for (const [q, v] of Object.entries(per ?? {})) {
      const s = sum.get(q) ?? [0, 0];
      sum.set(q, [s[0] + v, s[1] + 1]);
    }
  }
  return Object.fromEntries([...sum.entries()].map(([q, [s, n]]) => [q, x100(s / n)]));
}

/** A model's FollowIR-form value as the mean over `topics` of its per-topic values. */
function meanOverTopics(
  r: ModelResults,
  metric: 'pMrr' | 'score',
  topics: ReadonlySet<string>,
): number | undefined {
  const per = metric === 'pMrr' ? r.followir?.perTopicPMrr : r.followir?.perTopicScore;
  const vs = Object.entries(per ?? {})
    .filter(([q]) => topics.has(q))
    .map(([, v]) => v);
  return vs.length ? vs.reduce((x, y) => x + y, 0) / vs.length : undefined;
}

const only = (per: Record<string, number>, topics?: ReadonlySet<string>) =>
  topics ? Object.fromEntries(Object.entries(per).filter(([q]) => topics.has(q))) : per;

/**
 * Mix a against mix b on one metric: intervals over topics and over seeds. With `topics`, both
 * are taken on those topics only (each seed's value is its mean over them).
 */
export function compare(
  results: readonly ModelResults[],
  backbone: string,
  a: MixName,
  b: MixName,
  metric: 'pMrr' | 'score',
  topics?: ReadonlySet<string>,
): Comparison | null {
  const ra = trained(results, backbone, a);
  const rb = trained(results, backbone, b);
  if (ra.length === 0 || rb.length === 0) return null;
  const valueFor = (r: ModelResults) => (topics ? meanOverTopics(r, metric, topics) : metricOf(r, metric));
  const va = ra
    .map(valueFor)
    .filter((v): v is number => v !== undefined)
    .map(x100);
  const vb = rb
    .map(valueFor)
    .filter((v): v is number => v !== undefined)
    .map(x100);
  return {
    backbone,
    a,
    b,
    metric,
    perTopic: pairedDiffCi(
      only(seedAveragedPerTopic(ra, metric), topics),
      only(seedAveragedPerTopic(rb, metric), topics),
    ),
    overSeeds: welchDiffCi(va, vb),
    seeds: Math.min(va.length, vb.length),
    referenceMean: vb.length ? vb.reduce((x, y) => x + y, 0) / vb.length : Number.NaN,
    seedSd: pooledSd(va, vb),
    seedsNeeded: seedsNeeded(welchDiffCi(va, vb).mean, pooledSd(va, vb)),
  };
}
