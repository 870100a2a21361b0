/**
 * FollowIR's averages (Weller et al. 2024, arXiv 2403.15246): the FollowIR average is the plain
 * mean of the three per-dataset values. Each dataset's Score measure (MAP@1000 Robust04 and
 * Core17, nDCG@5 News21) is pinned in its task entry (tasks/task-registry.ts).
 */
/** Plain mean of per-dataset values (FollowIR's average; NaN for none). */
export function plainMean(values: readonly number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : Number.NaN;
}
