/**
 * The synthesis concern: backend, model, endpoints, sampling, verification. `SynthesisConfig` is
 * the slice of @dv/synth's `createSynthesisRun` (inside `SynthesisRunConfig`) and, with the
 * reproduction's dev-pair count, the run config's `synthesis` slice (run-config.ts).
 */
import { z } from 'zod';

/**
 * The synthesis backends, by name: the one list (@dv/synth's `synthesisBackends` registry maps
 * each to its factory and says what it needs; the CLI's choices and help come from it).
 */
export const SynthesisBackendName = z.enum(['offline', 'openai', 'batch-export', 'batch-import']);
export type SynthesisBackendName = z.infer<typeof SynthesisBackendName>;

/** The verification judges, by name (@dv/synth's `synthesisJudges` registry holds their thresholds). */
export const SynthesisJudgeName = z.enum(['lexical', 'lexical-text', 'lexical-metadata', 'llm']);
export type SynthesisJudgeName = z.infer<typeof SynthesisJudgeName>;

export const SynthesisConfig = z.object({
  backend: SynthesisBackendName.default('offline').describe(
    'Where complements come from: the offline reverser, an OpenAI-compatible endpoint, or Batch API files (export / import)',
  ),
  model: z.string().min(1).describe('Model name sent to the endpoint (offline: `offline-reverser`)'),
  baseURLs: z
    .array(z.string().url())
    .default([])
    .describe('OpenAI-compatible endpoints, used round-robin; the API key comes from the environment'),
  apiKeyEnv: z.string().default('OPENAI_API_KEY').describe('Environment variable holding the API key'),
  temperature: z.number().min(0).max(2).default(0.7).describe('Sampling temperature of the synthesis model'),
  maxTokens: z.number().int().positive().default(512).describe('Completion tokens per request at most'),
  concurrency: z.number().int().positive().default(16).describe('Requests in flight at once'),
  requestTimeoutMs: z.number().int().positive().default(120_000).describe('Timeout of one request (ms)'),
  maxRetries: z.number().int().nonnegative().default(6).describe('Retries of a failed request (backoff)'),
  templateId: z.string().default('polarity-reversal').describe('Prompt template (@dv/synth templates)'),
  verify: z
    .boolean()
    .default(true)
    .describe('Verify each complement with the judge (false: accept what passes the guardrails)'),
  costCapUsd: z.number().positive().optional().describe('Stop when the usage ledger reaches this cost (USD)'),
  pricing: z
    .object({
      inputPerMTokens: z.number().nonnegative().describe('USD per million prompt tokens'),
      outputPerMTokens: z.number().nonnegative().describe('USD per million completion tokens'),
    })
    .optional()
    .describe("Prices for the usage ledger's cost and the cost cap (absent: cost is not tracked)"),
  judge: SynthesisJudgeName.optional().describe(
    'Judge when `verify` is on: lexical (offline lexical/attribute check, the default), lexical-text (ignores metadata), lexical-metadata (reads WordNet metadata too) or llm (through the same endpoints)',
  ),
  judgeThreshold: z
    .number()
    .optional()
    .describe("Pass threshold of the judge; absent: the judge's own default (@dv/synth synthesisJudges)"),
});
export type SynthesisConfig = z.infer<typeof SynthesisConfig>;
export type SynthesisConfigInput = z.input<typeof SynthesisConfig>;

/**
 * The judge a run uses, or `none` when verification is off: `verify` off wins, an absent judge is
 * `lexical` (the one place this default is applied for the reproduction's stages).
 */
export function synthesisJudgeOf(s: Pick<SynthesisConfig, 'verify' | 'judge'>): SynthesisJudgeName | 'none' {
  return s.verify ? (s.judge ?? 'lexical') : 'none';
}
