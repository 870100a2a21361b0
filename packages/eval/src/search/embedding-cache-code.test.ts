/**
 * The embedding caches keyed by encoder code (issue 25): the corpus embedding cache
 * (`EmbeddingCache`) and the OpenAI encoder's per-text log both hold the code digest of the
 * encoder's code in their keys (`encoderCode`); a changed digest (injected with `code`, no
 * source edited) is a miss that is encoded / asked for again, an unchanged one a hit.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { clearCodeDigestMemo, codeDigest, defaultFormatterSettings, type Encoder } from '@dv/core';
import { tmpDir } from '@dv/core/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encoderCode } from '../encoders/encoder-code.js';
import { OpenAiEmbeddingsEncoder } from '../encoders/openai-embeddings.js';
import { EmbeddingCache, embeddingCacheKey } from './embedding-cache.js';

function countingEncoder(backend: string): Encoder & { calls: number } {
  const e = {
    name: 'count',
    dim: 2,
    formatter: defaultFormatterSettings,
    settings: { backend },
    calls: 0,
    async encodeQueries(t: readonly string[]) {
      return Float32Array.from(t.flatMap((x) => [x.length, 1]));
    },
    async encodeDocuments(t: readonly string[]) {
      e.calls++;
      return e.encodeQueries(t);
    },
  };
  return e;
}

const texts = ['a', 'bb', 'ccc'];

describe('EmbeddingCache keys hold the encoder code digest', () => {
  it('the key follows the ONNX encoder code digest (real), and a changed digest misses', async () => {
    const enc = countingEncoder('onnxruntime-node');
    clearCodeDigestMemo();
    const real = codeDigest(encoderCode(enc), import.meta.url);
    expect(real.folders).toEqual(['src/encoders/onnx-encoder.ts (imports)']);
    const label = '@dv/eval:encoder(onnxruntime-node)';
    expect(embeddingCacheKey(enc, 'document', texts)).toBe(
      embeddingCacheKey(enc, 'document', texts, { [label]: real.digest }),
    );
    expect(embeddingCacheKey(enc, 'document', texts, { [label]: 'x' })).not.toBe(
      embeddingCacheKey(enc, 'document', texts),
    );

    const dir = tmpDir('dv-emb-code-');
    await new EmbeddingCache(dir, { code: { [label]: 'a' } }).documents(enc, texts);
    await new EmbeddingCache(dir, { code: { [label]: 'a' } }).documents(enc, texts);
    expect(enc.calls).toBe(1); // the same code: a hit
    const other = new EmbeddingCache(dir, { code: { [label]: 'b' } });
    await other.documents(enc, texts);
    expect(enc.calls).toBe(2); // other code: a miss, encoded again
    expect(other.stats).toMatchObject({ hits: 0, misses: 1 });
  });
});

describe('the OpenAI encoder log keys hold the request-building code digest', () => {
  let server: Server;
  let baseURL: string;
  let requests = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        requests++;
        const q = JSON.parse(body) as { input: string[]; model: string; encoding_format?: string };
        const data = q.input.map((t, index) => {
          const v = [t.length, 1, 0, 0];
          const embedding =
            q.encoding_format === 'base64' ? Buffer.from(new Float32Array(v).buffer).toString('base64') : v;
          return { object: 'embedding', index, embedding };
        });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            object: 'list',
            model: q.model,
            data,
            usage: { prompt_tokens: 1, total_tokens: 1 },
          }),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('logged vectors are reused under the same code and asked for again under other code', async () => {
    const file = join(tmpDir('dv-oai-code-'), 'cache.jsonl');
    const make = (code?: Record<string, string>) =>
      OpenAiEmbeddingsEncoder.create({
        model: 'm',
        baseURL,
        apiKey: 'k',
        dimensions: 4,
        cacheFile: file,
        ...(code ? { code } : {}),
      });
    const label = '@dv/eval:encoder(openai-embeddings)';
    clearCodeDigestMemo();
    const real = codeDigest(
      encoderCode({ settings: { backend: 'openai-embeddings' } }),
      import.meta.url,
    ).digest;
    const e1 = await make();
    await e1.encodeDocuments(texts);
    await e1.close();
    const sent = requests;
    // the injected real digest is the default's: a hit, nothing sent
    const e2 = await make({ [label]: real });
    await e2.encodeDocuments(texts);
    await e2.close();
    expect(requests).toBe(sent);
    const e3 = await make({ [label]: 'other' });
    await e3.encodeDocuments(texts);
    await e3.close();
    expect(requests).toBe(sent + 1);
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(6);
  });
});
