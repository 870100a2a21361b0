/**
 * The paper's table shape from per-model result records, as a grid: rows Ins-orig / Ins-DV /
 * All-orig / All-DV per backbone, columns the registry's reported (benchmark, measure) pairs
 * (report-registry.ts), each cell the mean with its t interval over seeds at the verdict rule's
 * level (stats/verdict.ts). A model's value in a column is the plain mean over the benchmark's
 * sets. Paired differences between mixes on a (benchmark, measure): per topic, each mix's
 * seed-averaged value, then a t interval over topics of the difference (the verdicts' evidence),
 * plus an interval over seeds: when both arms ran the same seeds (as every mini and paper run
 * does: each seed fixes the fine-tuning seed and, with `pretrain.perSeed`, the MLM backbone,
 * for every arm), the t interval of the per-seed differences a_s - b_s (paired by seed: a
 * seed's backbone moves both arms, and pairing takes that out); otherwise the Welch interval of
 * the difference in means (independent arms). Values x scale (100).
 */
import type { MixName } from '../stages/mixes-stage.js';
import { ALL_MIXES } from '../stages/mixes-stage.js';
import { pooledSd, seedsNeeded } from '../stats/seeds-needed.js';
import { type Interval, meanCi, pairedDiffCi, welchDiffCi } from '../stats/t-interval.js';
import { VERDICT_RULE } from '../stats/verdict.js';
import type { ModelResults } from './collect-results.js';
import type { Column } from './report-registry.js';

/** A (benchmark, measure) on the benchmark's own sets, or on a split of its queries. */
export interface MeasureRef {
  benchmark: string;
  measure: string;
  split?: string | null;
}

export interface TableRow {
  backbone: string;
  mix: MixName;
  seeds: number[];
  /** Column key (report-registry.ts columnKey) -> mean and interval over seeds, x scale. */
  values: Record<string, Interval>;
}

export interface Comparison {
  backbone: string;
  a: MixName;
  b: MixName;
  benchmark: string;
  measure: string;
  /** t over topics of the seed-averaged per-topic difference a - b. */
  perTopic: Interval;
  /**
   * Over seeds: paired by seed (t over the per-seed differences, n - 1 df) when both arms ran
   * the same seeds, else Welch over the per-seed values of each arm.
   */
  overSeeds: Interval;
  /** How `overSeeds` was taken. */
  seedPairing: 'paired' | 'welch';
  /** The Welch interval over seeds, beside the paired one (what the report used before issue 26's pairing). */
  overSeedsUnpaired: Interval;
  seeds: number;
  /** Mean of arm b over seeds (the reference a relative change is taken against). */
  referenceMean: number;
  /** The sd the seeds-needed figure uses: of the per-seed differences (paired), else the arms' pooled per-seed sd (NaN under 2 seeds each). */
  seedSd: number;
  /** Seeds per arm the observed seed variance needs for the seed interval to exclude 0 (null: > 200 or ~0). */
  seedsNeeded: number | null;
}

const level = VERDICT_RULE.level;

const recordsOf = (r: ModelResults, m: MeasureRef) =>
  r.records.filter((x) => x.benchmark === m.benchmark && x.split === (m.split ?? null));

/** A model's value (a fraction): the plain mean over the benchmark's sets; undefined when not evaluated. */
export function columnValue(r: ModelResults, m: MeasureRef): number | undefined {
  const rs = recordsOf(r, m);
  if (rs.length === 0) return undefined;
  return rs.map((x) => x.measures[m.measure] ?? Number.NaN).reduce((a, b) => a + b, 0) / rs.length;
}

/** Per-topic values (fractions) over the benchmark's sets, keyed `<set>/<topic>`. */
export function perTopicOf(r: ModelResults, m: MeasureRef): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of recordsOf(r, m))
    for (const [q, v] of Object.entries(x.perTopic[m.measure] ?? {})) out[`${x.set}/${q}`] = v;
  return out;
}

function trained(results: readonly ModelResults[], backbone: string, mix: MixName): ModelResults[] {
  return results.filter(
    (r) => r.model.kind === 'trained' && r.model.backbone === backbone && r.model.mix === mix,
  );
}

