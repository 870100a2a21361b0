// Retry delays: exponential backoff with full jitter, floored by the server's Retry-After.

export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
  random?: () => number;
}

/** Milliseconds a `Retry-After` / `retry-after-ms` header asks for (seconds or HTTP date); undefined if absent. */
export function retryAfterMs(
  headers: { get(name: string): string | null } | undefined,
  now = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const ra = headers.get('retry-after');
  if (ra === null || ra.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(ra.trim())) return Math.max(0, Number(ra) * 1000);
  const date = Date.parse(ra);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/**
 * Delay before retry number `attempt` (0-based): uniform in [0, min(max, base * 2^attempt)]
 * ("full jitter"), and never shorter than the server's Retry-After (plus up to 10% jitter so
 * that many workers told the same time do not return in lockstep).
 */
export function backoffDelay(attempt: number, options: BackoffOptions, retryAfter?: number): number {
  const random = options.random ?? Math.random;
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** attempt);
  const jittered = random() * ceiling;
  if (retryAfter === undefined) return jittered;
  return Math.max(jittered, retryAfter * (1 + 0.1 * random()));
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
