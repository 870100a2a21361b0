/**
 * The synthesis config input of a run: a preset's `synthesis` slice with `overrides` on top,
 * and the defaults that depend on the combination (the one place they are decided):
 *
 * - the offline backend without a model name records `offline-reverser` (the paper preset's
 *   model names an LLM the reverser is not);
 * - the mini preset's concurrency (1) is for the offline reverser: an endpoint (`openai`) gets
 *   16 requests in flight unless `concurrency` is given;
 * - verification on (the preset's `verify`, or `verify: true`) without a judge uses `lexical`:
 *   the preset's judge and dev-pair count are its reproduction's (the mini world's documents
 *   carry WordNet metadata for `lexical-metadata`; seeds given to `dv synth` may not), so they
 *   are not taken from the preset.
 *
 * The result is unvalidated input: parse it (inside a `SynthesisRunConfig`) once.
 */
import { type PresetName, presets, type SynthesisConfig } from '@dv/core';
import type { z } from 'zod';

type SynthesisConfigInput = z.input<typeof SynthesisConfig>;

/** The mini preset's concurrency replaced for an endpoint (see above). */
export const ENDPOINT_CONCURRENCY_UNDER_MINI = 16;

export function synthesisConfigFromPreset(
  preset: PresetName,
  overrides: Partial<SynthesisConfigInput> = {},
): SynthesisConfigInput {
  const {
    judge: _judge,
    judgeThreshold: _threshold,
    devPairs: _devPairs,
    ...base
  } = presets[preset].config.synthesis;
  const merged: SynthesisConfigInput = { ...base, ...overrides };
  const backend = merged.backend ?? 'offline';
  if (overrides.model === undefined && backend === 'offline') merged.model = 'offline-reverser';
  if (overrides.concurrency === undefined && backend === 'openai' && preset === 'mini')
    merged.concurrency = ENDPOINT_CONCURRENCY_UNDER_MINI;
  if (merged.verify === false) delete merged.judge;
  else if (merged.judge === undefined) merged.judge = 'lexical';
  return merged;
}
