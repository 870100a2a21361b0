/**
 * Synthesis through an OpenAI-style Batch API, end to end and resumable at every step:
 * export -> split -> upload -> create -> poll -> download -> import (`dv synth batch`).
 *
 * A job works in rounds. A round takes every seed of the run without a record yet
 * (`exportBatch`: same keys, prompts and settings as the online backends), splits the request
 * lines within the per-file limits (`splitBatchLines`), and writes the parts under
 * `<out>/batch/round-NNN/part-PPP.jsonl`. Each part is uploaded (Files API, purpose `batch`),
 * becomes one batch (`/v1/chat/completions`, `completionWindow`), is polled to a terminal
 * state, and its output and error files are downloaded byte for byte beside it. The round is
 * then imported into the run's outputs by `runSynthesis` with the batch-results backend, so
 * records, failures, both views and the manifest are exactly what an online run writes.
 * Requests a batch did not answer (expired, failed) leave their seeds pending; the next run
 * of the job starts a new round for them.
 *
 * State: `<out>/batch/state.json`, rewritten atomically after every step. A crash anywhere
 * resumes where it stopped without duplicating work: an upload or create that may have
 * happened before the crash (marked in the state before the call) is looked up in the
 * provider's file/batch lists (file name = content digest; batch by input file id) before it
 * is repeated; a download is redone (atomic, idempotent); the import resumes from the journal.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DataError, sha256, writeBytesAtomic, writeFileAtomic, writeJsonAtomic } from '@dv/core';
import OpenAI, { toFile } from 'openai';
import { z } from 'zod';
import { createBatchResultsBackend, exportBatch } from './batch-files.js';
import type { RunSummary } from './finalize-run.js';
import { runSynthesis, type SynthesisRunOptions } from './run-synthesis.js';
import { type BatchFileLimits, OPENAI_BATCH_LIMITS, splitBatchLines } from './split-batch-requests.js';

const TERMINAL = ['completed', 'failed', 'expired', 'cancelled'] as const;

const BatchPartState = z.object({
  part: z.number().int().nonnegative(),
  /** Relative to `<out>/batch`. */
  input: z.string(),
  sha256: z.string(),
  bytes: z.number().int().nonnegative(),
  requests: z.number().int().nonnegative(),
  /** Upload name: the content digest, so a lost upload can be found again. */
  filename: z.string(),
  /** Set before the upload call: an upload may exist even without `fileId`. */
  uploading: z.boolean().default(false),
  fileId: z.string().nullable().default(null),
  creating: z.boolean().default(false),
  batchId: z.string().nullable().default(null),
  status: z.string().nullable().default(null),
  requestCounts: z
    .object({ total: z.number(), completed: z.number(), failed: z.number() })
    .nullable()
    .default(null),
  errors: z.array(z.string()).default([]),
  outputFile: z.string().nullable().default(null),
  errorFile: z.string().nullable().default(null),
  downloaded: z.boolean().default(false),
});
export type BatchPartState = z.infer<typeof BatchPartState>;

const BatchRoundState = z.object({
  round: z.number().int().positive(),
  createdAt: z.string(),
  requests: z.number().int().nonnegative(),
  parts: z.array(BatchPartState),
  imported: z.boolean().default(false),
});
export type BatchRoundState = z.infer<typeof BatchRoundState>;

export const BatchJobState = z.object({
  version: z.literal(1),
  model: z.string(),
  limits: z.object({ maxRequests: z.number(), maxBytes: z.number() }),
  rounds: z.array(BatchRoundState),
});
export type BatchJobState = z.infer<typeof BatchJobState>;

export type BatchJobEvent =
  | { type: 'round'; round: number; requests: number; parts: number }
  | { type: 'uploaded'; round: number; part: number; fileId: string; reused: boolean }
  | { type: 'created'; round: number; part: number; batchId: string; reused: boolean }
  | { type: 'polled'; round: number; completed: number; failed: number; total: number; open: number }
  | { type: 'downloaded'; round: number; part: number; status: string; files: string[] }
  | { type: 'importing'; round: number; files: string[] }
  | { type: 'imported'; round: number; summary: RunSummary };

export interface BatchJobOptions extends Omit<SynthesisRunOptions, 'backend' | 'concurrency'> {
  /** An openai SDK client, or where to make one (the key from the environment, by the caller). */
  client: OpenAI | { baseURL: string; apiKey?: string };
  limits?: Partial<BatchFileLimits>;
  /** Between status polls (default 30 s). */
  pollIntervalMs?: number;
  completionWindow?: '24h';
  /** Progress; a test may throw from it to simulate a crash at that step. */
  onEvent?: (e: BatchJobEvent) => void;
}

