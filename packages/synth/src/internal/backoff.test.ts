import { describe, expect, it } from 'vitest';
import { backoffDelay, retryAfterMs } from './backoff.js';

const headers = (h: Record<string, string>) => ({ get: (k: string) => h[k] ?? null });

describe('backoff', () => {
  it('reads Retry-After as seconds, HTTP date or retry-after-ms', () => {
    expect(retryAfterMs(headers({ 'retry-after': '2' }))).toBe(2000);
    expect(retryAfterMs(headers({ 'retry-after-ms': '150' }))).toBe(150);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs(headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), now)).toBe(3000);
    expect(retryAfterMs(headers({}))).toBeUndefined();
  });
  it('grows exponentially with full jitter, capped, and never undercuts Retry-After', () => {
    const o = { baseMs: 100, maxMs: 1000 };
    expect(backoffDelay(0, { ...o, random: () => 0.999 })).toBeCloseTo(99.9);
    expect(backoffDelay(3, { ...o, random: () => 0.5 })).toBe(400);
    expect(backoffDelay(10, { ...o, random: () => 0.5 })).toBe(500);
    expect(backoffDelay(0, { ...o, random: () => 0 }, 2000)).toBe(2000);
    expect(backoffDelay(0, { ...o, random: () => 1 }, 2000)).toBe(2200);
  });
});
