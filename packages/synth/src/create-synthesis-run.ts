/**
 * The library entry point of a synthesis run: `createSynthesisRun(config, io)` takes the
 * validated `SynthesisRunConfig` (@dv/core; the `synthesis` slice of a run config plus the
 * seed file, output folder, shard and limit) and sets the run up, refusing a config that
 * cannot run before anything is sent (`SynthesisConfigError`, naming the field):
 *
 * - the template from the template registry;
 * - the backend from `synthesisBackends` (one concurrent request stream only for a backend
 *   that allows it: `openai`; the others go one seed at a time);
 * - the judge from `synthesisJudges` (`verify` off: none; thresholds default per judge);
 * - one OpenAI-compatible chat client, shared by the `openai` backend and an `llm` judge;
 * - the usage ledger (pricing, cost cap) and the API key value to redact from outputs.
 *
 * `run()` then exports the batch input (`batch-export`) or runs `runSynthesis` and returns
 * its summary, with the batch-import report where there is one.
 */
import type { ProgressMode, SynthesisRunConfig } from '@dv/core';
import { type BackendEntry, type BatchImportReport, synthesisBackends } from './backend-registry.js';
import { createOpenAIChatBackend } from './backends/openai-chat.js';
import type { SynthesisBackend } from './backends/synthesis-backend.js';
import { exportBatch } from './batch-files.js';
import type { RunSummary } from './finalize-run.js';
import { runSynthesis } from './run-synthesis.js';
import { SynthesisConfigError } from './synthesis-config-error.js';
import type { SynthesisEvent } from './synthesis-event.js';
import { getTemplate } from './template-registry.js';
import type { PromptTemplate } from './templates/prompt-template.js';
import { UsageLedger } from './usage-ledger.js';
import type { Judge } from './verify/judge.js';
import { createJudge } from './verify/judge-registry.js';

export interface SynthesisRunIo {
  /** Typed events while the run is set up and runs. */
  onEvent?: (e: SynthesisEvent) => void;
  /** Where the API key is read (default: process.env). */
  env?: NodeJS.ProcessEnv;
  /** Where the progress line goes (default: stderr). */
  progressStream?: NodeJS.WritableStream;
  /** How the progress line is drawn (default: the terminal's; `silent` for runs inside a pipeline stage). */
  progressMode?: ProgressMode;
  /** Recorded in the manifest. */
  command?: string[];
  signal?: AbortSignal;
}

export type SynthesisRunResult =
  | { kind: 'exported'; files: string[]; requests: number; skipped: number }
  | { kind: 'synthesized'; summary: RunSummary; batch?: BatchImportReport };

export interface SynthesisRun {
  readonly config: SynthesisRunConfig;
  readonly template: PromptTemplate;
  /** The backend that answers (absent for `batch-export`, which only writes the requests). */
  readonly backend?: SynthesisBackend;
  readonly judge?: Judge;
  run(): Promise<SynthesisRunResult>;
}

function templateOf(id: string): PromptTemplate {
  try {
    return getTemplate(id);
  } catch (err) {
    throw new SynthesisConfigError('templateId', (err as Error).message, true);
  }
}

export async function createSynthesisRun(
  config: SynthesisRunConfig,
  io: SynthesisRunIo = {},
): Promise<SynthesisRun> {
  const s = config.synthesis;
  const template = templateOf(s.templateId);
  const settings = { template, model: s.model, temperature: s.temperature, maxTokens: s.maxTokens };
  const scope = {
    seedsPath: config.seedsPath,
    outDir: config.outDir,
    ...(config.shard ? { shard: config.shard } : {}),
    ...(config.limit !== undefined ? { limit: config.limit } : {}),
    retryFailed: config.retryFailed,
  };
  const entry: BackendEntry = synthesisBackends[s.backend];
  if (entry.mode === 'export')
    return {
      config,
      template,
      run: async () => ({ kind: 'exported', ...(await exportBatch({ ...scope, ...settings })) }),
    };

  const env = io.env ?? process.env;
  const judgeName = s.verify ? (s.judge ?? 'lexical') : undefined;
  if ((entry.needsEndpoint || judgeName === 'llm') && s.baseURLs.length === 0)
    throw new SynthesisConfigError('baseURLs', 'is required for the openai backend and the llm judge');
  if (s.backend === 'batch-import' && config.batchOutputs.length === 0)
    throw new SynthesisConfigError('batchOutputs', 'is required for batch-import');
  const ledger = new UsageLedger(s.pricing, s.costCapUsd);
  let chat: SynthesisBackend | undefined;
  const chatBackend = () =>
    (chat ??= createOpenAIChatBackend({
      baseURLs: s.baseURLs,
      model: s.model,
      apiKeyEnv: s.apiKeyEnv,
      env,
      temperature: s.temperature,
      maxTokens: s.maxTokens,
      concurrency: s.concurrency,
      requestTimeoutMs: s.requestTimeoutMs,
      maxRetries: s.maxRetries,
      ledger,
      onRetry: (i) => io.onEvent?.({ type: 'retry', ...i }),
    }));
  const { backend, batch } = await entry.create!({
    config: s,
    chat: chatBackend,
    batchOutputs: config.batchOutputs,
  });
  const judge = judgeName ? createJudge(judgeName, s.judgeThreshold, chatBackend) : undefined;
  // the key's value is redacted from every record, whichever variable holds it
  const apiKey = env[s.apiKeyEnv];
  return {
    config,
    template,
    backend,
    ...(judge ? { judge } : {}),
    async run() {
      io.onEvent?.({
        type: 'start',
        backend: backend.name,
        model: backend.model,
        template: { id: template.id, version: template.version },
        judge: judge?.name ?? null,
        shard: config.shard ?? null,
      });
      const summary = await runSynthesis({
        ...scope,
        ...settings,
        backend,
        ...(judge ? { judge } : {}),
        concurrency: entry.concurrent ? s.concurrency : 1,
        ledger,
        ...(apiKey ? { secrets: [apiKey] } : {}),
        ...(io.progressStream ? { progressStream: io.progressStream } : {}),
        ...(io.progressMode ? { progressMode: io.progressMode } : {}),
        ...(io.signal ? { signal: io.signal } : {}),
        formatter: config.formatter,
        config: s,
        ...(io.command ? { command: io.command } : {}),
      });
      return { kind: 'synthesized', summary, ...(batch ? { batch } : {}) };
    },
  };
}
