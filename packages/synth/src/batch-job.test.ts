import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonlAll, SynthesisRecord } from '@dv/core';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAIChatBackend } from './backends/openai-chat.js';
import { BATCH_DIR, type BatchJobEvent, BatchJobState, runBatchJob } from './batch-job.js';
import { runSynthesis } from './run-synthesis.js';
import { splitBatchLines } from './split-batch-requests.js';
import { templates } from './template-registry.js';
import { plainSeeds } from './test-utils/seed-fixtures.js';
import { tempDir, writeSeeds } from './test-utils/write-seeds.js';
import { type LoopbackBatchServer, startLoopbackBatchServer } from './testing/loopback-batch-server.js';
import { startLoopbackChatServer } from './testing/loopback-chat-server.js';
import { createLexicalJudge } from './verify/lexical-judge.js';

const template = templates['polarity-reversal'];
const KEY = 'sk-batch-loopback-SECRET-0123456789';
const silent = { progressMode: 'silent' as const };

describe('splitBatchLines', () => {
  it('fills each file greedily within the request and byte limits, in order', () => {
    const lines = ['a\n', 'bb\n', 'c\n', 'dddd\n', 'e\n'];
    expect(splitBatchLines(lines, { maxRequests: 2, maxBytes: 100 })).toEqual([
      ['a\n', 'bb\n'],
      ['c\n', 'dddd\n'],
      ['e\n'],
    ]);
    // bytes: 2 + 3 = 5 fits, + 2 = 7 does not; 'dddd\n' (5) alone; 'e\n'
    expect(splitBatchLines(lines, { maxRequests: 10, maxBytes: 5 })).toEqual([
      ['a\n', 'bb\n'],
      ['c\n'],
      ['dddd\n'],
      ['e\n'],
    ]);
    // UTF-8 bytes, not characters: 'é\n' is 3 bytes.
    expect(splitBatchLines(['é\n', 'é\n'], { maxRequests: 10, maxBytes: 5 })).toEqual([['é\n'], ['é\n']]);
    expect(splitBatchLines([], { maxRequests: 1, maxBytes: 1 })).toEqual([]);
  });

  it('refuses a single request larger than a file may be', () => {
    expect(() => splitBatchLines(['ok\n', 'much too long\n'], { maxRequests: 5, maxBytes: 4 })).toThrow(
      /batch request 2 is 14 bytes, over the per-file limit of 4/,
    );
  });
});

