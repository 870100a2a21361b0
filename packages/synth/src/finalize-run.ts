/**
 * Turns a run's journal into its finished outputs (atomic writes, so a reader never sees half a
 * file): records, failures, the two training views, a summary with examples, and the manifest.
 * Used at the end of a run, after a cost-cap stop, and by `mergeShards`.
 */
import { renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  DualViewExample,
  type FormatterSettings,
  JsonlAppender,
  readJsonl,
  redactSecrets,
  SeedExample,
  type SynthesisRecord,
  TrainingExample,
  writeJsonAtomic,
  writeManifest,
} from '@dv/core';
import type { z } from 'zod';
import { complementExample, originalExample } from './dual-view.js';

export const OUTPUT_FILES = {
  records: 'records.jsonl',
  failures: 'failures.jsonl',
  original: 'original.jsonl',
  complement: 'complement.jsonl',
  summary: 'summary.json',
} as const;

export interface RunInfo {
  backend: string;
  model: string;
  templateId: string;
  templateVersion: string;
  temperature?: number;
  maxTokens?: number;
  judge: string | null;
  shard: { index: number; count: number } | null;
  cachedThisRun?: number;
  /** Of those, records that are failures reused from an earlier run (see --retry-failed). */
  cachedFailedThisRun?: number;
  /** Cached records whose verdict was redone because the judge settings changed. */
  reverifiedThisRun?: number;
  stoppedBy: string | null;
  /** The message of the error that stopped the run (e.g. the unreachable endpoint). */
  stopDetail?: string;
  elapsedSeconds?: number;
  wallSeconds?: number;
  usage: {
    promptTokens: number;
    completionTokens: number;
    totalTokens: number;
    requests: number;
    costUsd: number;
  } | null;
  mergedFrom?: string[];
}

export interface RunExample {
  seedId: string;
  query: string;
  instruction: string;
  newInstruction: string | null;
  status: string;
  reason: string | null;
  lever?: string;
  verificationScore?: number;
}

export interface RunSummary {
  outDir: string;
  files: Record<keyof typeof OUTPUT_FILES, string>;
  seeds: number;
  recorded: number;
  pending: number;
  accepted: number;
  none: number;
  rejected: number;
  failed: number;
  /** accepted / recorded. */
  acceptanceRate: number;
  byReason: Record<string, number>;
  byLever: Record<string, number>;
  verification: {
    judge: string | null;
    judged: number;
    passed: number;
    passRate: number | null;
    meanScore: number | null;
  };
  tokens: { promptTokens: number; completionTokens: number; totalTokens: number };
  costUsd: number | null;
  run: RunInfo;
  examples: RunExample[];
}

/**
 * An append-only writer to `<path>.tmp`, renamed over `path` by `commit()`; the records of one
 * event-loop turn go out in one write. Without a schema the records are written as they are
 * (the journal's, which `SynthesisRecord` already parsed).
 */
class StreamedJsonl<S extends z.ZodType> {
  private readonly appender: JsonlAppender<S>;
  constructor(
    readonly path: string,
    schema?: S,
  ) {
    const tmp = `${path}.tmp`;
    rmSync(tmp, { force: true });
    this.appender = new JsonlAppender(tmp, schema, { groupPerTick: true });
  }
  append(r: z.input<S>): void {
    this.appender.append(r);
  }
  commit(): void {
    this.appender.close();
    renameSync(`${this.path}.tmp`, this.path);
  }
}

export interface FinalizeInput {
  seedsPath: string;
  outDir: string;
  seedIds: Set<string>;
  /** Records by content key, as `SynthesisRecord` parsed them (`readJournal`, `RunState.write`). */
  journal: Map<string, SynthesisRecord>;
  keyFor: (seed: SeedExample) => string;
  run: RunInfo;
  config?: unknown;
  command?: string[];
  formatter?: FormatterSettings;
  exampleCount?: number;
}

