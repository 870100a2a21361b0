import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiEmbeddingsEncoder } from './openai-embeddings.js';

/** 4-d vector of a text: [length, #a, #b, 1] (before normalisation). */
const vec = (t: string) => [
  t.length,
  [...t].filter((c) => c === 'a').length,
  [...t].filter((c) => c === 'b').length,
  1,
];

interface Log {
  batches: number[];
  failuresLeft: number;
  auth: string[];
}

/** A loopback server speaking the OpenAI embeddings API (float and base64 encodings). */
function startServer(log: Log): Promise<Server> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
        res.writeHead(404).end();
        return;
      }
      log.auth.push(String(req.headers.authorization));
      if (log.failuresLeft > 0) {
        log.failuresLeft--;
        res.writeHead(log.failuresLeft % 2 ? 429 : 500, {
          'content-type': 'application/json',
          'retry-after-ms': '5',
        });
        res.end(JSON.stringify({ error: { message: 'try again' } }));
        return;
      }
      const q = JSON.parse(body) as { input: string[]; model: string; encoding_format?: string };
      log.batches.push(q.input.length);
      const data = q.input.map((t, index) => {
        const v = vec(t);
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
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('OpenAI-compatible embeddings encoder (loopback server)', () => {
  const log: Log = { batches: [], failuresLeft: 0, auth: [] };
  let server: Server;
  let baseURL: string;
  beforeAll(async () => {
    server = await startServer(log);
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('learns dim, batches, normalises, keeps order and caches repeated texts', async () => {
    log.batches.length = 0;
    const e = await OpenAiEmbeddingsEncoder.create({ model: 'm', baseURL, apiKey: 'sk-test', batchSize: 2 });
    expect(e.dim).toBe(4);
    const texts = ['aab', 'b', 'abc', 'aab', 'bbbb'];
    const m = await e.encodeDocuments(texts);
    expect(m.length).toBe(5 * 4);
    const want = vec('aab');
    const n = Math.hypot(...want);
    expect([...m.slice(0, 4)].map((x) => Number(x.toFixed(6)))).toEqual(
      want.map((x) => Number((x / n).toFixed(6))),
    );
    expect([...m.slice(12, 16)]).toEqual([...m.slice(0, 4)]); // the repeat
    // probe (1) + 4 distinct texts in batches of 2.
    expect(log.batches).toEqual([1, 2, 2]);
    await e.encodeQueries(['b', 'aab']);
    expect(log.batches).toEqual([1, 2, 2]); // all cached
    expect(log.auth.at(-1)).toBe('Bearer sk-test');
  });

  it('retries 429 and 5xx answers', async () => {
    log.failuresLeft = 2;
    const e = await OpenAiEmbeddingsEncoder.create({
      model: 'm',
      baseURL,
      apiKey: 'k',
      dimensions: 4,
      maxRetries: 3,
    });
    const m = await e.encodeQueries(['ab']);
    expect(m.length).toBe(4);
    expect(log.failuresLeft).toBe(0);
  });

  it('gives up after maxRetries with the server message', async () => {
    log.failuresLeft = 5;
    const e = await OpenAiEmbeddingsEncoder.create({
      model: 'm',
      baseURL,
      apiKey: 'k',
      dimensions: 4,
      maxRetries: 1,
    });
    await expect(e.encodeQueries(['zz'])).rejects.toThrow(/try again/);
    log.failuresLeft = 0;
  });

  it('persists vectors in a cache log that a new encoder reuses', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'dv-oai-')), 'cache.jsonl');
    const e = await OpenAiEmbeddingsEncoder.create({
      model: 'm',
      baseURL,
      apiKey: 'k',
      dimensions: 4,
      cacheFile: file,
    });
    const a = await e.encodeDocuments(['persist me', 'and me']);
    await e.close();
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(2);
    const before = log.batches.length;
    const e2 = await OpenAiEmbeddingsEncoder.create({
      model: 'm',
      baseURL,
      apiKey: 'k',
      dimensions: 4,
      cacheFile: file,
    });
    expect(await e2.encodeDocuments(['persist me', 'and me'])).toEqual(a);
    expect(log.batches.length).toBe(before);
    await e2.close();
  });
});
