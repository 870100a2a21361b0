import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultFormatterSettings } from '@dv/core';
import { describe, expect, it } from 'vitest';
import type { Encoder } from '../encoders/encoder.js';
import { EmbeddingCache, embeddingCacheKey } from './embedding-cache.js';
import { DenseRanker } from './ranker.js';

/** A 3-d bag-of-letters encoder: counts of 'a', 'b', 'c'. Counts calls. */
function letterEncoder(prefix = ''): Encoder & { calls: number } {
  const enc = (texts: readonly string[]) => {
    const m = new Float32Array(texts.length * 3);
    texts.forEach((t, i) => {
      for (const ch of t) {
        const j = 'abc'.indexOf(ch);
        if (j >= 0) m[i * 3 + j]! += 1;
      }
    });
    return m;
  };
  const e = {
    name: 'letters',
    dim: 3,
    formatter: { ...defaultFormatterSettings, queryPrefix: prefix },
    settings: { version: 1 },
    calls: 0,
    async encodeQueries(t: readonly string[]) {
      return enc(t);
    },
    async encodeDocuments(t: readonly string[]) {
      e.calls++;
      return enc(t);
    },
  };
  return e;
}

const corpus = [
  { id: 'd1', text: 'aaa' },
  { id: 'd2', text: 'bb' },
  { id: 'd3', text: 'abc' },
];

describe('DenseRanker', () => {
  it('retrieves top-k by inner product and reranks candidates', async () => {
    const r = new DenseRanker(letterEncoder());
    const run = await r.retrieve([{ id: 'q', text: 'a' }], corpus, 2);
    expect([...run.get('q')!]).toEqual([
      ['d1', 3],
      ['d3', 1],
    ]);
    const rr = await r.rerank([{ id: 'q', text: 'b' }], corpus, new Map([['q', ['d1', 'd2', 'missing']]]));
    expect(rr.get('q')).toEqual(
      new Map([
        ['d1', 0],
        ['d2', 2],
      ]),
    );
  });

  it('caches corpus embeddings on disk by content hash', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dv-emb-'));
    const enc = letterEncoder();
    const cache = new EmbeddingCache(dir);
    const r = new DenseRanker(enc, { cache });
    const a = await r.retrieve([{ id: 'q', text: 'a' }], corpus, 3);
    const b = await new DenseRanker(enc, { cache: new EmbeddingCache(dir) }).retrieve(
      [{ id: 'q', text: 'a' }],
      corpus,
      3,
    );
    expect(b).toEqual(a);
    expect(enc.calls).toBe(1);
    expect(readdirSync(dir).filter((f) => f.endsWith('.f32'))).toHaveLength(1);
    // A changed text, prompt or setting is a different key.
    const texts = corpus.map((d) => d.text);
    const k0 = embeddingCacheKey(enc, 'document', texts);
    expect(embeddingCacheKey(enc, 'document', [...texts.slice(0, 2), 'abd'])).not.toBe(k0);
    expect(embeddingCacheKey(letterEncoder('query: '), 'document', texts)).not.toBe(k0);
    expect(embeddingCacheKey({ ...enc, settings: { version: 2 } }, 'document', texts)).not.toBe(k0);
    expect(existsSync(join(dir, `${k0}.json`))).toBe(true);
  });

  it('reports encoding progress in chunks without changing the results', async () => {
    const seen: string[] = [];
    const plain = await new DenseRanker(letterEncoder()).retrieve([{ id: 'q', text: 'ab' }], corpus, 3);
    const r = new DenseRanker(letterEncoder(), {
      encodeChunk: 2,
      onEncode: (kind, done, total) => seen.push(`${kind} ${done}/${total}`),
    });
    expect(await r.retrieve([{ id: 'q', text: 'ab' }], corpus, 3)).toEqual(plain);
    expect(seen).toEqual(['documents 2/3', 'documents 3/3', 'queries 1/1']);
  });
});
