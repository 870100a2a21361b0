/**
 * Learning-rate schedules as a pure function of the step (0-based, the step about to run):
 *
 * - `wsd` (warmup-stable-decay, as Arctic-Embed trains): linear warmup from peak/W to the peak
 *   over W = round(warmupRatio * total) steps, constant, then linear decay to 0 over the last
 *   D = round(decayRatio * total) steps: lr = peak * (total - step) / D.
 * - `linear`: warmup, then linear decay to 0 over all remaining steps.
 * - `constant`: warmup, then the peak.
 */
import type { ScheduleConfig } from '@dv/core';

export function learningRate(
  step: number,
  totalSteps: number,
  peak: number,
  schedule: ScheduleConfig,
): number {
  if (!Number.isInteger(step) || step < 0 || step >= totalSteps)
    throw new Error(`step ${step} outside [0, ${totalSteps})`);
  const warmup = Math.round(schedule.warmupRatio * totalSteps);
  if (step < warmup) return (peak * (step + 1)) / warmup;
  const decay =
    schedule.name === 'wsd'
      ? Math.round(schedule.decayRatio * totalSteps)
      : schedule.name === 'linear'
        ? totalSteps - warmup
        : 0;
  const decayStart = totalSteps - decay;
  if (decay > 0 && step >= decayStart) return (peak * (totalSteps - step)) / decay;
  return peak;
}
