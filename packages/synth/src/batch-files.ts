/**
 * Batch files: requests in the OpenAI Batch API JSONL format (also what vLLM's
 * `python -m vllm.entrypoints.openai.run_batch` reads), and ingestion of the output file,
 * matched by `custom_id` (= the synthesis key).
 *
 * Input line:  {"custom_id": KEY, "method": "POST", "url": "/v1/chat/completions",
 *               "body": {"model", "messages", "temperature", "max_tokens"}}
 * Output line: {"id", "custom_id": KEY, "response": {"status_code", "request_id", "body":
 *               <chat completion>} | null, "error": {"code", "message"} | null}
 * OpenAI caps a batch file at 50,000 requests, so larger exports are split into parts.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DataError, readJsonl, readJsonlWithLines, SeedExample, writeJsonl } from '@dv/core';
import { z } from 'zod';
import {
  type BackendAnswer,
  BackendError,
  type SynthesisBackend,
  type SynthesisTask,
} from './backends/synthesis-backend.js';
import { LOG_FILE, readJournal, type Shard, TaskPending } from './run-synthesis.js';
import { inShard, prepareTask, type TaskSettings } from './synthesis-task.js';

export const BatchRequestLine = z.object({
  custom_id: z.string().min(1),
  method: z.literal('POST'),
  url: z.string(),
  body: z.object({
    model: z.string(),
    messages: z.array(z.object({ role: z.string(), content: z.string() })),
    temperature: z.number().optional(),
    max_tokens: z.number().int().optional(),
  }),
});
export type BatchRequestLine = z.infer<typeof BatchRequestLine>;

export const BatchOutputLine = z.object({
  id: z.string().optional(),
  custom_id: z.string().min(1),
  response: z
    .object({
      status_code: z.number().int(),
      request_id: z.string().optional(),
      body: z.unknown(),
    })
    .nullable()
    .optional(),
  error: z
    .object({ code: z.string().nullable().optional(), message: z.string().optional() })
    .nullable()
    .optional(),
});
export type BatchOutputLine = z.infer<typeof BatchOutputLine>;

const ChatBody = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable().optional() }) })),
  usage: z
    .object({
      prompt_tokens: z.number().optional(),
      completion_tokens: z.number().optional(),
      total_tokens: z.number().optional(),
    })
    .optional(),
});

export interface BatchExportOptions extends TaskSettings {
  seedsPath: string;
  outDir: string;
  shard?: Shard;
  limit?: number;
  retryFailed?: boolean;
  maxPerFile?: number;
}

/** Writes `batch-input[.NNN].jsonl` with one line per seed that has no record yet; returns the paths and count. */
export async function exportBatch(
  o: BatchExportOptions,
): Promise<{ files: string[]; requests: number; skipped: number }> {
  const journal = await readJournal(join(o.outDir, LOG_FILE));
  const lines: BatchRequestLine[] = [];
  let skipped = 0;
  let seen = 0;
  for await (const seed of readJsonl(o.seedsPath, SeedExample, { uniqueBy: (r) => r.id })) {
    if (!inShard(seed.id, o.shard)) continue;
    if (o.limit !== undefined && seen >= o.limit) break;
    seen++;
    const p = prepareTask(seed, o);
    if (!p.ok) {
      skipped++;
      continue;
    }
    const prev = journal.get(p.task.key);
    if (prev && !(o.retryFailed && prev.status === 'failed')) {
      skipped++;
      continue;
    }
    lines.push({
      custom_id: p.task.key,
      method: 'POST',
      url: '/v1/chat/completions',
      body: {
        model: p.request.model,
        messages: p.request.messages,
        ...(p.request.temperature !== undefined ? { temperature: p.request.temperature } : {}),
        ...(p.request.maxTokens !== undefined ? { max_tokens: p.request.maxTokens } : {}),
      },
    });
  }
  const per = o.maxPerFile ?? 50_000;
  const parts = Math.max(1, Math.ceil(lines.length / per));
  const files: string[] = [];
  for (let i = 0; i < parts; i++) {
    const path = join(
      o.outDir,
      parts === 1 ? 'batch-input.jsonl' : `batch-input.${String(i).padStart(3, '0')}.jsonl`,
    );
    await writeJsonl(path, lines.slice(i * per, (i + 1) * per), BatchRequestLine);
    files.push(path);
  }
  return { files, requests: lines.length, skipped };
}

/**
 * A backend that answers from batch output files. Seeds without an output line stay pending
 * (`TaskPending`); error lines become failures with reason `batch:<code>`.
 */
export async function createBatchResultsBackend(
  paths: string[],
  model: string,
): Promise<
  SynthesisBackend & { readonly lines: number; readonly matched: number; unmatchedIds(): string[] }
> {
  const byId = new Map<string, BatchOutputLine>();
  for (const path of paths) {
    if (!existsSync(path)) throw new DataError('batch output file not found', path);
    for await (const { value, line } of readJsonlWithLines(path, BatchOutputLine, {
      allowTruncatedTail: true,
    })) {
      if (byId.has(value.custom_id))
        throw new DataError(`duplicate custom_id ${JSON.stringify(value.custom_id)}`, path, line);
      byId.set(value.custom_id, value);
    }
  }
  const used = new Set<string>();
  return {
    name: 'batch-import',
    model,
    stochastic: false,
    get lines() {
      return byId.size;
    },
    get matched() {
      return used.size;
    },
    unmatchedIds: () => [...byId.keys()].filter((k) => !used.has(k)),
    async synthesize(task: SynthesisTask): Promise<BackendAnswer> {
      const line = byId.get(task.key);
      if (!line) throw new TaskPending(`no batch output for ${task.key}`);
      used.add(task.key);
      const status = line.response?.status_code;
      if (line.error || !line.response || status !== 200) {
        const code = line.error?.code ?? (status !== undefined ? `http-${status}` : 'error');
        throw new BackendError(line.error?.message ?? `batch request failed (${code})`, `batch:${code}`);
      }
      const body = ChatBody.safeParse(line.response.body);
      if (!body.success)
        throw new BackendError('batch response body is not a chat completion', 'batch:malformed-body');
      const u = body.data.usage;
      return {
        raw: body.data.choices[0]?.message.content ?? null,
        usage: {
          promptTokens: u?.prompt_tokens ?? 0,
          completionTokens: u?.completion_tokens ?? 0,
          totalTokens: u?.total_tokens ?? (u?.prompt_tokens ?? 0) + (u?.completion_tokens ?? 0),
        },
        attempts: 1,
      };
    },
  };
}
