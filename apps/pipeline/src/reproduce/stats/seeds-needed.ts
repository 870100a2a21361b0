/**
 * How many seeds per arm the observed seed variance needs for the seed interval of a - b to
 * exclude 0 (issue 26: a rule's power is stated, not assumed); the usual planning rule at the
 * observed effect d (power ~50% at that n), the smallest n >= 2 whose half-width is below |d|,
 * or null past `max`:
 *
 *   independent arms (pooled per-seed sd s_p):  t_{1-a/2, 2n-2} * s_p * sqrt(2 / n)
 *   paired by seed (sd s_d of the per-seed differences, the arms sharing each seed's
 *   backbone and fine-tuning seed):             t_{1-a/2, n-1} * s_d / sqrt(n)
 */
import { tQuantile } from './t-interval.js';

function sampleVariance(x: readonly number[]): number {
  const m = x.reduce((a, b) => a + b, 0) / x.length;
  return x.reduce((a, b) => a + (b - m) ** 2, 0) / (x.length - 1);
}

/** Pooled sd of two samples (each with >= 2 values), NaN otherwise. */
export function pooledSd(a: readonly number[], b: readonly number[]): number {
  if (a.length < 2 || b.length < 2) return Number.NaN;
  const v =
    ((a.length - 1) * sampleVariance(a) + (b.length - 1) * sampleVariance(b)) / (a.length + b.length - 2);
  return Math.sqrt(v);
}

/** Smallest equal arm size whose 95% interval of the difference excludes 0; null beyond `max`. */
export function seedsNeeded(
  diff: number,
  sd: number,
  options: { level?: number; max?: number; paired?: boolean } = {},
): number | null {
  const level = options.level ?? 0.95;
  const max = options.max ?? 200;
  if (!Number.isFinite(diff) || !Number.isFinite(sd)) return null;
  if (sd === 0) return diff === 0 ? null : 2;
  const q = 1 - (1 - level) / 2;
  for (let n = 2; n <= max; n++) {
    const half = options.paired
      ? (tQuantile(q, n - 1) * sd) / Math.sqrt(n)
      : tQuantile(q, 2 * n - 2) * sd * Math.sqrt(2 / n);
    if (half < Math.abs(diff)) return n;
  }
  return null;
}