export function tableRows(
  results: readonly ModelResults[],
  backbones: readonly string[],
  columns: readonly Column[],
): TableRow[] {
  const rows: TableRow[] = [];
  for (const backbone of backbones)
    for (const mix of ALL_MIXES) {
      const rs = trained(results, backbone, mix);
      if (rs.length === 0) continue;
      const values = Object.fromEntries(
        columns.map((c) => [
          c.key,
          meanCi(
            rs
              .map((r) => columnValue(r, c))
              .filter((v): v is number => v !== undefined)
              .map((v) => c.scale * v),
            level,
          ),
        ]),
      );
      rows.push({
        backbone,
        mix,
        seeds: rs.map((r) => (r.model.kind === 'trained' ? r.model.seed : 0)),
        values,
      });
    }
  return rows;
}

/** Per-topic values averaged over the seeds that have the topic, x scale. */
export function seedAveragedPerTopic(
  rs: readonly ModelResults[],
  m: MeasureRef,
  scale = 100,
): Record<string, number> {
  const sum = new Map<string, [number, number]>();
  for (const r of rs)
    for (const [q, v] of Object.entries(perTopicOf(r, m))) {
      const s = sum.get(q) ?? [0, 0];
      sum.set(q, [s[0] + v, s[1] + 1]);
    }
  return Object.fromEntries([...sum.entries()].map(([q, [s, n]]) => [q, scale * (s / n)]));
}

/** A model's value as the mean over `topics` of its per-topic values. */
function meanOverTopics(r: ModelResults, m: MeasureRef, topics: ReadonlySet<string>): number | undefined {
  const vs = Object.entries(perTopicOf(r, m))
    .filter(([q]) => topics.has(q))
    .map(([, v]) => v);
  return vs.length ? vs.reduce((x, y) => x + y, 0) / vs.length : undefined;
}

const only = (per: Record<string, number>, topics?: ReadonlySet<string>) =>
  topics ? Object.fromEntries(Object.entries(per).filter(([q]) => topics.has(q))) : per;

/**
 * Mix a against mix b on one (benchmark, measure): intervals over topics and over seeds. With
 * `topics`, both are taken on those topics only (each seed's value is its mean over them).
 */
export function compare(
  results: readonly ModelResults[],
  backbone: string,
  a: MixName,
  b: MixName,
  m: MeasureRef,
  topics?: ReadonlySet<string>,
  scale = 100,
): Comparison | null {
  const ra = trained(results, backbone, a);
  const rb = trained(results, backbone, b);
  if (ra.length === 0 || rb.length === 0) return null;
  const valueFor = (r: ModelResults) => (topics ? meanOverTopics(r, m, topics) : columnValue(r, m));
  // each arm's value per seed, x scale
  const bySeed = (rs: readonly ModelResults[]) => {
    const out: Record<string, number> = {};
    for (const r of rs) {
      const v = valueFor(r);
      if (v !== undefined && r.model.kind === 'trained') out[String(r.model.seed)] = scale * v;
    }
    return out;
  };
  const sa = bySeed(ra);
  const sb = bySeed(rb);
  const va = Object.values(sa);
  const vb = Object.values(sb);
  const sameSeeds = va.length === vb.length && Object.keys(sa).every((seed) => seed in sb) && va.length > 0;
  const welch = welchDiffCi(va, vb, level);
  const overSeeds = sameSeeds ? pairedDiffCi(sa, sb, level) : welch;
  const seedSd = sameSeeds ? overSeeds.sd : pooledSd(va, vb);
  return {
    backbone,
    a,
    b,
    benchmark: m.benchmark,
    measure: m.measure,
    perTopic: pairedDiffCi(
      only(seedAveragedPerTopic(ra, m, scale), topics),
      only(seedAveragedPerTopic(rb, m, scale), topics),
      level,
    ),
    overSeeds,
    seedPairing: sameSeeds ? 'paired' : 'welch',
    overSeedsUnpaired: welch,
    seeds: Math.min(va.length, vb.length),
    referenceMean: vb.length ? vb.reduce((x, y) => x + y, 0) / vb.length : Number.NaN,
    seedSd,
    seedsNeeded: seedsNeeded(overSeeds.mean, seedSd, { level, paired: sameSeeds }),
  };
}
