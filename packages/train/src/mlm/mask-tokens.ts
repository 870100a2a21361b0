/**
 * BERT's masking for masked-language-model pretraining (Devlin et al. 2019, arXiv 1810.04805,
 * section 3.1 and appendix A.1), as a pure function of the token ids and an RNG:
 * each real (attention mask 1), non-special token is chosen with probability `maskProbability`
 * (15%); a chosen token becomes [MASK] with probability `maskReplace` (80%), a uniformly random
 * non-special token with probability `randomReplace` (10%), and stays otherwise (10%). Labels
 * are the original ids at chosen positions and -100 elsewhere (ignored, as in transformers'
 * DataCollatorForLanguageModeling). A sequence where nothing was chosen gets one chosen
 * position (its first eligible token), so every batch has something to predict.
 */
import type { Rng } from '@dv/core';

export interface MaskTokensOptions {
  maskProbability: number;
  maskReplace: number;
  randomReplace: number;
  maskId: number;
  vocabSize: number;
  /** Ids never chosen ([CLS], [SEP], [PAD], ...). */
  specialIds: ReadonlySet<number>;
}

export interface MaskedBatch {
  inputIds: number[][];
  /** Original id at chosen positions, -100 elsewhere. */
  labels: number[][];
}

export const ignoredLabel = -100;

export function maskTokens(
  inputIds: readonly (readonly number[])[],
  attentionMask: readonly (readonly number[])[],
  options: MaskTokensOptions,
  rng: Rng,
): MaskedBatch {
  const randomPool: number[] = [];
  for (let id = 0; id < options.vocabSize; id++) if (!options.specialIds.has(id)) randomPool.push(id);
  const out: MaskedBatch = { inputIds: [], labels: [] };
  inputIds.forEach((row, r) => {
    const ids = [...row];
    const labels = ids.map(() => ignoredLabel);
    const eligible = ids
      .map((id, t) => (attentionMask[r]![t] === 1 && !options.specialIds.has(id) ? t : -1))
      .filter((t) => t >= 0);
    const chosen = eligible.filter(() => rng.float() < options.maskProbability);
    if (chosen.length === 0 && eligible.length > 0) chosen.push(eligible[0]!);
    for (const t of chosen) {
      labels[t] = ids[t]!;
      const u = rng.float();
      if (u < options.maskReplace) ids[t] = options.maskId;
      else if (u < options.maskReplace + options.randomReplace) ids[t] = rng.choice(randomPool);
    }
    out.inputIds.push(ids);
    out.labels.push(labels);
  });
  return out;
}
