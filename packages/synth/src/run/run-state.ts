/**
 * The mutable state of one synthesis run, shared by its steps: the tallies, the stop reason,
 * and `write`, the one way a record reaches the journal (redacted of the configured secret
 * values, appended, remembered for the end of the run, counted, shown on the progress line).
 *
 * Stop rule (`stopsRun`): the cost cap, an endpoint that refuses the key (401/403: every other
 * request would be refused too) and an unreachable endpoint stop dispatching; nothing is
 * recorded for the seed at hand, so a rerun continues the run where it stopped.
 */
import {
  DataError,
  describeZodIssues,
  type JsonlAppender,
  type Progress,
  redactSecrets,
  SynthesisRecord,
  type TokenUsage,
} from '@dv/core';
import {
  BackendError,
  CostCapReached,
  type SynthesisBackend,
  type SynthesisTask,
} from '../backends/synthesis-backend.js';
import type { UsageLedger } from '../usage-ledger.js';
import { isDecided } from './decision-key.js';

/** A record before `write` stamps it. */
export type RecordDraft = Omit<SynthesisRecord, 'createdAt'>;
/** The fields every record of one task carries, whatever its verdict. */
export type RecordCommon = Omit<
  RecordDraft,
  'status' | 'newInstruction' | 'reason' | 'verification' | 'decisionKey'
>;
/** The prompt identity of a task's request. */
export interface PromptIdentity {
  templateId: string;
  templateVersion: string;
  promptHash: string;
}

/** Transport failures that stop the run instead of failing one seed: the endpoint refuses the key. */
const AUTH_REASONS = new Set(['http-401', 'http-403']);

export const NO_USAGE: TokenUsage = Object.freeze({ promptTokens: 0, completionTokens: 0, totalTokens: 0 });

export class RunState {
  readonly counts = {
    accepted: 0,
    none: 0,
    rejected: 0,
    failed: 0,
    cached: 0,
    cachedFailed: 0,
    reverified: 0,
    pending: 0,
  };
  /** Why dispatching stopped early (`cost-cap`, `auth:http-401`, `unreachable`), or null. */
  stoppedBy: string | null = null;
  /** The message of the error that stopped the run. */
  stopDetail: string | undefined;

  constructor(
    private readonly io: {
      backend: SynthesisBackend;
      /** The journal's appender, without a schema: `write` validates each record once. */
      appender: JsonlAppender<typeof SynthesisRecord>;
      journal: Map<string, SynthesisRecord>;
      /** Secret values to redact, longest first. */
      secrets: string[];
      progress: Progress;
      ledger?: UsageLedger;
      /** Stamped on every decided record (decision-key.ts). */
      decisionKey?: string;
    },
  ) {}

  /** True (and the stop reason set) when `err` stops the run; false for a per-seed failure. */
  stopsRun(err: unknown): boolean {
    if (err instanceof CostCapReached) this.stoppedBy = 'cost-cap';
    else if (err instanceof BackendError && AUTH_REASONS.has(err.reason))
      this.stoppedBy = `auth:${err.reason}`;
    else if (err instanceof BackendError && err.reason === 'unreachable') this.stoppedBy = 'unreachable';
    else return false;
    this.stopDetail ??= (err as Error).message;
    return true;
  }

  /**
   * Stamps, redacts, validates, appends and counts one record. The journal keeps the record as
   * `SynthesisRecord` parsed it (as `readJournal` does), so `finalizeRun` writes it as it is.
   */
  write(r: RecordDraft): void {
    const { decisionKey: _stale, ...draft } = r;
    const stamp =
      this.io.decisionKey !== undefined && isDecided(r) ? { decisionKey: this.io.decisionKey } : {};
    const parsed = SynthesisRecord.safeParse(
      redactSecrets({ ...draft, ...stamp, createdAt: new Date().toISOString() }, this.io.secrets),
    );
    if (!parsed.success)
      throw new DataError(`${this.io.appender.path}: ${describeZodIssues(parsed.error.issues)}`);
    const record = parsed.data;
    this.io.appender.append(record);
    this.io.journal.set(record.key, record);
    this.counts[record.status]++;
    this.io.progress.tick(1, this.note());
  }

  /** A seed answered from the journal: counted, nothing written. */
  cached(prev: SynthesisRecord): void {
    this.counts.cached++;
    if (prev.status === 'failed') this.counts.cachedFailed++;
    this.io.progress.tick(1, this.note());
  }

  /** The fields of every record of `task` made by this run's backend. */
  common(task: SynthesisTask, prompt: PromptIdentity): RecordCommon {
    return {
      key: task.key,
      seedId: task.seedId,
      negativeDocid: task.target.docid,
      backend: this.io.backend.name,
      model: this.io.backend.model,
      templateId: prompt.templateId,
      templateVersion: prompt.templateVersion,
      promptHash: prompt.promptHash,
      usage: NO_USAGE,
      attempts: 1,
    };
  }

  /** The progress line's note: tallies, and spend when a ledger is kept. */
  note(): string {
    const c = this.counts;
    const l = this.io.ledger;
    const cost = l ? ` $${l.costUsd.toFixed(4)} ${l.totalTokens} tok` : '';
    return `acc ${c.accepted} none ${c.none} rej ${c.rejected} fail ${c.failed}${cost}`;
  }
}
