/**
 * The flags of `dv synth`, one line each: a flag -> its setting in @dv/core's
 * `SynthesisRunConfig` (help defaults: the mini preset's), the settings that its other options
 * set (for zod's messages), and the flag of a synthesis config field (`SynthesisConfigError`).
 */
import { SynthesisRunConfig } from '@dv/core';
import { synthesisBackendNames, synthesisConfigFromPreset } from '@dv/synth';
import { flagOfPath, schemaFlags } from '../cli-kit.js';

/** The flags of `dv synth` over SynthesisRunConfig (help defaults: the mini preset's). */
export const synthFlags = schemaFlags(
  SynthesisRunConfig,
  {
    backend: { path: 'synthesis.backend', valueName: 'NAME', help: synthesisBackendNames.join(' | ') },
    model: { path: 'synthesis.model', valueName: 'NAME', help: 'model name sent to the endpoint' },
    'api-key-env': {
      path: 'synthesis.apiKeyEnv',
      valueName: 'NAME',
      help: 'environment variable holding the API key',
    },
    temperature: { path: 'synthesis.temperature', valueName: 'T', help: 'sampling temperature' },
    'max-tokens': { path: 'synthesis.maxTokens', help: 'max completion tokens' },
    concurrency: { path: 'synthesis.concurrency', help: 'requests in flight (16 for openai under mini)' },
    'timeout-ms': { path: 'synthesis.requestTimeoutMs', valueName: 'MS', help: 'per-request timeout' },
    'max-retries': { path: 'synthesis.maxRetries', help: 'retries on 429/5xx/timeouts' },
    template: { path: 'synthesis.templateId', valueName: 'ID', help: 'prompt template id' },
    'judge-threshold': { path: 'synthesis.judgeThreshold', help: 'pass threshold of the judge' },
    'cost-cap': {
      path: 'synthesis.costCapUsd',
      valueName: 'USD',
      help: 'stop dispatching once this many USD are spent',
    },
    'price-in': {
      path: 'synthesis.pricing.inputPerMTokens',
      valueName: 'USD',
      help: 'USD per million prompt tokens',
    },
    'price-out': {
      path: 'synthesis.pricing.outputPerMTokens',
      valueName: 'USD',
      help: 'USD per million completion tokens',
    },
    limit: { path: 'limit', help: 'process at most N seeds (of the shard)' },
    'retry-failed': { path: 'retryFailed', help: 'redo seeds whose record is "failed"' },
    'batch-output': {
      path: 'batchOutputs',
      valueName: 'FILE',
      help: 'batch-import: output file(s) of the Batch API / vLLM run_batch',
    },
  },
  { defaults: { synthesis: synthesisConfigFromPreset('mini') } },
);
/** Settings that the command's other options set, for zod's messages. */
export const OTHER_FLAGS = {
  'synthesis.baseURLs': '--base-url',
  'synthesis.judge': '--judge',
  'synthesis.verify': '--judge',
  shard: '--shard',
  seedsPath: '--seeds',
  outDir: '--out',
};
const other = OTHER_FLAGS as Record<string, string>;
export const flagOf = (field: string) =>
  flagOfPath(synthFlags, ['synthesis', field]) ??
  flagOfPath(synthFlags, [field]) ??
  other[`synthesis.${field}`] ??
  other[field] ??
  field;
