/**
 * OpenAI-compatible chat completions backend (OpenAI, vLLM, TGI, any server that speaks
 * `POST /v1/chat/completions`), through the official `openai` SDK with `baseURL`.
 *
 * - Bounded concurrency: at most `concurrency` requests in flight (a semaphore).
 * - Several endpoints: requests go round-robin over `baseURLs`; a retry moves to the next one.
 * - Retries: on 408/409/429/5xx, timeouts, dropped connections and truncated bodies, up to
 *   `maxRetries` times, with exponential backoff + full jitter, never sooner than the server's
 *   `Retry-After` / `retry-after-ms`. The SDK's own retries are off so that this is the one
 *   policy. Other 4xx are not retried.
 * - Fail fast on a dead endpoint: connection failures (nothing listening, DNS, reset before a
 *   response) are counted across all requests; after `connectionFailureBudget` (default 3) in
 *   a row with no success in between, every request fails at once with reason `unreachable`
 *   and a message naming the endpoint, which stops the run (a closed port exits within
 *   seconds instead of retrying every seed 7 times).
 * - Per-request timeout: `requestTimeoutMs` covers the whole call (headers and body).
 * - Transport: node:http with a keep-alive agent of `concurrency` sockets under the SDK
 *   (internal/http-fetch.ts; `transport: 'fetch'` for Node's fetch), measured lighter per
 *   request at hundreds in flight.
 * - Usage: every answer's token usage goes into the ledger; before each request the ledger's
 *   cost cap is checked (`CostCapReached` stops the run cleanly).
 * - The API key is read from the environment variable named by `apiKeyEnv` and never appears
 *   in errors: messages are redacted with the key before they leave this module.
 */
import { redactText, Semaphore, secretValuesFromEnv, type TokenUsage } from '@dv/core';
import OpenAI from 'openai';
import { backoffDelay, retryAfterMs, sleep } from '../internal/backoff.js';
import { createHttpFetch } from '../internal/http-fetch.js';
import type { UsageLedger } from '../usage-ledger.js';
import {
  type BackendAnswer,
  BackendError,
  type ChatRequest,
  type ChatResult,
  type SynthesisBackend,
  type SynthesisTask,
} from './synthesis-backend.js';

export interface OpenAIChatOptions {
  baseURLs: string[];
  model: string;
  apiKeyEnv?: string;
  env?: NodeJS.ProcessEnv;
  temperature?: number;
  maxTokens?: number;
  concurrency?: number;
  requestTimeoutMs?: number;
  maxRetries?: number;
  /** Backoff base and ceiling (ms). */
  retryBaseMs?: number;
  retryMaxMs?: number;
  ledger?: UsageLedger;
  /** Called before each retry (for logs); messages are already redacted. */
  onRetry?: (info: { attempt: number; reason: string; delayMs: number; endpoint: string }) => void;
  random?: () => number;
  /** Consecutive connection failures (over all requests) before the endpoint is given up. */
  connectionFailureBudget?: number;
  /**
   * HTTP under the SDK: `node-http` (default) is node:http with a keep-alive agent of
   * `concurrency` sockets (internal/http-fetch.ts, lighter per request); `fetch` is Node's
   * built-in fetch, the SDK's own default.
   */
  transport?: 'node-http' | 'fetch';
}

const RETRYABLE_STATUS = new Set([408, 409, 425, 429, 500, 502, 503, 504]);

