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
 * At the end (or when the cost cap stops dispatching) `finalizeRun` writes, atomically:
 * `records.jsonl` (one record per seed, seed order), `failures.jsonl` (every record that is not
 * accepted, with its reason), `original.jsonl` and `complement.jsonl` (the two views),
 * `summary.json` and `manifest.json`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  createProgress,
  DataError,
  type FormatterSettings,
  JsonlAppender,
  type Progress,
  type ProgressMode,
  readJsonl,
  redactSecrets,
  SeedExample,
  SynthesisRecord,
  secretValuesFromEnv,
  type TokenUsage,
} from '@dv/core';
import {
  BackendError,
  CostCapReached,
  type SynthesisBackend,
  type SynthesisTask,
} from './backends/synthesis-backend.js';
import { finalizeRun, type RunSummary } from './finalize-run.js';
import { checkGuardrails, type GuardrailOptions } from './guardrails.js';
import { InFlight } from './internal/in-flight.js';
import { parseAnswer } from './parse-answer.js';
import { inShard, prepareTask, type TaskSettings } from './synthesis-task.js';
import type { UsageLedger } from './usage-ledger.js';
import type { Judge } from './verify/judge.js';

/** Thrown by a backend that has no answer for a task yet (batch import): the seed stays pending. */
export class TaskPending extends Error {
  override readonly name = 'TaskPending';
}

export interface Shard {
  index: number;
  count: number;
}

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
}

export const LOG_FILE = 'log.jsonl';

/** Transport failures that stop the run instead of failing one seed: the endpoint refuses the key. */
const AUTH_REASONS = new Set(['http-401', 'http-403']);

/**
 * Whether a journal record's verdict was made under the current judge settings. Answers are
 * cached by content key (judge settings do not change what the model writes); the verdict is
 * cached only for the same judge name and threshold, else redone from the cached answer
 * (issue 12 item 4: another --judge or --judge-threshold silently reused old verdicts).
 */
function verdictIsCurrent(r: SynthesisRecord, judge: Judge | undefined): boolean {
  const judged = r.status === 'accepted' || (r.status === 'rejected' && r.reason === 'verification');
  const judgeFailed = r.status === 'failed' && (r.reason ?? '').startsWith('judge:');
  if (!judged && !judgeFailed) return true; // guardrails, none, backend failures: no verdict involved
  if (!judge) return r.verification === undefined && !judgeFailed;
  if (judgeFailed) return true; // same policy as other failures: --retry-failed redoes it
  return r.verification?.judge === judge.name && r.verification.threshold === judge.threshold;
}

/** Reads a run's journal: the last record per key wins (a retried failure supersedes). */
export async function readJournal(path: string): Promise<Map<string, SynthesisRecord>> {
  const out = new Map<string, SynthesisRecord>();
  if (!existsSync(path)) return out;
  for await (const r of readJsonl(path, SynthesisRecord, { allowTruncatedTail: true })) out.set(r.key, r);
  return out;
}

function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

/** Reads and validates the seeds once (fail fast before spending anything); returns the shard's ids. */
async function scanSeeds(path: string, shard?: Shard, limit?: number): Promise<string[]> {
  if (!existsSync(path)) throw new DataError('seed file not found', path);
  const ids: string[] = [];
  let any = false;
  for await (const s of readJsonl(path, SeedExample, { uniqueBy: (r) => r.id })) {
    any = true;
    if (!inShard(s.id, shard)) continue;
    if (limit !== undefined && ids.length >= limit) break;
    ids.push(s.id);
  }
  if (!any) throw new DataError('the seed file holds no seeds', path);
  return ids;
}

