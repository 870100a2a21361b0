/**
 * The synthesis run engine: seeds in, one record per seed out, resumable and shardable.
 *
 * Per seed: prepare the task (content key) -> skip if the journal already holds its key (the
 * cache; with `retryFailed`, `failed` records are redone) -> backend -> parse (an unparsable
 * answer from a stochastic backend is asked again, up to `parseRetries`) -> guardrails ->
 * verification (when a judge is given) -> one `SynthesisRecord` appended to `log.jsonl`
 * (append-only, one write per record). A record holds what a remote server sent, which may echo
 * the key: its strings are redacted of the configured key *values* (never by word shape, so
 * answers are otherwise kept byte for byte). A `kill -9` loses at most the records
 * in flight; the rerun redoes exactly those, so the outputs hold no duplicate and no lost seed.
 *
 * The cost cap and an endpoint that refuses the key (401/403) stop dispatching cleanly: nothing
 * is recorded for the seeds not done, so a rerun picks them up.
 *
 * The steps, one file each under run/: `scanSeeds` (validate the seed file, pick the shard),
 * `readJournal` (the cache), `verdictIsCurrent` (decide a cached answer again when its
 * decision key is stale: other judge settings, guardrail options or deciding code,
 * run/decision-key.ts), `synthesizeSeed` (backend -> `decideAnswer`: parse -> guardrails ->
 * `judgeAnswer`), all recording through `RunState` (tallies, the stop rule, redaction). This
 * file is the dispatch loop.
 *
 * At the end (or when the cost cap stops dispatching) `finalizeRun` writes, atomically:
 * `records.jsonl` (one record per seed, seed order), `failures.jsonl` (every record that is not
 * accepted, with its reason), `original.jsonl` and `complement.jsonl` (the two views),
 * `summary.json` and `manifest.json`.
 */
import { join } from 'node:path';
import {
  createProgress,
  type FormatterSettings,
  InFlight,
  JsonlAppender,
  type ProgressMode,
  readJsonl,
  SeedExample,
  type ShardSpec,
  type SynthesisRecord,
  secretValuesFromEnv,
} from '@dv/core';
import type { SynthesisBackend } from './backends/synthesis-backend.js';
import { finalizeRun, type RunSummary } from './finalize-run.js';
import type { GuardrailOptions } from './guardrails.js';

import { parseAnswer } from './parse-answer.js';
import { decideAnswer } from './run/decide-answer.js';
import { decisionKey } from './run/decision-key.js';
import { judgeAnswer } from './run/judge-answer.js';
import { LOG_FILE, readJournal } from './run/read-journal.js';
import { NO_USAGE, RunState } from './run/run-state.js';
import { scanSeeds } from './run/scan-seeds.js';
import { synthesizeSeed } from './run/synthesize-seed.js';
import { verdictIsCurrent } from './run/verdict-is-current.js';
import { prepareTask, type TaskSettings } from './synthesis-task.js';
import type { UsageLedger } from './usage-ledger.js';
import type { Judge } from './verify/judge.js';

export { LOG_FILE, readJournal } from './run/read-journal.js';
export { TaskPending } from './run/task-pending.js';

/** Shard `index` of `count` (0-based); the type of @dv/core's `ShardSpec`. */
export type Shard = ShardSpec;

export interface SynthesisRunOptions extends TaskSettings {
  seedsPath: string;
  outDir: string;
  backend: SynthesisBackend;
  judge?: Judge;
  concurrency?: number;
  shard?: Shard;
  retryFailed?: boolean;
  parseRetries?: number;
  guardrails?: GuardrailOptions;
  /** Process at most this many seeds of the shard (in file order). */
  limit?: number;
  ledger?: UsageLedger;
  progressMode?: ProgressMode;
  progressStream?: NodeJS.WritableStream;
  formatter?: FormatterSettings;
  /** Extra secret values to redact (e.g. an API key read from a variable with an unusual name). */
  secrets?: string[];
  /** Config recorded in the manifest. */
  config?: unknown;
  command?: string[];
  signal?: AbortSignal;
  /**
   * The decision key's code part instead of the code digest of `DECISION_CODE` taken now: for
   * tests and tools that check what changed deciding code does to a journal.
   */
  decisionCode?: Readonly<Record<string, string>>;
}

