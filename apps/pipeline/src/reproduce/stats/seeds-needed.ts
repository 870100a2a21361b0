/**
 * How many seeds per arm the observed seed variance needs for the seed interval of a - b to
 * exclude 0 (issue 26: a rule's power is stated, not assumed). With the pooled per-seed standard
 * deviation s_p and the observed difference d, equal arms of n seeds give the half-width
 * t_{1-a/2, 2n-2} * s_p * sqrt(2 / n); the answer is the smallest n >= 2 with half-width < |d|
 * (the usual planning rule at the observed effect: power ~50% at that n), or null past `max`.
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
  options: { level?: number; max?: number } = {},
): number | null {
  const level = options.level ?? 0.95;
  const max = options.max ?? 200;
  if (!Number.isFinite(diff) || !Number.isFinite(sd)) return null;
  if (sd === 0) return diff === 0 ? null : 2;
  for (let n = 2; n <= max; n++) {
    const half = tQuantile(1 - (1 - level) / 2, 2 * n - 2) * sd * Math.sqrt(2 / n);
    if (half < Math.abs(diff)) return n;
  }
  return null;
}
