/**
 * Verdicts of the paper's directional findings, computed from confidence intervals (never
 * written by hand). A claim says that a difference (e.g. Ins-DV minus Ins-orig p-MRR) is
 * positive (`up`) or negative (`down`); its evidence is one or more intervals of that
 * difference (the report passes two: t over topics of the seed-averaged per-topic difference,
 * which carries topic variance, and t over seeds of the per-seed differences - paired by seed, the
 * arms of one seed sharing its fine-tuning seed and backbone - which carries training variance):
 *
 *   reproduced      every interval lies entirely on the claimed side of 0
 *   not reproduced  every interval lies entirely on the other side of 0
 *   inconclusive    otherwise: an interval contains 0 or is undefined, the intervals disagree,
 *                   or fewer than `minSeeds` seeds went into either arm
 *
 * A finding made of several claims is reproduced when all are, not reproduced when any is not,
 * and inconclusive otherwise.
 */
import type { Interval } from './t-interval.js';

/**
 * The rule's parameters, named once: every interval the verdicts read (and the report shows) is
 * at `level`; fewer than `minSeeds` seeds per arm make a claim inconclusive; a size the paper
 * states ("a little") counts up to `magnitudeFactor` times the paper's own relative change
 * (stats/magnitude.ts). The report prints the rule's description from these values.
 */
export interface VerdictRule {
  /** Confidence level of every interval (0.95). */
  readonly level: number;
  /** Seeds per arm a verdict needs. */
  readonly minSeeds: number;
  /** How many times the paper's relative size a "a little"-style claim allows. */
  readonly magnitudeFactor: number;
}

export const VERDICT_RULE: VerdictRule = Object.freeze({
  level: 0.95,
  minSeeds: 3,
  magnitudeFactor: 2,
});

/** A confidence level as the report writes it: 0.95 -> "95%". */
export const levelText = (level: number) => `${Math.round(level * 1000) / 10}%`;

export type Verdict = 'reproduced' | 'not reproduced' | 'inconclusive';

export interface EvidenceInterval extends Pick<Interval, 'mean' | 'lo' | 'hi'> {
  /** What the interval is over, for the reason ("topics", "seeds"). */
  label: string;
}

export interface ClaimEvidence {
  direction: 'up' | 'down';
  /** Intervals of the difference; empty when not measured. */
  intervals: readonly EvidenceInterval[];
  /** Seeds in the arm with fewer. */
  seeds: number;
}

export interface ClaimVerdict {
  verdict: Verdict;
  reason: string;
}

const f = (x: number) => x.toFixed(2);

export function claimVerdict(
  e: ClaimEvidence,
  minSeeds = VERDICT_RULE.minSeeds,
  level = VERDICT_RULE.level,
): ClaimVerdict {
  if (e.intervals.length === 0) return { verdict: 'inconclusive', reason: 'not measured in this run' };
  if (e.seeds < minSeeds)
    return { verdict: 'inconclusive', reason: `${e.seeds} seed(s); a verdict needs at least ${minSeeds}` };
  const undefinedOnes = e.intervals.filter((i) => !Number.isFinite(i.lo) || !Number.isFinite(i.hi));
  if (undefinedOnes.length)
    return {
      verdict: 'inconclusive',
      reason: `interval over ${undefinedOnes.map((i) => i.label).join(', ')} undefined`,
    };
  const side = (i: EvidenceInterval): 'claimed' | 'opposite' | 'zero' => {
    const [claimed, opposite] = e.direction === 'up' ? [i.lo > 0, i.hi < 0] : [i.hi < 0, i.lo > 0];
    return claimed ? 'claimed' : opposite ? 'opposite' : 'zero';
  };
  const sides = e.intervals.map(side);
  const pc = levelText(level);
  const ci = e.intervals.map((i) => `${i.label} [${f(i.lo)}, ${f(i.hi)}]`).join(', ');
  if (sides.every((s) => s === 'claimed'))
    return { verdict: 'reproduced', reason: `${pc} CIs over ${ci} all exclude 0 on the claimed side` };
  if (sides.every((s) => s === 'opposite'))
    return { verdict: 'not reproduced', reason: `${pc} CIs over ${ci} all exclude 0 on the opposite side` };
  const zero = e.intervals.filter((_, k) => sides[k] === 'zero').map((i) => i.label);
  return {
    verdict: 'inconclusive',
    reason: zero.length
      ? `${pc} CI over ${zero.join(' and ')} contains 0 (${ci})`
      : `the intervals disagree (${ci})`,
  };
}

export function combineVerdicts(verdicts: readonly Verdict[]): Verdict {
  if (verdicts.length === 0) return 'inconclusive';
  if (verdicts.some((v) => v === 'not reproduced')) return 'not reproduced';
  if (verdicts.every((v) => v === 'reproduced')) return 'reproduced';
  return 'inconclusive';
}