export async function runSynthesis(o: SynthesisRunOptions): Promise<RunSummary> {
  const started = performance.now();
  const ids = new Set(await scanSeeds(o.seedsPath, o.shard, o.limit));
  const logPath = join(o.outDir, LOG_FILE);
  const journal = await readJournal(logPath);
  const appender = new JsonlAppender(logPath, SynthesisRecord, { groupPerTick: true });
  const secrets = [...new Set([...(o.secrets ?? []), ...secretValuesFromEnv()])].sort(
    (a, b) => b.length - a.length,
  );
  const concurrency = Math.max(1, o.concurrency ?? 1);
  const parseRetries = o.parseRetries ?? 2;
  const counts = {
    accepted: 0,
    none: 0,
    rejected: 0,
    failed: 0,
    cached: 0,
    cachedFailed: 0,
    reverified: 0,
    pending: 0,
  };
  let stoppedBy: string | null = null;
  let stopDetail: string | undefined;
  // The cost cap, or an auth error (every other request would be refused too): stop the run and
  // record nothing for this task, so a rerun continues it. True when the run stops.
  const stopsRun = (err: unknown): boolean => {
    if (err instanceof CostCapReached) stoppedBy = 'cost-cap';
    else if (err instanceof BackendError && AUTH_REASONS.has(err.reason)) stoppedBy = `auth:${err.reason}`;
    else if (err instanceof BackendError && err.reason === 'unreachable') stoppedBy = 'unreachable';
    else return false;
    stopDetail ??= (err as Error).message;
    return true;
  };

  const progress: Progress = createProgress({
    label: 'synth',
    total: ids.size,
    unit: 'seeds',
    ...(o.progressMode ? { mode: o.progressMode } : {}),
    ...(o.progressStream ? { stream: o.progressStream } : {}),
  });
  const note = () => {
    const cost = o.ledger ? ` $${o.ledger.costUsd.toFixed(4)} ${o.ledger.totalTokens} tok` : '';
    return `acc ${counts.accepted} none ${counts.none} rej ${counts.rejected} fail ${counts.failed}${cost}`;
  };

  const write = (r: Omit<SynthesisRecord, 'createdAt'>) => {
    const record = redactSecrets({ ...r, createdAt: new Date().toISOString() }, secrets);
    appender.append(record);
    journal.set(record.key, record);
    counts[record.status]++;
    progress.tick(1, note());
  };

  const base = (
    task: SynthesisTask,
    pr: { templateId: string; templateVersion: string; promptHash: string },
  ) => ({
    key: task.key,
    seedId: task.seedId,
    negativeDocid: task.target.docid,
    backend: o.backend.name,
    model: o.backend.model,
    templateId: pr.templateId,
    templateVersion: pr.templateVersion,
    promptHash: pr.promptHash,
  });

  async function process(
    task: SynthesisTask,
    pr: { templateId: string; templateVersion: string; promptHash: string },
  ) {
    let usage: TokenUsage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
    let attempts = 0;
    let raw: string | null = null;
    let lever: string | undefined;
    let parsed = parseAnswer(null);
    try {
      for (let i = 0; i <= parseRetries; i++) {
        const a = await o.backend.synthesize(task, o.signal);
        usage = addUsage(usage, a.usage);
        attempts += a.attempts;
        raw = a.raw;
        lever = a.lever;
        parsed = parseAnswer(a.raw);
        if (parsed.kind !== 'unparsable' || !o.backend.stochastic) break;
      }
    } catch (err) {
      if (stopsRun(err)) return;
      // pending: a batch answer not there yet, or a request that never reached a server (the
      // seed was not processed, so nothing is recorded and a rerun picks it up)
      if (err instanceof TaskPending || (err instanceof BackendError && err.reason === 'connection')) {
        counts.pending++;
        return;
      }
      const be = err instanceof BackendError ? err : undefined;
      write({
        ...base(task, pr),
        status: 'failed',
        newInstruction: null,
        reason: `backend:${be?.reason ?? 'error'}`,
        raw: `error: ${(err as Error).message}`,
        usage,
        attempts: Math.max(1, attempts + (be?.attempts ?? 1)),
      });
      return;
    }
    const common = {
      ...base(task, pr),
      ...(raw !== null ? { raw } : {}),
      ...(lever ? { lever } : {}),
      usage,
      attempts: Math.max(1, attempts),
    };
    if (parsed.kind === 'unparsable') {
      write({ ...common, status: 'failed', newInstruction: null, reason: `unparsable:${parsed.reason}` });
      return;
    }
    if (parsed.kind === 'none') {
      write({ ...common, status: 'none', newInstruction: null, reason: 'none' });
      return;
    }
    const g = checkGuardrails(
      {
        newInstruction: parsed.text,
        originalInstruction: task.instruction.text,
        query: task.query,
        ...(parsed.query !== undefined ? { answeredQuery: parsed.query } : {}),
        docids: [task.positive.docid, task.target.docid, ...task.otherNegatives.map((n) => n.docid)],
      },
      o.guardrails,
    );
    if (!g.ok) {
      write({ ...common, status: 'rejected', newInstruction: parsed.text, reason: `guardrail:${g.reason}` });
      return;
    }
    await verify(task, common, parsed.text);
  }

  /** The verdict step: judge `newInstruction` (or accept it when no judge is set) and record. */
  async function verify(
    task: SynthesisTask,
    common: Omit<SynthesisRecord, 'createdAt' | 'status' | 'newInstruction' | 'reason' | 'verification'>,
    newInstruction: string,
  ) {
    if (!o.judge) {
      write({ ...common, status: 'accepted', newInstruction, reason: null });
      return;
    }
    try {
      const v = await o.judge.judge(
        {
          seedId: task.seedId,
          query: task.query,
          newInstruction,
          positive: task.positive,
          target: task.target,
          otherNegatives: task.otherNegatives,
        },
        o.signal,
      );
      write({
        ...common,
        status: v.passed ? 'accepted' : 'rejected',
        newInstruction,
        reason: v.passed ? null : 'verification',
        verification: v,
      });
    } catch (err) {
      if (stopsRun(err)) return;
      const be = err instanceof BackendError ? err : undefined;
      write({ ...common, status: 'failed', newInstruction, reason: `judge:${be?.reason ?? 'error'}` });
    }
  }

  const running = new InFlight();
  try {
    for await (const seed of readJsonl(o.seedsPath, SeedExample)) {
      if (stoppedBy || o.signal?.aborted) break;
      if (!ids.has(seed.id)) continue;
      const prepared = prepareTask(seed, o);
      const prev = journal.get(prepared.ok ? prepared.task.key : prepared.key);
      if (prev && prepared.ok && !verdictIsCurrent(prev, o.judge) && prev.newInstruction) {
        // the answer is cached, the verdict is not: judge it again under the current settings
        counts.reverified++;
        const { createdAt: _c, status: _s, newInstruction, reason: _r, verification: _v, ...common } = prev;
        running.add(verify(prepared.task, common, newInstruction));
        await running.whenBelow(concurrency);
        continue;
      }
      if (prev && !(o.retryFailed && prev.status === 'failed')) {
        counts.cached++;
        if (prev.status === 'failed') counts.cachedFailed++;
        progress.tick(1, note());
        continue;
      }
      if (!prepared.ok) {
        write({
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
          usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
          attempts: 1,
        });
        continue;
      }
      running.add(process(prepared.task, prepared.request));
      await running.whenBelow(concurrency);
    }
    await running.all();
  } finally {
    appender.close();
  }
  const elapsed = progress.done(note());
  return finalizeRun({
    seedsPath: o.seedsPath,
    outDir: o.outDir,
    seedIds: ids,
    journal,
    keyFor: (seed) => {
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
      cachedThisRun: counts.cached,
      cachedFailedThisRun: counts.cachedFailed,
      reverifiedThisRun: counts.reverified,
      stoppedBy,
      ...(stopDetail ? { stopDetail } : {}),
      elapsedSeconds: elapsed,
      wallSeconds: (performance.now() - started) / 1000,
      usage: o.ledger?.snapshot() ?? null,
    },
    config: o.config,
    command: o.command,
    formatter: o.formatter,
  });
}
