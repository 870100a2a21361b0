import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultFormatterSettings } from '@dv/core';
import { describe, expect, it } from 'vitest';
import type { Encoder } from '../encoders/encoder.js';
import { cachedMatrixProblem, EmbeddingCache, embeddingCacheKey } from './embedding-cache.js';

/** A 2-d encoder: (length, count of 'a'); counts its calls. */
function lengthEncoder(): Encoder & { calls: number } {
  const e = {
    name: 'len',
    dim: 2,
    formatter: defaultFormatterSettings,
    settings: {},
    calls: 0,
    async encodeQueries(t: readonly string[]) {
      return Float32Array.from(t.flatMap((x) => [x.length, [...x].filter((c) => c === 'a').length]));
    },
    async encodeDocuments(t: readonly string[]) {
      e.calls++;
      return e.encodeQueries(t);
    },
  };
  return e;
}

describe('EmbeddingCache', () => {
  const texts = ['a', 'bb', 'aca'];
  const want = Float32Array.from([1, 1, 2, 0, 3, 2]);

  // issue 25: a NaN written into the cache was served as a vector (p-MRR 0.5 -> 0.0), silently
  it('a cached NaN / Inf, a truncated file or a changed file is a miss, encoded again, with a note', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dv-emb-cache-'));
    const enc = lengthEncoder();
    const notes: string[] = [];
    const cache = new EmbeddingCache(dir, { onNote: (l) => notes.push(l) });
    expect(await cache.documents(enc, texts)).toEqual(want);
    const bin = join(dir, `${embeddingCacheKey(enc, 'document', texts)}.f32`);
    expect(await cache.documents(enc, texts)).toEqual(want);
    expect([enc.calls, cache.stats.hits, notes.length]).toEqual([1, 1, 0]);

    const poison = (k: number, v: number) => {
      const m = new Float32Array(Uint8Array.from(readFileSync(bin)).buffer);
      m[k] = v;
      writeFileSync(bin, new Uint8Array(m.buffer));
    };
    poison(3, Number.NaN);
    expect(await cache.documents(enc, texts)).toEqual(want);
    expect(notes.at(-1)).toMatch(new RegExp(`^embedding cache ${bin}: sha256 [0-9a-f]{12} differs`));
    // an entry whose sidecar has no digest (older caches) is still checked for finite values
    poison(4, Number.POSITIVE_INFINITY);
    writeFileSync(bin.replace(/\.f32$/, '.json'), '{"rows":3,"dim":2}');
    expect(await cache.documents(enc, texts)).toEqual(want);
    expect(notes.at(-1)).toBe(
      `embedding cache ${bin}: row 2 holds a non-finite value (Infinity); not used, encoding again`,
    );
    writeFileSync(bin, readFileSync(bin).subarray(0, 20));
    expect(await cache.documents(enc, texts)).toEqual(want);
    expect(notes.at(-1)).toContain('20 bytes, expected 24 (3 rows x dim 2)');
    expect([enc.calls, cache.stats.rejected]).toEqual([4, 3]);
    // replaced by a good entry: a hit again
    expect(await cache.documents(enc, texts)).toEqual(want);
    expect(enc.calls).toBe(4);
  });

  it('cachedMatrixProblem checks size, recorded dim and digest, and finiteness', () => {
    const bytes = new Uint8Array(Float32Array.from([1, 2, Number.NaN, 4]).buffer);
    expect(cachedMatrixProblem(bytes, 2, 2)).toBe('row 1 holds a non-finite value (NaN)');
    expect(cachedMatrixProblem(bytes, 2, 2, { dim: 4 })).toBe("recorded dim 4, the encoder's is 2");
    expect(cachedMatrixProblem(bytes.subarray(4), 2, 2)).toMatch(/^12 bytes, expected 16/);
    const ok = new Uint8Array(Float32Array.from([1, 2, 3, 4]).buffer);
    expect(cachedMatrixProblem(ok, 2, 2)).toBeNull();
  });
});
