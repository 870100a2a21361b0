/**
 * The settings of `dv synth batch` and its flag table: the synthesis slice it sends (@dv/core
 * `SynthesisConfig`) and the Batch API job's own (file limits, poll interval, seed limit).
 */
import { SynthesisConfig, SynthesisRunConfig } from '@dv/core';
import { OPENAI_BATCH_LIMITS } from '@dv/synth';
import { z } from 'zod';
import { schemaFlags } from '../cli-kit.js';

export const BatchJobSettings = z.object({
  synthesis: SynthesisConfig,
  maxRequests: z
    .number()
    .int()
    .positive()
    .default(OPENAI_BATCH_LIMITS.maxRequests)
    .describe('requests per input file'),
  maxBytes: z
    .number()
    .int()
    .positive()
    .default(OPENAI_BATCH_LIMITS.maxBytes)
    .describe('bytes per input file'),
  pollSeconds: z.number().positive().default(30).describe('seconds between status polls'),
  limit: SynthesisRunConfig.shape.limit.describe('at most N seeds'),
});

export const batchJobFlags = schemaFlags(BatchJobSettings, {
  model: { path: 'synthesis.model', valueName: 'NAME', help: 'model name in each request' },
  'api-key-env': {
    path: 'synthesis.apiKeyEnv',
    valueName: 'NAME',
    help: 'environment variable with the API key',
  },
  template: { path: 'synthesis.templateId', valueName: 'ID', help: 'prompt template id' },
  temperature: { path: 'synthesis.temperature', valueName: 'T', help: 'sampling temperature' },
  'max-tokens': { path: 'synthesis.maxTokens', help: 'max completion tokens' },
  'max-requests-per-file': 'maxRequests',
  'max-bytes-per-file': 'maxBytes',
  'poll-interval': { path: 'pollSeconds', valueName: 'S' },
  limit: 'limit',
});