export async function finalizeRun(f: FinalizeInput): Promise<RunSummary> {
  const files = Object.fromEntries(
    Object.entries(OUTPUT_FILES).map(([k, v]) => [k, join(f.outDir, v)]),
  ) as RunSummary['files'];
  // Streamed (memory stays flat on a million seeds) into temporary files renamed at the end,
  // so each output appears whole or not at all.
  const out = {
    records: new StreamedJsonl<typeof SynthesisRecord>(files.records),
    failures: new StreamedJsonl<typeof SynthesisRecord>(files.failures),
    original: new StreamedJsonl(files.original, TrainingExample),
    complement: new StreamedJsonl(files.complement, DualViewExample),
  };
  const records: SynthesisRecord[] = [];
  const examples: RunExample[] = [];
  const want = f.exampleCount ?? 5;
  let otherExamples = 0;
  for await (const seed of readJsonl(f.seedsPath, SeedExample)) {
    if (!f.seedIds.has(seed.id)) continue;
    const rec = f.journal.get(f.keyFor(seed));
    const accepted = rec?.status === 'accepted';
    out.original.append(originalExample(seed, accepted));
    if (!rec) continue;
    records.push(rec);
    out.records.append(rec);
    if (accepted) out.complement.append(complementExample(seed, rec));
    else out.failures.append(rec);
    const isAcceptedExample = accepted && examples.filter((e) => e.status === 'accepted').length < want;
    const isOtherExample = !accepted && otherExamples < 2;
    if (isAcceptedExample || isOtherExample) {
      if (!accepted) otherExamples++;
      examples.push({
        seedId: seed.id,
        query: seed.query,
        instruction: seed.instruction.text,
        newInstruction: rec.newInstruction,
        status: rec.status,
        reason: rec.reason,
        ...(rec.lever ? { lever: rec.lever } : {}),
        ...(rec.verification ? { verificationScore: rec.verification.score } : {}),
      });
    }
  }
  for (const o of Object.values(out)) o.commit();

  const byReason: Record<string, number> = {};
  const byLever: Record<string, number> = {};
  const tokens = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  let judged = 0;
  let passed = 0;
  let scoreSum = 0;
  const status = { accepted: 0, none: 0, rejected: 0, failed: 0 };
  for (const r of records) {
    status[r.status]++;
    if (r.reason) byReason[r.reason] = (byReason[r.reason] ?? 0) + 1;
    if (r.status === 'accepted' && r.lever) byLever[r.lever] = (byLever[r.lever] ?? 0) + 1;
    tokens.promptTokens += r.usage.promptTokens;
    tokens.completionTokens += r.usage.completionTokens;
    tokens.totalTokens += r.usage.totalTokens;
    if (r.verification) {
      judged++;
      scoreSum += r.verification.score;
      if (r.verification.passed) passed++;
    }
  }
  const summary: RunSummary = {
    outDir: f.outDir,
    files,
    seeds: f.seedIds.size,
    recorded: records.length,
    pending: f.seedIds.size - records.length,
    ...status,
    acceptanceRate: records.length ? status.accepted / records.length : 0,
    byReason,
    byLever,
    verification: {
      judge: f.run.judge,
      judged,
      passed,
      passRate: judged ? passed / judged : null,
      meanScore: judged ? scoreSum / judged : null,
    },
    tokens,
    costUsd: f.run.usage ? f.run.usage.costUsd : null,
    run: f.run,
    examples,
  };
  await writeJsonAtomic(files.summary, redactSecrets(summary));
  await writeManifest(f.outDir, {
    kind: 'synth',
    config: f.config ?? {},
    ...(f.command ? { command: f.command } : {}),
    ...(f.formatter ? { formatter: f.formatter } : {}),
    templateVersion: `${f.run.templateId}@${f.run.templateVersion}`,
    inputs: [f.seedsPath],
    outputs: [files.records, files.failures, files.original, files.complement, files.summary],
    notes: f.run.stoppedBy ? [`stopped early: ${f.run.stoppedBy}`] : [],
  });
  return summary;
}
