/**
 * Content hashing for cache keys: SHA-256 over a canonical JSON form (object keys sorted,
 * `undefined` members dropped), so equal content gives the same key on every machine
 * regardless of key order.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[k];
      if (v !== undefined) out[k] = sortKeys(v);
    }
    return out;
  }
  return value;
}

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** SHA-256 hex of the canonical JSON of `value`; `length` truncates for shorter keys. */
export function contentHash(value: unknown, length = 64): string {
  return sha256(canonicalJson(value)).slice(0, length);
}

export async function hashFile(path: string): Promise<{ sha256: string; bytes: number }> {
  const h = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path)) {
    h.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { sha256: h.digest('hex'), bytes };
}
