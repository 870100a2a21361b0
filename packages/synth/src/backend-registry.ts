/**
 * The synthesis backends, by the names of @dv/core's `SynthesisBackendName` (the one list):
 * what each needs, whether it may run requests concurrently, and its factory. `createSynthesisRun`
 * looks a backend up here; the CLI takes its choices and help text from here.
 *
 * - `offline`: the deterministic reverser (no network), one seed at a time.
 * - `openai`: any OpenAI-compatible chat endpoint (`baseURLs`, key from `apiKeyEnv`); the only
 *   backend with requests in flight concurrently (`concurrency`).
 * - `batch-export`: writes the request lines in the OpenAI Batch format and runs nothing.
 * - `batch-import`: answers from Batch API / vLLM run_batch output files, matched by custom_id.
 */
import type { SynthesisBackendName, SynthesisConfig } from '@dv/core';
import { createOfflineReverser } from './backends/offline-reverser.js';
import type { SynthesisBackend } from './backends/synthesis-backend.js';
import { createBatchResultsBackend } from './batch-files.js';

/** What a `batch-import` run reports about the output files it read. */
export interface BatchImportReport {
  /** Output lines read. */
  readonly lines: number;
  /** Lines that answered a seed of this run. */
  readonly matched: number;
  /** custom_ids that match no request of these seeds and settings. */
  unmatchedIds(): string[];
}

/** What a backend factory gets: the validated config and, when the backend needs one, the endpoint client. */
export interface BackendContext {
  config: SynthesisConfig;
  /** The OpenAI-compatible chat backend over `config.baseURLs` (made once, shared with an llm judge). */
  chat: () => SynthesisBackend;
  /** batch-import: the output files. */
  batchOutputs: readonly string[];
}

export interface BackendEntry {
  /** One line for help texts. */
  readonly description: string;
  /** Needs an OpenAI-compatible endpoint (`baseURLs`). */
  readonly needsEndpoint: boolean;
  /** Requests may be in flight concurrently (`concurrency`); the others run one seed at a time. */
  readonly concurrent: boolean;
  /** `run`: answers seeds; `export`: writes the batch input file instead. */
  readonly mode: 'run' | 'export';
  /** The backend (absent for `export`), and for batch-import its report on the output files. */
  readonly create?: (
    ctx: BackendContext,
  ) => Promise<{ backend: SynthesisBackend; batch?: BatchImportReport }>;
}

export const synthesisBackends = Object.freeze({
  offline: {
    description: 'deterministic reverser, no network',
    needsEndpoint: false,
    concurrent: false,
    mode: 'run',
    create: async ({ config }) => ({ backend: createOfflineReverser({ model: config.model }) }),
  },
  openai: {
    description:
      'any OpenAI-compatible server; API key from the environment (apiKeyEnv, default OPENAI_API_KEY)',
    needsEndpoint: true,
    concurrent: true,
    mode: 'run',
    create: async ({ chat }) => ({ backend: chat() }),
  },
  'batch-export': {
    description: 'writes batch-input.jsonl in the OpenAI Batch format',
    needsEndpoint: false,
    concurrent: false,
    mode: 'export',
  },
  'batch-import': {
    description: 'reads Batch API output files, matched by custom_id',
    needsEndpoint: false,
    concurrent: false,
    mode: 'run',
    create: async ({ config, batchOutputs }) => {
      const backend = await createBatchResultsBackend([...batchOutputs], config.model);
      return { backend, batch: backend };
    },
  },
} as const satisfies Record<SynthesisBackendName, BackendEntry>);

/** The backend names, in registry order (for option choices). */
export const synthesisBackendNames = Object.keys(synthesisBackends) as SynthesisBackendName[];