export interface BatchJobResult {
  state: BatchJobState;
  /** The import's summary (null when there was nothing to submit and nothing to import). */
  summary: RunSummary | null;
  /** Requests submitted in a round started by this call (0 when it resumed one). */
  submitted: number;
  statePath: string;
}

export const BATCH_DIR = 'batch';

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

const isOpen = (p: BatchPartState) => !(TERMINAL as readonly string[]).includes(p.status ?? '');

/** Copies what a Batch object says into the part's state. */
function absorb(p: BatchPartState, b: OpenAI.Batches.Batch): void {
  p.status = b.status;
  p.requestCounts = b.request_counts
    ? {
        total: b.request_counts.total,
        completed: b.request_counts.completed,
        failed: b.request_counts.failed,
      }
    : null;
  p.errors = (b.errors?.data ?? []).map((e) => `${e.code ?? 'error'}: ${e.message ?? ''}`.trim());
  if (!isOpen(p)) {
    p.outputFile = b.output_file_id ?? null;
    p.errorFile = b.error_file_id ?? null;
  }
}

/**
 * Runs the job; API errors become `DataError`s saying what the server answered (a refused
 * key says so), so a CLI prints one line.
 */
export async function runBatchJob(options: BatchJobOptions): Promise<BatchJobResult> {
  const client =
    options.client instanceof OpenAI
      ? options.client
      : new OpenAI({
          apiKey: options.client.apiKey || 'EMPTY',
          baseURL: options.client.baseURL,
          maxRetries: 3,
        });
  try {
    return await job({ ...options, client });
  } catch (err) {
    if (options.signal?.aborted) throw err;
    if (err instanceof OpenAI.AuthenticationError || err instanceof OpenAI.PermissionDeniedError)
      throw new DataError(`the Batch API refused the key (${err.status}): ${err.message}`, client.baseURL);
    if (err instanceof OpenAI.APIError)
      throw new DataError(
        `Batch API error${err.status ? ` ${err.status}` : ''}: ${err.message}`,
        client.baseURL,
      );
    throw err;
  }
}