export function createOpenAIChatBackend(options: OpenAIChatOptions): SynthesisBackend & {
  readonly inFlight: number;
} {
  if (options.baseURLs.length === 0) throw new Error('the openai backend needs at least one base URL');
  const env = options.env ?? process.env;
  const keyName = options.apiKeyEnv ?? 'OPENAI_API_KEY';
  const apiKey = env[keyName] || 'EMPTY'; // local servers (vLLM) accept any key
  const secrets = [...new Set([...(apiKey !== 'EMPTY' ? [apiKey] : []), ...secretValuesFromEnv(env)])].sort(
    (a, b) => b.length - a.length,
  );
  const clean = (s: string) => redactText(s, secrets);
  const timeoutMs = options.requestTimeoutMs ?? 120_000;
  const concurrency = options.concurrency ?? 16;
  // One socket per request in flight, reused across requests (keep-alive); shared by the endpoints.
  const transport = options.transport === 'fetch' ? undefined : createHttpFetch({ maxSockets: concurrency });
  const clients = options.baseURLs.map(
    (baseURL) =>
      new OpenAI({
        apiKey,
        baseURL,
        maxRetries: 0,
        timeout: timeoutMs,
        ...(transport ? { fetch: transport.fetch } : {}),
      }),
  );
  const sem = new Semaphore(concurrency);
  const maxRetries = options.maxRetries ?? 6;
  const backoff = {
    baseMs: options.retryBaseMs ?? 500,
    maxMs: options.retryMaxMs ?? 30_000,
    random: options.random,
  };
  let next = 0;
  const failureBudget = options.connectionFailureBudget ?? 3;
  let consecutiveConnectionFailures = 0;
  let unreachable: BackendError | null = null;

  async function once(
    client: OpenAI,
    req: ChatRequest,
    signal?: AbortSignal,
  ): Promise<{ text: string | null; usage: TokenUsage }> {
    const timer = new AbortController();
    const t = setTimeout(() => timer.abort(new Error('timeout')), timeoutMs);
    const onAbort = () => timer.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const res = await client.chat.completions.create(
        {
          model: req.model ?? options.model,
          messages: req.messages,
          ...((req.temperature ?? options.temperature) !== undefined
            ? { temperature: req.temperature ?? options.temperature }
            : {}),
          ...((req.maxTokens ?? options.maxTokens) !== undefined
            ? { max_tokens: req.maxTokens ?? options.maxTokens }
            : {}),
        },
        { signal: timer.signal, timeout: timeoutMs },
      );
      if (!res || !Array.isArray(res.choices))
        throw new BackendError('malformed response body', 'malformed-body');
      const u = res.usage;
      return {
        text: res.choices[0]?.message?.content ?? null,
        usage: {
          promptTokens: u?.prompt_tokens ?? 0,
          completionTokens: u?.completion_tokens ?? 0,
          totalTokens: u?.total_tokens ?? (u?.prompt_tokens ?? 0) + (u?.completion_tokens ?? 0),
        },
      };
    } catch (err) {
      if (timer.signal.aborted && !signal?.aborted)
        throw new BackendError(`no answer within ${timeoutMs} ms`, 'timeout');
      throw err;
    } finally {
      clearTimeout(t);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** The low-level cause of a connection error (`connect ECONNREFUSED 127.0.0.1:9`), if any. */
  function connectionCause(err: unknown): string {
    let e: unknown = err;
    for (let depth = 0; depth < 4 && e; depth++) {
      const code = (e as { code?: string }).code;
      const msg = (e as Error).message;
      if (code && msg) return msg;
      e = (e as { cause?: unknown }).cause;
    }
    return (err as Error).message ?? String(err);
  }

  /** Classifies an error: [reason, retryable, retry-after ms]. */
  function classify(err: unknown): [string, boolean, number | undefined] {
    if (err instanceof BackendError) return [err.reason, err.reason !== 'cost-cap', undefined];
    if (err instanceof OpenAI.APIConnectionTimeoutError) return ['timeout', true, undefined];
    if (err instanceof OpenAI.APIUserAbortError) return ['aborted', false, undefined];
    if (err instanceof OpenAI.APIConnectionError) return ['connection', true, undefined];
    if (err instanceof OpenAI.APIError && typeof err.status === 'number') {
      const status = err.status;
      return [`http-${status}`, RETRYABLE_STATUS.has(status), retryAfterMs(err.headers ?? undefined)];
    }
    // Body cut short (undici "terminated"), invalid JSON, socket reset: transport trouble.
    return ['transport', true, undefined];
  }

  async function chat(req: ChatRequest, signal?: AbortSignal): Promise<ChatResult> {
    const release = await sem.acquire();
    try {
      let attempt = 0;
      for (;;) {
        options.ledger?.check();
        if (unreachable) throw unreachable;
        const i = next++ % clients.length;
        try {
          const r = await once(clients[i]!, req, signal);
          consecutiveConnectionFailures = 0;
          options.ledger?.add(r.usage);
          return { ...r, attempts: attempt + 1 };
        } catch (err) {
          const [reason, retryable, after] = classify(err);
          const message = clean((err as Error).message ?? String(err));
          if (reason === 'connection') {
            consecutiveConnectionFailures++;
            if (consecutiveConnectionFailures >= failureBudget && !unreachable) {
              const cause = clean(connectionCause(err));
              unreachable = new BackendError(
                `cannot reach ${options.baseURLs.join(', ')}: ${consecutiveConnectionFailures} connection failures in a row (${cause})`,
                'unreachable',
                attempt + 1,
              );
            }
            if (unreachable) throw unreachable;
          } else {
            consecutiveConnectionFailures = 0; // something answered, even if badly
          }
          if (!retryable || attempt >= maxRetries || signal?.aborted)
            throw new BackendError(
              `${reason}: ${message} (after ${attempt + 1} attempts)`,
              reason,
              attempt + 1,
            );
          const delayMs = backoffDelay(attempt, backoff, after);
          options.onRetry?.({ attempt: attempt + 1, reason, delayMs, endpoint: options.baseURLs[i]! });
          await sleep(delayMs, signal);
          attempt++;
        }
      }
    } finally {
      release();
    }
  }

  return {
    name: 'openai',
    model: options.model,
    stochastic: true,
    get inFlight() {
      return sem.inFlight;
    },
    chat,
    async synthesize(task: SynthesisTask, signal?: AbortSignal): Promise<BackendAnswer> {
      const r = await chat(
        {
          messages: task.messages,
          model: task.model,
          temperature: task.temperature,
          maxTokens: task.maxTokens,
        },
        signal,
      );
      return { raw: r.text, usage: r.usage, attempts: r.attempts };
    },
  };
}
