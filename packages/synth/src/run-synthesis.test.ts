import { readdirSync, readFileSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonlAll, type SeedExample, SynthesisRecord } from '@dv/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { createOfflineReverser } from './backends/offline-reverser.js';
import { createOpenAIChatBackend } from './backends/openai-chat.js';
import { createScriptedBackend } from './backends/scripted.js';
import { mergeShards } from './merge-shards.js';
import { LOG_FILE, runSynthesis } from './run-synthesis.js';
import { templates } from './template-registry.js';
import { metadataSeeds, plainSeeds } from './test-utils/seed-fixtures.js';
import { tempDir, writeSeeds } from './test-utils/write-seeds.js';
import { type LoopbackChatServer, startLoopbackChatServer } from './testing/loopback-chat-server.js';
import { UsageLedger } from './usage-ledger.js';
import { createLexicalJudge } from './verify/lexical-judge.js';
import { createLlmJudge } from './verify/llm-judge.js';

/** A seed as written before parsing (defaults not applied). */
type SeedExampleInput = z.input<typeof SeedExample>;

const KEY = 'sk-loopback-VERYSECRET-9f8e7d6c5b4a';
const template = templates['polarity-reversal'];
const silent = { progressMode: 'silent' as const };

function faultSeeds(): SeedExampleInput[] {
  const faults = ['', '429', '500', 'hang', 'truncate', 'malformed*', 'none', 'prose', '500*', ''];
  return faults.map((f, i) => ({
    id: `s${i}`,
    query: `lighthouse ${f ? `[[fault:${f}]]` : ''}`.trim(),
    instruction: { text: 'Describe the tower on the coast and its keeper.' },
    positives: [{ docid: `p${i}`, text: 'a coastal tower with a bright lamp tended by a keeper' }],
    instructionNegatives: [
      { docid: `n${i}`, text: `a decorative lighthouse figurine made of porcelain number${'x'.repeat(i)}` },
    ],
    hardNegatives: [{ docid: `h${i}`, text: 'a harbour crane' }],
  }));
}

function allOutputText(dir: string): string {
  return readdirSync(dir)
    .filter((f) => statSync(join(dir, f)).isFile())
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');
}

function assertOneRecordPerSeed(records: SynthesisRecord[], ids: string[]) {
  expect(records.map((r) => r.seedId).sort()).toEqual([...ids].sort());
  expect(new Set(records.map((r) => r.key)).size).toBe(records.length);
}