export async function runSynthesis(o: SynthesisRunOptions): Promise<RunSummary> {
  const started = performance.now();
  const ids = new Set(await scanSeeds(o.seedsPath, o.shard, o.limit));
  const logPath = join(o.outDir, LOG_FILE);
  const journal = await readJournal(logPath);
  const currentDecision = decisionKey({ judge: o.judge, guardrails: o.guardrails }, o.decisionCode);
  // No schema here: RunState.write validates each record once and keeps the parsed record.
  const appender = new JsonlAppender<typeof SynthesisRecord>(logPath, undefined, { groupPerTick: true });
  const progress = createProgress({
    label: 'synth',
    total: ids.size,
    unit: 'seeds',
    ...(o.progressMode ? { mode: o.progressMode } : {}),
    ...(o.progressStream ? { stream: o.progressStream } : {}),
  });
  const state = new RunState({
    backend: o.backend,
    appender,
    journal,
    secrets: [...new Set([...(o.secrets ?? []), ...secretValuesFromEnv()])].sort(
      (a, b) => b.length - a.length,
    ),
    progress,
    ...(o.ledger ? { ledger: o.ledger } : {}),
    decisionKey: currentDecision,
  });
  const step = { ...o, parseRetries: o.parseRetries ?? 2 };
  const concurrency = Math.max(1, o.concurrency ?? 1);
  const running = new InFlight();
  // Each seed's content key, computed once at submit and reused by finalizeRun's lookup (a
  // second render + hash per seed otherwise); seeds the loop did not reach are keyed there.
  const keys = new Map<string, string>();
  const dispatch = async (work: Promise<void>) => {
    running.add(work);
    await running.whenBelow(concurrency);
  };
  try {
    for await (const seed of readJsonl(o.seedsPath, SeedExample)) {
      if (state.stoppedBy || o.signal?.aborted) break;
      if (!ids.has(seed.id)) continue;
      const prepared = prepareTask(seed, o);
      keys.set(seed.id, prepared.ok ? prepared.task.key : prepared.key);
      const prev = journal.get(prepared.ok ? prepared.task.key : prepared.key);
      if (prev && prepared.ok && !verdictIsCurrent(prev, o.judge, currentDecision)) {
        const {
          createdAt: _c,
          status: _s,
          newInstruction,
          reason: _r,
          verification: _v,
          decisionKey: _k,
          ...common
        } = prev;
        if (prev.raw !== undefined) {
          // the answer is cached, its decision is not: decide it again (parse, guardrails, verdict)
          state.counts.reverified++;
          await dispatch(decideAnswer(state, step, prepared.task, common, parseAnswer(prev.raw)));
          continue;
        }
        if (newInstruction) {
          // no raw answer kept: judge the instruction again under the current settings
          state.counts.reverified++;
          await dispatch(judgeAnswer(state, o.judge, prepared.task, common, newInstruction, o.signal));
          continue;
        }
      }
      if (prev && !(o.retryFailed && prev.status === 'failed')) {
        state.cached(prev);
        continue;
      }
      if (!prepared.ok) {
        // a seed that cannot become a task (no instruction negative) fails without a request
        state.write({
          key: prepared.key,
          seedId: prepared.seedId,
          negativeDocid: '(none)',
          status: 'failed',
          newInstruction: null,
          reason: prepared.reason,
          backend: o.backend.name,
          model: o.backend.model,
          templateId: o.template.id,
          templateVersion: o.template.version,
          promptHash: '-',
          usage: NO_USAGE,
          attempts: 1,
        });
        continue;
      }
      await dispatch(synthesizeSeed(state, step, prepared.task, prepared.request));
    }
    await running.all();
  } finally {
    appender.close();
  }
  const elapsed = progress.done(state.note());
  const c = state.counts;
  return finalizeRun({
    seedsPath: o.seedsPath,
    outDir: o.outDir,
    seedIds: ids,
    journal,
    keyFor: (seed) => {
      const known = keys.get(seed.id);
      if (known !== undefined) return known;
      const p = prepareTask(seed, o);
      return p.ok ? p.task.key : p.key;
    },
    run: {
      backend: o.backend.name,
      model: o.backend.model,
      templateId: o.template.id,
      templateVersion: o.template.version,
      ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
      ...(o.maxTokens !== undefined ? { maxTokens: o.maxTokens } : {}),
      judge: o.judge?.name ?? null,
      shard: o.shard ?? null,
      cachedThisRun: c.cached,
      cachedFailedThisRun: c.cachedFailed,
      reverifiedThisRun: c.reverified,
      stoppedBy: state.stoppedBy,
      ...(state.stopDetail ? { stopDetail: state.stopDetail } : {}),
      elapsedSeconds: elapsed,
      wallSeconds: (performance.now() - started) / 1000,
      usage: o.ledger?.snapshot() ?? null,
    },
    config: o.config,
    command: o.command,
    formatter: o.formatter,
  });
}
