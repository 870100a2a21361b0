/**
 * Regression tests for issue 12 items 3 and 4: a closed port stops the run at once with the
 * endpoint named (it used to retry every seed 7 times and then exit 0); reruns say when they
 * reuse cached failures; a verdict is cached only under the same judge settings.
 * Real HTTP on 127.0.0.1 (the loopback chat server, and a port nothing listens on).
 */
import { createServer } from 'node:net';
import { join } from 'node:path';
import { readJsonlAll, SynthesisRecord } from '@dv/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createOfflineReverser } from './backends/offline-reverser.js';
import { createOpenAIChatBackend } from './backends/openai-chat.js';
import { runSynthesis } from './run-synthesis.js';
import { templates } from './template-registry.js';
import { plainSeeds } from './test-utils/seed-fixtures.js';
import { tempDir, writeSeeds } from './test-utils/write-seeds.js';
import { type LoopbackChatServer, startLoopbackChatServer } from './testing/loopback-chat-server.js';
import { createLexicalJudge } from './verify/lexical-judge.js';

const template = templates['polarity-reversal'];
const silent = { progressMode: 'silent' as const };

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((ok) => s.close(() => ok()));
  return port;
}

describe('transport failures fail fast (issue 12 item 3)', () => {
  it('a closed port stops the run as unreachable, names the endpoint and records nothing', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const outDir = tempDir();
    const s = await runSynthesis({
      seedsPath: writeSeeds(plainSeeds(40)),
      outDir,
      // the CLI's defaults: 6 retries with 0.5 s backoff would take ~a minute per seed
      backend: createOpenAIChatBackend({ baseURLs: [url], model: 'm', env: {}, concurrency: 16 }),
      template,
      model: 'm',
      ...silent,
    });
    expect(s.run.stoppedBy).toBe('unreachable');
    expect(s.run.stopDetail).toContain(url);
    expect(s.run.stopDetail).toMatch(/3 connection failures in a row/);
    expect(s.recorded).toBe(0);
    expect(s.pending).toBe(40);
  });
  it('a server that answers (even 500) resets the count: seeds fail one by one instead', async () => {
    const server: LoopbackChatServer = await startLoopbackChatServer();
    try {
      const seeds = plainSeeds(4).map((x) => ({ ...x, query: `${x.query} [[fault:500*]]` }));
      const outDir = tempDir();
      const backend = () =>
        createOpenAIChatBackend({
          baseURLs: [server.url],
          model: 'm',
          env: {},
          maxRetries: 1,
          retryBaseMs: 1,
          retryMaxMs: 2,
        });
      const seedsPath = writeSeeds(seeds);
      const s = await runSynthesis({
        seedsPath,
        outDir,
        backend: backend(),
        template,
        model: 'm',
        ...silent,
      });
      expect(s.run.stoppedBy).toBeNull();
      expect(s.failed).toBe(4);
      expect(s.byReason).toEqual({ 'backend:http-500': 4 });
      // the rerun reuses the failures and says so
      const again = await runSynthesis({
        seedsPath,
        outDir,
        backend: backend(),
        template,
        model: 'm',
        ...silent,
      });
      expect(again.run.cachedFailedThisRun).toBe(4);
      expect(server.requests).toBe(8); // 4 seeds x 2 attempts, none on the rerun
    } finally {
      await server.close();
    }
  });
});

describe('verdicts are cached per judge settings (issue 12 item 4)', () => {
  let seedsPath: string;
  beforeAll(() => {
    seedsPath = writeSeeds(plainSeeds(6));
  });
  const run = (outDir: string, judge?: ReturnType<typeof createLexicalJudge>) =>
    runSynthesis({
      seedsPath,
      outDir,
      backend: createOfflineReverser({ model: 'offline-reverser' }),
      template,
      model: 'offline-reverser',
      ...(judge ? { judge } : {}),
      ...silent,
    });
  it('another threshold or judge redoes the verdict from the cached answer; no judge drops it', async () => {
    const outDir = tempDir();
    const first = await run(outDir, createLexicalJudge(0.25));
    const judged = first.verification.judged;
    expect(judged).toBeGreaterThan(0);
    const strict = await run(outDir, createLexicalJudge(1.5));
    expect(strict.run.reverifiedThisRun).toBe(judged);
    const records = await readJsonlAll(join(outDir, 'records.jsonl'), SynthesisRecord);
    for (const r of records.filter((x) => x.verification)) expect(r.verification!.threshold).toBe(1.5);
    expect(strict.verification).toMatchObject({ judge: 'lexical', judged });
    // same settings again: everything from the cache
    const same = await run(outDir, createLexicalJudge(1.5));
    expect(same.run.reverifiedThisRun).toBe(0);
    expect(same.run.cachedThisRun).toBe(6);
    // the metadata judge is another judge
    expect((await run(outDir, createLexicalJudge(1.5, { useMetadata: true }))).run.reverifiedThisRun).toBe(
      judged,
    );
    // no judge: the verdicts go, the answers stay
    const none = await run(outDir);
    expect(none.verification.judged).toBe(0);
    expect(none.accepted).toBe(first.accepted + (first.byReason.verification ?? 0));
  });
});