describe('runBatchJob against a loopback Files + Batches server', () => {
  let server: LoopbackBatchServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const seeds = writeSeeds(plainSeeds(11));
  const client = (s: LoopbackBatchServer) => new OpenAI({ apiKey: KEY, baseURL: s.url, maxRetries: 0 });
  const job = (
    s: LoopbackBatchServer,
    outDir: string,
    extra: Partial<Parameters<typeof runBatchJob>[0]> = {},
  ) =>
    runBatchJob({
      client: client(s),
      seedsPath: seeds,
      outDir,
      template,
      model: 'loopback',
      judge: createLexicalJudge(),
      limits: { maxRequests: 4, maxBytes: 1_000_000 },
      pollIntervalMs: 0,
      secrets: [KEY],
      ...silent,
      ...extra,
    });
  const project = (records: SynthesisRecord[]) =>
    records.map((r) => ({
      key: r.key,
      status: r.status,
      newInstruction: r.newInstruction,
      reason: r.reason,
    }));

  it('uploads parts within the limits, polls, downloads and imports: records as an online run writes them', async () => {
    server = await startLoopbackBatchServer({ maxRequestsPerFile: 4, maxBytesPerFile: 1_000_000 });
    const outDir = tempDir();
    const events: BatchJobEvent['type'][] = [];
    const r = await job(server, outDir, { onEvent: (e) => events.push(e.type) });
    expect(r.submitted).toBe(11);
    expect(server.uploads.map((u) => u.lines)).toEqual([4, 4, 3]);
    expect(server.batches.map((b) => b.status)).toEqual(['completed', 'completed', 'completed']);
    expect(server.chatRequests).toBe(11);
    expect(r.summary!.recorded).toBe(11);
    expect(r.summary!.pending).toBe(0);
    expect(events.filter((e) => e === 'uploaded')).toHaveLength(3);
    expect(events.at(-1)).toBe('imported');
    // The key went in the Authorization header and nowhere into the outputs.
    expect(server.authorizations.every((a) => a === `Bearer ${KEY}`)).toBe(true);
    const state = BatchJobState.parse(JSON.parse(readFileSync(r.statePath, 'utf8')));
    expect(JSON.stringify(state)).not.toContain(KEY);
    // Downloaded byte for byte: each part's output file has its requests' custom_ids.
    const part0 = state.rounds[0]!.parts[0]!;
    const ids = (f: string) =>
      readFileSync(join(outDir, BATCH_DIR, f), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).custom_id)
        .sort();
    expect(ids(part0.input.replace('.jsonl', '.output.jsonl'))).toEqual(ids(part0.input));

    // Same records as the same seeds sent one by one to the same chat answers.
    const chat = await startLoopbackChatServer();
    const online = tempDir();
    try {
      await runSynthesis({
        seedsPath: seeds,
        outDir: online,
        template,
        model: 'loopback',
        judge: createLexicalJudge(),
        backend: createOpenAIChatBackend({ baseURLs: [chat.url], model: 'loopback', maxRetries: 0, env: {} }),
        ...silent,
      });
    } finally {
      await chat.close();
    }
    const got = await readJsonlAll(join(outDir, 'records.jsonl'), SynthesisRecord);
    const want = await readJsonlAll(join(online, 'records.jsonl'), SynthesisRecord);
    expect(project(got)).toEqual(project(want));
    expect(got.filter((x) => x.status === 'accepted').length).toBeGreaterThan(0);
    expect(new Set(got.map((x) => x.backend))).toEqual(new Set(['batch-import']));

    // A rerun has nothing left to submit.
    const again = await job(server, outDir);
    expect(again.submitted).toBe(0);
    expect(server.uploads).toHaveLength(3);
  });

  it('splits by bytes when the byte limit binds first', async () => {
    server = await startLoopbackBatchServer();
    const outDir = tempDir();
    const lineBytes = 2600; // one request line is ~2.2-2.5 kB with this template
    const r = await job(server, outDir, { limits: { maxRequests: 50_000, maxBytes: 2 * lineBytes } });
    const parts = r.state.rounds[0]!.parts;
    expect(parts.length).toBeGreaterThanOrEqual(5);
    for (const p of parts) expect(p.bytes).toBeLessThanOrEqual(2 * lineBytes);
    expect(parts.reduce((s, p) => s + p.requests, 0)).toBe(11);
    expect(server.uploads.map((u) => u.bytes)).toEqual(parts.map((p) => p.bytes));
    expect(r.summary!.recorded).toBe(11);
  });

  const steps: BatchJobEvent['type'][] = [
    'round',
    'uploaded',
    'created',
    'polled',
    'downloaded',
    'importing',
  ];
  it.each(steps)('a crash at "%s" resumes without a duplicate upload, batch or record', async (step) => {
    server = await startLoopbackBatchServer({ pollsToComplete: 3 });
    const outDir = tempDir();
    let crashed = false;
    await expect(
      job(server, outDir, {
        onEvent: (e) => {
          if (e.type === step && !crashed) {
            crashed = true;
            throw new Error(`simulated crash at ${step}`);
          }
        },
      }),
    ).rejects.toThrow(/simulated crash/);
    const r = await job(server, outDir);
    expect(server.uploads).toHaveLength(3);
    expect(server.batches).toHaveLength(3);
    expect(new Set(server.batches.map((b) => b.input_file_id)).size).toBe(3);
    expect(server.chatRequests).toBe(11);
    expect(r.summary!.recorded).toBe(11);
    const records = await readJsonlAll(join(outDir, 'records.jsonl'), SynthesisRecord);
    expect(new Set(records.map((x) => x.key)).size).toBe(11);
    const log = readFileSync(join(outDir, 'log.jsonl'), 'utf8').trim().split('\n');
    expect(log).toHaveLength(11);
  });

  it('an expired batch leaves its unanswered seeds pending; the next run submits only those', async () => {
    server = await startLoopbackBatchServer({ expireBatches: 1 });
    const outDir = tempDir();
    const first = await job(server, outDir);
    expect(server.batches[0]!.status).toBe('expired');
    expect(first.summary!.pending).toBe(2); // half of the first part of 4 went unanswered
    const second = await job(server, outDir);
    expect(second.submitted).toBe(2);
    expect(second.state.rounds).toHaveLength(2);
    expect(server.uploads.at(-1)!.lines).toBe(2);
    expect(second.summary!.pending).toBe(0);
    expect(second.summary!.recorded).toBe(11);
  });

  it('a batch the provider refuses (over its request limit) fails visibly and leaves seeds pending', async () => {
    server = await startLoopbackBatchServer({ maxRequestsPerFile: 3 });
    const outDir = tempDir();
    const r = await job(server, outDir);
    const parts = r.state.rounds[0]!.parts;
    expect(parts.map((p) => p.status)).toEqual(['failed', 'failed', 'completed']);
    expect(parts[0]!.errors[0]).toMatch(/^too_many_requests: the file has 4 requests/);
    expect(r.summary!.pending).toBe(8);
    expect(r.summary!.recorded).toBe(3);
  });
});
