import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LoopbackChatServer, startLoopbackChatServer } from '../testing/loopback-chat-server.js';
import { UsageLedger } from '../usage-ledger.js';
import { createOpenAIChatBackend } from './openai-chat.js';
import { BackendError, CostCapReached } from './synthesis-backend.js';

const KEY = 'sk-test-SECRET-0123456789abcdef';
const user = (content: string) => ({ messages: [{ role: 'user' as const, content }] });

describe('OpenAI-compatible chat backend against a loopback server', () => {
  let server: LoopbackChatServer;
  let second: LoopbackChatServer;
  beforeAll(async () => {
    server = await startLoopbackChatServer();
    second = await startLoopbackChatServer();
  });
  afterAll(async () => {
    await server.close();
    await second.close();
  });
  const backend = (extra: Partial<Parameters<typeof createOpenAIChatBackend>[0]> = {}) =>
    createOpenAIChatBackend({
      baseURLs: [server.url],
      model: 'loopback',
      env: { DV_TEST_KEY: KEY },
      apiKeyEnv: 'DV_TEST_KEY',
      requestTimeoutMs: 5000,
      maxRetries: 3,
      retryBaseMs: 10,
      retryMaxMs: 50,
      ...extra,
    });

  it('sends the key from the named variable and returns content and usage', async () => {
    const r = await backend().chat!(
      user('<query>q</query><positive>aaaaa</positive><target>bbbbbb</target>'),
    );
    expect(r.text).toBe(
      '<answer><new_instruction>I want material that mentions bbbbbb.</new_instruction></answer>',
    );
    expect(r.usage.promptTokens).toBeGreaterThan(0);
    expect(r.attempts).toBe(1);
    expect(server.authorizations.at(-1)).toBe(`Bearer ${KEY}`);
  });

  it('retries a 429 no sooner than Retry-After, and a 500', async () => {
    const retries: Array<{ reason: string; delayMs: number }> = [];
    const b = backend({ onRetry: (i) => retries.push(i) });
    const r = await b.chat!(user('[[fault:429]] <target>hello world</target>'));
    expect(r.attempts).toBe(2);
    expect(retries[0]!.reason).toBe('http-429');
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(1000);
    const r2 = await b.chat!(user('[[fault:500]] <target>other words</target>'));
    expect(r2.attempts).toBe(2);
    expect(retries[1]!.reason).toBe('http-500');
    expect(retries[1]!.delayMs).toBeLessThanOrEqual(50);
  });

  it('times out a hanging request and retries it; truncated bodies are retried too', async () => {
    const retries: string[] = [];
    const b = backend({ requestTimeoutMs: 3000, onRetry: (i) => retries.push(i.reason) });
    const r = await b.chat!(user('[[fault:hang]] <target>slow answer</target>'));
    expect(r.attempts).toBe(2);
    expect(retries).toEqual(['timeout']);
    const r2 = await b.chat!(user('[[fault:truncate]] <target>cut short</target>'));
    expect(r2.attempts).toBe(2);
    expect(retries[1]).toBeDefined();
  });

  it('gives up with a named reason after maxRetries and never prints the key', async () => {
    const b = backend({ maxRetries: 2 });
    const err = await b.chat!(user(`[[fault:500*]] ${KEY}`)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BackendError);
    expect((err as BackendError).reason).toBe('http-500');
    expect((err as BackendError).attempts).toBe(3);
    expect(String((err as Error).message)).not.toContain(KEY);
  });

  it('does not retry a 4xx that is not transient', async () => {
    const b = createOpenAIChatBackend({ baseURLs: [server.url], model: 'm', retryBaseMs: 1, env: {} });
    const err = (await b.chat!(user('[[fault:400*]]')).catch((e: unknown) => e)) as BackendError;
    expect(err.reason).toBe('http-400');
    expect(err.attempts).toBe(1);
  });

  it('spreads requests round-robin over endpoints', async () => {
    const a0 = server.requests;
    const b0 = second.requests;
    const b = backend({ baseURLs: [server.url, second.url] });
    for (let i = 0; i < 4; i++) await b.chat!(user(`<target>word${i}aaaa</target>`));
    expect(server.requests - a0).toBe(2);
    expect(second.requests - b0).toBe(2);
  });

  it('bounds the number of requests in flight', async () => {
    const slow = await startLoopbackChatServer({ latencyMs: 50 });
    const b = backend({ baseURLs: [slow.url], concurrency: 3 });
    await Promise.all(Array.from({ length: 12 }, (_, i) => b.chat!(user(`<target>t${i}xxxxx</target>`))));
    expect(slow.maxInFlight).toBe(3);
    await slow.close();
  });

  it('stops at the cost cap', async () => {
    const ledger = new UsageLedger({ inputPerMTokens: 1_000_000, outputPerMTokens: 0 }, 5);
    const b = backend({ ledger });
    await b.chat!(user('x'.repeat(40))); // ~10 prompt tokens = $10 >= cap
    expect(ledger.capReached).toBe(true);
    await expect(b.chat!(user('y'))).rejects.toBeInstanceOf(CostCapReached);
  });
});
