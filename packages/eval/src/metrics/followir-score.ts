/**
 * FollowIR's per-dataset "Score" and its averages (Weller et al. 2024, arXiv 2403.15246; mteb
 * FollowIR tasks): the og run against the og qrels, MAP@1000 for Robust04 and Core17 and
 * nDCG@5 for News21; the FollowIR average is the plain mean of the three. p-MRR is the
 * instruction-sensitivity companion (see p-mrr.ts).
 */
export const followIrScoreMeasures = Object.freeze({
  Robust04InstructionRetrieval: 'map_cut.1000',
  News21InstructionRetrieval: 'ndcg_cut.5',
  Core17InstructionRetrieval: 'map_cut.1000',
} as const satisfies Record<string, string>);

export type FollowIrDatasetName = keyof typeof followIrScoreMeasures;

/** The Score measure of a FollowIR dataset; other datasets (e.g. the mini world) use `fallback`. */
export function followIrScoreMeasure(dataset: string, fallback = 'ndcg_cut.5'): string {
  return (followIrScoreMeasures as Record<string, string>)[dataset] ?? fallback;
}

/** Plain mean of per-dataset values (FollowIR's average; NaN for none). */
export function plainMean(values: readonly number[]): number {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : Number.NaN;
}
