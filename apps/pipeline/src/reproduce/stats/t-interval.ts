/**
 * Confidence intervals from Student's t distribution, for the report's "mean +- 95% CI over
 * seeds" and the paired per-topic differences.
 *
 *   meanCi(x):        mean(x) +- t_{1-a/2, n-1} * sd(x) / sqrt(n)             (sd with n - 1)
 *   pairedDiffCi(a,b): meanCi of d_t = a_t - b_t over the topics both have
 *   welchDiffCi(a,b): mean(a) - mean(b) +- t_{1-a/2, nu} * sqrt(sa^2/na + sb^2/nb), nu by
 *                     Welch-Satterthwaite
 *
 * The t quantile inverts the CDF F(t) = 1 - I_{nu/(nu+t^2)}(nu/2, 1/2) / 2 (t >= 0), with the
 * regularized incomplete beta function evaluated by its continued fraction (Lentz's method), as
 * in Abramowitz & Stegun 26.5.8 / 26.7.1. With fewer than two values an interval is undefined
 * (NaN bounds), never invented.
 */

function logGamma(x: number): number {
  // Lanczos approximation (g = 7, n = 9), accurate to ~1e-15 for x > 0.
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let a = c[0]!;
  const t = z + 7.5;
  for (let i = 1; i < 9; i++) a += c[i]! / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

function betaContinuedFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-15) break;
  }
  return h;
}

/** Regularized incomplete beta I_x(a, b). */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const lnFront = logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x);
  if (x < (a + 1) / (a + b + 2)) return (Math.exp(lnFront) * betaContinuedFraction(x, a, b)) / a;
  return 1 - (Math.exp(lnFront) * betaContinuedFraction(1 - x, b, a)) / b;
}

/** CDF of Student's t with `df` degrees of freedom. */
export function tCdf(t: number, df: number): number {
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** The p-quantile of Student's t (0 < p < 1, df > 0), by bisection on the CDF. */
export function tQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1) || !(df > 0)) return Number.NaN;
  if (p === 0.5) return 0;
  let lo = -1;
  let hi = 1;
  while (tCdf(lo, df) > p) lo *= 2;
  while (tCdf(hi, df) < p) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-12 * Math.max(1, Math.abs(hi)); i++) {
    const mid = (lo + hi) / 2;
    if (tCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

export interface Interval {
  mean: number;
  lo: number;
  hi: number;
  n: number;
  /** Sample standard deviation (n - 1); NaN for n < 2. */
  sd: number;
  level: number;
}

const mean = (x: readonly number[]) => x.reduce((a, b) => a + b, 0) / x.length;
const variance = (x: readonly number[]) => {
  const m = mean(x);
  return x.reduce((a, b) => a + (b - m) ** 2, 0) / (x.length - 1);
};

export function meanCi(values: readonly number[], level = 0.95): Interval {
  const n = values.length;
  if (n === 0) return { mean: Number.NaN, lo: Number.NaN, hi: Number.NaN, n, sd: Number.NaN, level };
  const m = mean(values);
  if (n < 2) return { mean: m, lo: Number.NaN, hi: Number.NaN, n, sd: Number.NaN, level };
  const sd = Math.sqrt(variance(values));
  const half = tQuantile(1 - (1 - level) / 2, n - 1) * (sd / Math.sqrt(n));
  return { mean: m, lo: m - half, hi: m + half, n, sd, level };
}

/** CI of the mean per-topic difference a - b over the topics both have. */
export function pairedDiffCi(
  a: Readonly<Record<string, number>>,
  b: Readonly<Record<string, number>>,
  level = 0.95,
): Interval {
  const diffs = Object.keys(a)
    .filter((k) => k in b)
    .sort()
    .map((k) => a[k]! - b[k]!);
  return meanCi(diffs, level);
}

/** Welch CI of mean(a) - mean(b) (independent samples, unequal variances). */
export function welchDiffCi(a: readonly number[], b: readonly number[], level = 0.95): Interval {
  const n = Math.min(a.length, b.length);
  const d = a.length && b.length ? mean(a) - mean(b) : Number.NaN;
  if (a.length < 2 || b.length < 2)
    return { mean: d, lo: Number.NaN, hi: Number.NaN, n, sd: Number.NaN, level };
  const va = variance(a) / a.length;
  const vb = variance(b) / b.length;
  const se = Math.sqrt(va + vb);
  if (se === 0) return { mean: d, lo: d, hi: d, n, sd: 0, level };
  const df = (va + vb) ** 2 / (va ** 2 / (a.length - 1) + vb ** 2 / (b.length - 1));
  const half = tQuantile(1 - (1 - level) / 2, df) * se;
  return { mean: d, lo: d - half, hi: d + half, n, sd: se, level };
}
