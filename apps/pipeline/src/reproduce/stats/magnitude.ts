/**
 * Magnitude checks (issue 26): a finding the paper states with a size ("costs *a little* Score")
 * is checked against a band of the paper's own relative change, beside the sign check.
 *
 *   relative change   r = (a - b) / mean(b), in %; each interval of a - b is scaled by the same
 *                     mean(b) (the reference arm's mean is treated as fixed: its own spread is
 *                     what the intervals of a - b already carry)
 *   band              [0, factor x the paper's relative change] on the claimed side: "a little"
 *                     = at most `factor` times the paper's relative size (factor 2 unless stated)
 *   within            every interval of r lies inside the band
 *   beyond            every interval lies past the band's far end (a larger effect than claimed)
 *   undecided         otherwise (an interval straddles a band edge or is undefined)
 */
import type { EvidenceInterval } from './verdict.js';

export interface MagnitudeClaim {
  /** The paper's relative change of the claim's difference, in % (negative for a cost). */
  paperRelative: number;
  /** How many times the paper's relative size still counts as the same claim. */
  factor: number;
  /** The paper's wording the band stands for ("a little"). */
  wording: string;
}

export type MagnitudeResult = 'within' | 'beyond' | 'undecided';

export interface MagnitudeCheck {
  result: MagnitudeResult;
  /** The band of r, in %: [lo, hi]. */
  band: [number, number];
  /** The intervals of r, in %. */
  relative: EvidenceInterval[];
  reason: string;
}

const f = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(1)}%`;

export function magnitudeCheck(
  intervals: readonly EvidenceInterval[],
  referenceMean: number,
  claim: MagnitudeClaim,
): MagnitudeCheck {
  const edge = claim.factor * claim.paperRelative;
  const band: [number, number] = edge < 0 ? [edge, 0] : [0, edge];
  const scale = (v: number) => (100 * v) / Math.abs(referenceMean);
  const relative = intervals.map((i) => ({
    label: i.label,
    mean: scale(i.mean),
    lo: scale(i.lo),
    hi: scale(i.hi),
  }));
  const shown = relative.map((r) => `${r.label} [${f(r.lo)}, ${f(r.hi)}]`).join(', ');
  const bandText = `[${f(band[0])}, ${f(band[1])}] (${claim.wording}: up to ${claim.factor}x the paper's ${f(claim.paperRelative)})`;
  if (!Number.isFinite(referenceMean) || referenceMean === 0 || relative.length === 0)
    return { result: 'undecided', band, relative, reason: 'no reference mean to scale by' };
  const defined = relative.every((r) => Number.isFinite(r.lo) && Number.isFinite(r.hi));
  const inside = (r: EvidenceInterval) => r.lo >= band[0] && r.hi <= band[1];
  const past = (r: EvidenceInterval) => (edge < 0 ? r.hi < band[0] : r.lo > band[1]);
  if (defined && relative.every(inside))
    return { result: 'within', band, relative, reason: `relative change ${shown} within ${bandText}` };
  if (defined && relative.every(past)) {
    const times = Math.abs(relative[0]!.mean / claim.paperRelative);
    return {
      result: 'beyond',
      band,
      relative,
      reason: `relative change ${shown} is past ${bandText}: ${times.toFixed(1)}x the paper's size`,
    };
  }
  return {
    result: 'undecided',
    band,
    relative,
    reason: `relative change ${shown} not decided against ${bandText}`,
  };
}
