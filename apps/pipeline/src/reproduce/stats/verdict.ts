/**
 * Verdicts of the paper's directional findings, computed from confidence intervals (never
 * written by hand). A claim says that a difference (e.g. Ins-DV minus Ins-orig p-MRR) is
 * positive (`up`) or negative (`down`):
 *
 *   reproduced      the interval lies entirely on the claimed side of 0
 *   not reproduced  the interval lies entirely on the other side of 0
 *   inconclusive    the interval contains 0, is undefined, or fewer than `minSeeds` seeds
 *                   went into either arm
 *
 * A finding made of several claims is reproduced when all are, not reproduced when any is not,
 * and inconclusive otherwise.
 */
import type { Interval } from './t-interval.js';

export type Verdict = 'reproduced' | 'not reproduced' | 'inconclusive';

export interface ClaimEvidence {
  direction: 'up' | 'down';
  /** CI of the difference; null when not measured. */
  interval: Pick<Interval, 'mean' | 'lo' | 'hi'> | null;
  /** Seeds in the arm with fewer. */
  seeds: number;
}

export interface ClaimVerdict {
  verdict: Verdict;
  reason: string;
}

const f = (x: number) => x.toFixed(2);

export function claimVerdict(e: ClaimEvidence, minSeeds = 3): ClaimVerdict {
  if (!e.interval) return { verdict: 'inconclusive', reason: 'not measured in this run' };
  if (e.seeds < minSeeds)
    return { verdict: 'inconclusive', reason: `${e.seeds} seed(s); a verdict needs at least ${minSeeds}` };
  const { lo, hi } = e.interval;
  if (!Number.isFinite(lo) || !Number.isFinite(hi))
    return { verdict: 'inconclusive', reason: 'interval undefined' };
  const ci = `95% CI [${f(lo)}, ${f(hi)}]`;
  const [claimed, opposite] = e.direction === 'up' ? [lo > 0, hi < 0] : [hi < 0, lo > 0];
  if (claimed) return { verdict: 'reproduced', reason: `${ci} excludes 0 on the claimed side` };
  if (opposite) return { verdict: 'not reproduced', reason: `${ci} excludes 0 on the opposite side` };
  return { verdict: 'inconclusive', reason: `${ci} contains 0` };
}

export function combineVerdicts(verdicts: readonly Verdict[]): Verdict {
  if (verdicts.length === 0) return 'inconclusive';
  if (verdicts.some((v) => v === 'not reproduced')) return 'not reproduced';
  if (verdicts.every((v) => v === 'reproduced')) return 'reproduced';
  return 'inconclusive';
}