async function job(o: BatchJobOptions & { client: OpenAI }): Promise<BatchJobResult> {
  const dir = join(o.outDir, BATCH_DIR);
  const statePath = join(dir, 'state.json');
  const limits: BatchFileLimits = { ...OPENAI_BATCH_LIMITS, ...o.limits };
  const emit = o.onEvent ?? (() => {});
  const req = o.signal ? { signal: o.signal } : {};
  let state: BatchJobState;
  if (existsSync(statePath)) {
    const parsed = BatchJobState.safeParse(JSON.parse(readFileSync(statePath, 'utf8')));
    if (!parsed.success)
      throw new DataError(`not a batch job state: ${parsed.error.issues[0]?.message}`, statePath);
    state = parsed.data;
    if (state.model !== o.model)
      throw new DataError(`this job runs model ${state.model}, not ${o.model}; use another --out`, statePath);
  } else {
    state = { version: 1, model: o.model, limits, rounds: [] };
  }
  const save = () => writeJsonAtomic(statePath, state);

  let round = state.rounds.at(-1);
  let submitted = 0;
  if (!round || round.imported) {
    const staging = await exportBatch({
      seedsPath: o.seedsPath,
      outDir: o.outDir,
      template: o.template,
      model: o.model,
      temperature: o.temperature,
      maxTokens: o.maxTokens,
      ...(o.shard ? { shard: o.shard } : {}),
      ...(o.limit !== undefined ? { limit: o.limit } : {}),
      retryFailed: o.retryFailed,
      maxPerFile: Number.MAX_SAFE_INTEGER,
    });
    const text = readFileSync(staging.files[0]!, 'utf8');
    rmSync(staging.files[0]!, { force: true });
    const lines = text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => `${l}\n`);
    if (lines.length === 0) return { state, summary: null, submitted: 0, statePath };
    const n = state.rounds.length + 1;
    const rdir = `round-${String(n).padStart(3, '0')}`;
    const parts = splitBatchLines(lines, limits).map((p, i) => {
      const body = p.join('');
      const digest = sha256(body);
      return BatchPartState.parse({
        part: i,
        input: `${rdir}/part-${String(i).padStart(3, '0')}.jsonl`,
        sha256: digest,
        bytes: Buffer.byteLength(body),
        requests: p.length,
        filename: `dv-batch-${digest.slice(0, 24)}.jsonl`,
      });
    });
    for (const [i, p] of splitBatchLines(lines, limits).entries())
      await writeFileAtomic(join(dir, parts[i]!.input), p.join(''));
    round = BatchRoundState.parse({
      round: n,
      createdAt: new Date().toISOString(),
      requests: lines.length,
      parts,
    });
    state.rounds.push(round);
    state.limits = limits;
    await save();
    submitted = lines.length;
    emit({ type: 'round', round: n, requests: lines.length, parts: parts.length });
  }
  const r = round;

  // Upload and create every part first, so the provider works on all of them at once.
  for (const p of r.parts) {
    if (!p.fileId) {
      let reused = false;
      if (p.uploading) {
        for await (const f of o.client.files.list({ purpose: 'batch' }, req))
          if (f.filename === p.filename && f.bytes === p.bytes) {
            p.fileId = f.id;
            reused = true;
            break;
          }
      }
      if (!p.fileId) {
        p.uploading = true;
        await save();
        const bytes = readFileSync(join(dir, p.input));
        if (sha256(bytes) !== p.sha256)
          throw new DataError('batch input part changed since it was written', join(dir, p.input));
        const f = await o.client.files.create(
          { file: await toFile(bytes, p.filename), purpose: 'batch' },
          req,
        );
        p.fileId = f.id;
      }
      emit({ type: 'uploaded', round: r.round, part: p.part, fileId: p.fileId, reused });
      await save();
    }
    if (!p.batchId) {
      let reused = false;
      if (p.creating) {
        for await (const b of o.client.batches.list({ limit: 100 }, req))
          if (b.input_file_id === p.fileId) {
            p.batchId = b.id;
            reused = true;
            break;
          }
      }
      if (!p.batchId) {
        p.creating = true;
        await save();
        const b = await o.client.batches.create(
          {
            input_file_id: p.fileId,
            endpoint: '/v1/chat/completions',
            completion_window: o.completionWindow ?? '24h',
            metadata: {
              dv_round: String(r.round),
              dv_part: String(p.part),
              dv_sha256: p.sha256.slice(0, 24),
            },
          },
          req,
        );
        p.batchId = b.id;
        absorb(p, b);
      }
      emit({ type: 'created', round: r.round, part: p.part, batchId: p.batchId, reused });
      await save();
    }
  }

  // Poll until every batch is terminal.
  for (let first = true; r.parts.some(isOpen); first = false) {
    if (!first) await sleep(o.pollIntervalMs ?? 30_000, o.signal);
    for (const p of r.parts.filter(isOpen)) {
      absorb(p, await o.client.batches.retrieve(p.batchId!, req));
    }
    await save();
    const counts = r.parts.map((p) => p.requestCounts ?? { total: p.requests, completed: 0, failed: 0 });
    emit({
      type: 'polled',
      round: r.round,
      completed: counts.reduce((s, c) => s + c.completed, 0),
      failed: counts.reduce((s, c) => s + c.failed, 0),
      total: r.requests,
      open: r.parts.filter(isOpen).length,
    });
  }

  // Download outputs and error files byte for byte.
  const local = (p: BatchPartState, kind: 'output' | 'errors') =>
    p.input.replace(/\.jsonl$/, `.${kind}.jsonl`);
  for (const p of r.parts) {
    if (p.downloaded) continue;
    const files: string[] = [];
    for (const [id, kind] of [
      [p.outputFile, 'output'],
      [p.errorFile, 'errors'],
    ] as const) {
      if (!id) continue;
      const res = await o.client.files.content(id, req);
      writeBytesAtomic(join(dir, local(p, kind)), new Uint8Array(await res.arrayBuffer()));
      files.push(local(p, kind));
    }
    p.downloaded = true;
    emit({ type: 'downloaded', round: r.round, part: p.part, status: p.status ?? '', files });
    await save();
  }

  // Import into the run's outputs (the journal makes this resumable too).
  const outputs = r.parts.flatMap((p) =>
    [p.outputFile ? local(p, 'output') : null, p.errorFile ? local(p, 'errors') : null]
      .filter((x): x is string => x !== null)
      .map((f) => join(dir, f)),
  );
  emit({ type: 'importing', round: r.round, files: outputs });
  const { client: _c, limits: _l, pollIntervalMs: _p, completionWindow: _w, onEvent: _e, ...run } = o;
  const summary = await runSynthesis({
    ...run,
    backend: await createBatchResultsBackend(outputs, o.model),
    concurrency: 1,
  });
  r.imported = true;
  await save();
  emit({ type: 'imported', round: r.round, summary });
  return { state, summary, submitted, statePath };
}