describe('runSynthesis', () => {
  let server: LoopbackChatServer;
  beforeAll(async () => {
    server = await startLoopbackChatServer();
  });
  afterAll(() => server.close());

  const openai = (extra: Partial<Parameters<typeof createOpenAIChatBackend>[0]> = {}) =>
    createOpenAIChatBackend({
      baseURLs: [server.url],
      model: 'loopback',
      env: { LLM_CRED: KEY },
      apiKeyEnv: 'LLM_CRED',
      requestTimeoutMs: 3000, // generous: a loaded CI machine must not turn a normal answer into a timeout
      maxRetries: 2,
      retryBaseMs: 5,
      retryMaxMs: 20,
      concurrency: 4,
      ...extra,
    });

  it('every seed ends as a record or a failure with a reason under injected faults', async () => {
    const seeds = faultSeeds();
    const seedsPath = writeSeeds(seeds);
    const outDir = tempDir();
    const s = await runSynthesis({
      seedsPath,
      outDir,
      backend: openai(),
      judge: createLexicalJudge(),
      template,
      model: 'loopback',
      concurrency: 4,
      secrets: [KEY],
      ...silent,
    });
    const records = await readJsonlAll(join(outDir, 'records.jsonl'), SynthesisRecord);
    assertOneRecordPerSeed(
      records,
      seeds.map((x) => x.id),
    );
    const by = Object.fromEntries(records.map((r) => [r.seedId, r]));
    for (const id of ['s0', 's1', 's2', 's3', 's4', 's7', 's9']) expect(by[id]!.status, id).toBe('accepted');
    expect(by.s1!.attempts).toBe(2); // 429 then OK
    expect(by.s3!.attempts).toBe(2); // hang, timeout, then OK
    expect(by.s5).toMatchObject({ status: 'failed', reason: 'unparsable:unclosed-answer', attempts: 3 });
    expect(by.s5!.raw).toContain('<answer><new_instruction>Only results about');
    expect(by.s6).toMatchObject({ status: 'none', reason: 'none' });
    expect(by.s8).toMatchObject({ status: 'failed', reason: 'backend:http-500', attempts: 3 });
    expect(by.s0!.verification).toMatchObject({ judge: 'lexical', threshold: 0.25, passed: true });
    const failures = await readJsonlAll(join(outDir, 'failures.jsonl'), SynthesisRecord);
    expect(failures.map((f) => f.seedId).sort()).toEqual(['s5', 's6', 's8']);
    expect(failures.every((f) => f.reason)).toBe(true);
    expect(s).toMatchObject({ seeds: 10, recorded: 10, pending: 0, accepted: 7, none: 1, failed: 2 });
    expect(s.byReason).toEqual({ none: 1, 'unparsable:unclosed-answer': 1, 'backend:http-500': 1 });
    expect(s.tokens.totalTokens).toBeGreaterThan(0);
    expect(s.examples.length).toBeGreaterThan(0);
    expect(allOutputText(outDir)).not.toContain(KEY);
  });

  it('never writes the API key, even when the server echoes it back', async () => {
    const leaky = await startLoopbackChatServer({
      respond: () =>
        `Your key is ${KEY}. <answer><new_instruction>Porcelain figurines only.</new_instruction></answer>`,
    });
    const outDir = tempDir();
    await runSynthesis({
      seedsPath: writeSeeds(faultSeeds().slice(0, 3)),
      outDir,
      backend: openai({ baseURLs: [leaky.url] }),
      template,
      model: 'loopback',
      secrets: [KEY],
      ...silent,
    });
    await leaky.close();
    expect(leaky.authorizations).toContain(`Bearer ${KEY}`);
    const text = allOutputText(outDir);
    expect(text).toContain('Your key is [REDACTED]');
    expect(text).not.toContain(KEY);
  });

  it('the cost cap stops the run cleanly, and a rerun with a higher cap finishes it', async () => {
    const seedsPath = writeSeeds(plainSeeds(12));
    const outDir = tempDir();
    const pricing = { inputPerMTokens: 1000, outputPerMTokens: 1000 };
    const ledger = new UsageLedger(pricing, 0.0015);
    const s = await runSynthesis({
      seedsPath,
      outDir,
      backend: openai({ ledger, concurrency: 1 }),
      ledger,
      template,
      model: 'loopback',
      concurrency: 1,
      ...silent,
    });
    expect(s.run.stoppedBy).toBe('cost-cap');
    expect(s.recorded).toBeGreaterThan(0);
    expect(s.recorded).toBeLessThan(12);
    expect(s.pending).toBe(12 - s.recorded);
    const ledger2 = new UsageLedger(pricing, 100);
    const s2 = await runSynthesis({
      seedsPath,
      outDir,
      backend: openai({ ledger: ledger2 }),
      ledger: ledger2,
      template,
      model: 'loopback',
      ...silent,
    });
    expect(s2.run.stoppedBy).toBeNull();
    expect(s2.run.cachedThisRun).toBe(s.recorded);
    const log = await readJsonlAll(join(outDir, LOG_FILE), SynthesisRecord);
    assertOneRecordPerSeed(
      log,
      plainSeeds(12).map((x) => x.id as string),
    );
  });

  it('stops cleanly when the endpoint refuses the key, recording nothing for the rest', async () => {
    const seeds = faultSeeds().slice(0, 1);
    seeds.push({ ...seeds[0]!, id: 'refused', query: 'lighthouse [[fault:401*]]' });
    const outDir = tempDir();
    const s = await runSynthesis({
      seedsPath: writeSeeds(seeds),
      outDir,
      backend: openai({ concurrency: 1 }),
      template,
      model: 'loopback',
      ...silent,
    });
    expect(s.run.stoppedBy).toBe('auth:http-401');
    expect(s.failed).toBe(0);
    expect(s.recorded + s.pending).toBe(2);
    expect(s.pending).toBeGreaterThanOrEqual(1);
  });

  it('resumes after a torn last record: no duplicates, no losses', async () => {
    const seeds = metadataSeeds(9);
    const seedsPath = writeSeeds(seeds);
    const outDir = tempDir();
    const run = () =>
      runSynthesis({
        seedsPath,
        outDir,
        backend: createOfflineReverser(),
        template,
        model: 'offline-reverser',
        ...silent,
      });
    await run();
    const log = join(outDir, LOG_FILE);
    const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    // keep 4 whole records and half of the 5th, as a kill -9 mid-write would
    truncateSync(log, lines.slice(0, 4).join('\n').length + 1 + Math.floor(lines[4]!.length / 2));
    const s = await run();
    expect(s.run.cachedThisRun).toBe(4);
    const after = await readJsonlAll(log, SynthesisRecord);
    assertOneRecordPerSeed(
      after,
      seeds.map((x) => x.id as string),
    );
  });

  it('--retry-failed redoes failed records only', async () => {
    const seeds = faultSeeds().filter((x) => ['s0', 's2'].includes(x.id as string));
    const seedsPath = writeSeeds(seeds);
    const outDir = tempDir();
    const fresh = await startLoopbackChatServer(); // its first 500 for s2 must be unseen
    const first = await runSynthesis({
      seedsPath,
      outDir,
      backend: openai({ maxRetries: 0, baseURLs: [fresh.url] }),
      template,
      model: 'loopback',
      ...silent,
    });
    expect(first.failed).toBe(1);
    const again = await runSynthesis({
      seedsPath,
      outDir,
      backend: openai(),
      template,
      model: 'loopback',
      ...silent,
    });
    expect(again.failed).toBe(1); // without the flag the failure is cached
    const retried = await runSynthesis({
      seedsPath,
      outDir,
      backend: openai(),
      template,
      model: 'loopback',
      retryFailed: true,
      ...silent,
    });
    expect(retried.failed).toBe(0);
    expect(retried.accepted).toBe(2);
    expect(retried.run.cachedThisRun).toBe(1);
    await fresh.close();
  });

  it('shards partition the seeds and merge back to the unsharded result', async () => {
    const seeds = [...metadataSeeds(10), ...plainSeeds(6)];
    const seedsPath = writeSeeds(seeds);
    const opts = {
      seedsPath,
      backend: createOfflineReverser(),
      template,
      model: 'offline-reverser',
      judge: createLexicalJudge(),
      ...silent,
    };
    const whole = await runSynthesis({ ...opts, outDir: tempDir() });
    const dirs = [tempDir(), tempDir(), tempDir()];
    const parts = [];
    for (let i = 0; i < 3; i++)
      parts.push(await runSynthesis({ ...opts, outDir: dirs[i]!, shard: { index: i, count: 3 } }));
    expect(parts.reduce((n, p) => n + p.seeds, 0)).toBe(16);
    const merged = await mergeShards({ seedsPath, shardDirs: dirs, outDir: tempDir() });
    expect(merged).toMatchObject({
      seeds: 16,
      recorded: 16,
      pending: 0,
      accepted: whole.accepted,
      none: whole.none,
    });
    const a = await readJsonlAll(join(whole.outDir, 'records.jsonl'), SynthesisRecord);
    const b = await readJsonlAll(join(merged.outDir, 'records.jsonl'), SynthesisRecord);
    expect(b.map((r) => [r.key, r.status, r.newInstruction])).toEqual(
      a.map((r) => [r.key, r.status, r.newInstruction]),
    );
    const partial = await mergeShards({ seedsPath, shardDirs: dirs.slice(0, 2), outDir: tempDir() });
    expect(partial.pending).toBe(parts[2]!.seeds);
  });

  it('guardrail rejections, parse retries and seeds without negatives are named', async () => {
    const seeds: SeedExampleInput[] = [
      ...plainSeeds(3),
      { id: 'lonely', query: 'q', instruction: { text: 'i' }, positives: [{ docid: 'p', text: 't' }] },
    ];
    const answers: Record<string, (call: number) => string> = {
      'msm-0': () => '<answer><new_instruction>Use the first passage.</new_instruction></answer>',
      'msm-1': () =>
        '<answer><new_instruction>Relevant answers give exact cooking times for soft boiled eggs.</new_instruction></answer>',
      'msm-2': (call) =>
        call === 2 ? '<answer><new_instruction>Mountain cooking only.</new_instruction></answer>' : 'hmm',
    };
    const backend = createScriptedBackend({ answer: (t, call) => answers[t.seedId]!(call) });
    const outDir = tempDir();
    const s = await runSynthesis({
      seedsPath: writeSeeds(seeds),
      outDir,
      backend,
      template,
      model: 'scripted',
      ...silent,
    });
    const by = Object.fromEntries(
      (await readJsonlAll(join(outDir, 'records.jsonl'), SynthesisRecord)).map((r) => [r.seedId, r]),
    );
    expect(by['msm-0']).toMatchObject({ status: 'rejected', reason: 'guardrail:meta-language' });
    expect(by['msm-1']).toMatchObject({ status: 'rejected', reason: 'guardrail:copies-original' });
    expect(by['msm-2']).toMatchObject({ status: 'accepted', newInstruction: 'Mountain cooking only.' });
    expect(by.lonely).toMatchObject({ status: 'failed', reason: 'no-instruction-negative' });
    expect(s.recorded).toBe(4);
  });

  it('verifies with an LLM judge through the same backend', async () => {
    const outDir = tempDir();
    const b = openai();
    const s = await runSynthesis({
      seedsPath: writeSeeds(faultSeeds().slice(0, 1)),
      outDir,
      backend: b,
      judge: createLlmJudge(b),
      template,
      model: 'loopback',
      ...silent,
    });
    const [r] = await readJsonlAll(join(outDir, 'records.jsonl'), SynthesisRecord);
    expect(r!.verification).toMatchObject({ judge: 'llm:loopback', score: 1, threshold: 1, passed: true });
    expect(s.verification).toMatchObject({ judged: 1, passed: 1, passRate: 1 });
  });
});
