/**
 * Dense encoder over any OpenAI-compatible `/v1/embeddings` endpoint (OpenAI, vLLM, TEI,
 * Infinity...) through the official `openai` SDK.
 * - batched: `batchSize` texts per request, up to `concurrency` requests in flight;
 * - retried: the SDK's own retry (408/409/429/5xx and connection errors, exponential backoff
 *   honouring `retry-after`), `maxRetries` times;
 * - cached: every text's vector is kept by content key in memory and, with `cacheFile`, in an
 *   append-only JSONL log, so a rerun or a resumed run only asks for what it has not seen. The
 *   key is core's `cacheKey` (kind 'openai-embedding': model, dimensions, normalize as slice;
 *   the code digest of this file's imports, `encoderCode`, as code) with the text: vectors
 *   logged by other request-building code are misses, asked for again.
 * Vectors are L2-normalised when `normalize` (default true; OpenAI's are unit length already).
 * The API key comes from `apiKey` or the environment (`OPENAI_API_KEY`); local servers accept
 * any key. `dim` is learned from one probe request unless `dimensions` is given.
 */
import { existsSync } from 'node:fs';
import {
  cacheKey,
  contentHash,
  DataError,
  defaultFormatterSettings,
  type FormatterSettings,
  JsonlAppender,
  readJsonl,
  Semaphore,
} from '@dv/core';
import OpenAI from 'openai';
import { z } from 'zod';
import { l2Normalize } from '../search/exact-top-k.js';
import type { Encoder } from './encoder.js';
import { encoderCodeDigest } from './encoder-code.js';

export interface OpenAiEmbeddingsOptions {
  model: string;
  baseURL?: string;
  apiKey?: string;
  /** Request this many dimensions (models that support it); else learned by a probe. */
  dimensions?: number;
  batchSize?: number;
  concurrency?: number;
  maxRetries?: number;
  timeoutMs?: number;
  normalize?: boolean;
  formatter?: FormatterSettings;
  /** JSONL log of vectors by content key, appended as they arrive. */
  cacheFile?: string;
  /** The cache key's code part instead of this encoder's code digest (tests and tools). */
  code?: Readonly<Record<string, string>>;
}

const CacheLine = z.object({ key: z.string(), v: z.string() });

const toB64 = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
const fromB64 = (s: string) => {
  const b = Buffer.from(s, 'base64');
  const out = new Float32Array(b.byteLength / 4);
  new Uint8Array(out.buffer).set(b);
  return out;
};

export class OpenAiEmbeddingsEncoder implements Encoder {
  readonly name: string;
  readonly formatter: FormatterSettings;
  readonly requests = { sent: 0, texts: 0 };
  private readonly client: OpenAI;
  private readonly memory = new Map<string, Float32Array>();
  private appender: JsonlAppender<typeof CacheLine> | null = null;
  private _dim: number;
  /** The part of every text's cache key that is not the text (see the file comment). */
  private readonly keyBase: string;

  private constructor(private readonly options: OpenAiEmbeddingsOptions) {
    this.name = `openai:${options.model}`;
    this.keyBase = cacheKey({
      kind: 'openai-embedding',
      slice: {
        model: options.model,
        dimensions: options.dimensions ?? null,
        normalize: options.normalize ?? true,
      },
      code: options.code ?? encoderCodeDigest({ settings: { backend: 'openai-embeddings' } }),
    }).key;
    this.formatter = options.formatter ?? defaultFormatterSettings;
    this._dim = options.dimensions ?? 0;
    this.client = new OpenAI({
      apiKey: options.apiKey ?? process.env.OPENAI_API_KEY ?? 'no-key',
      baseURL: options.baseURL ?? process.env.OPENAI_BASE_URL,
      maxRetries: options.maxRetries ?? 5,
      timeout: options.timeoutMs ?? 120_000,
    });
  }

  /** Opens the cache log and learns `dim` (one probe request when `dimensions` is unset). */
  static async create(options: OpenAiEmbeddingsOptions): Promise<OpenAiEmbeddingsEncoder> {
    const e = new OpenAiEmbeddingsEncoder(options);
    if (options.cacheFile) {
      if (existsSync(options.cacheFile)) {
        for await (const line of readJsonl(options.cacheFile, CacheLine))
          e.memory.set(line.key, fromB64(line.v));
      }
      e.appender = new JsonlAppender(options.cacheFile, CacheLine);
    }
    if (!e._dim) {
      e.probing = true;
      try {
        e._dim = (await e.embed(['dimension probe']))[0]!.length;
      } finally {
        e.probing = false;
      }
    }
    return e;
  }

  get dim(): number {
    return this._dim;
  }

  get settings(): Readonly<Record<string, unknown>> {
    return {
      backend: 'openai-embeddings',
      model: this.options.model,
      dimensions: this.options.dimensions ?? null,
      normalize: this.options.normalize ?? true,
    };
  }

  private key(text: string): string {
    return contentHash({ base: this.keyBase, text }, 32);
  }

  /** True during the dimension probe (see `request`). */
  private probing = false;

  private async request(batch: string[]): Promise<Float32Array[]> {
    this.requests.sent++;
    this.requests.texts += batch.length;
    let res: Awaited<ReturnType<OpenAI['embeddings']['create']>>;
    try {
      res = await this.client.embeddings.create(
        {
          model: this.options.model,
          input: batch,
          ...(this.options.dimensions ? { dimensions: this.options.dimensions } : {}),
        },
        // the first request of a run learns whether the endpoint is there at all: one retry, not
        // five with backoff, so a closed port fails in about a second (issue 12: fail fast)
        this.probing ? { maxRetries: 1 } : undefined,
      );
    } catch (err) {
      // a remote failure (closed port, 401, 500, non-JSON body) is a failed run (exit 1), with the endpoint named
      const cause = (err as { cause?: { message?: string } }).cause?.message;
      throw new DataError(
        `embeddings request to ${this.client.baseURL} failed: ${(err as Error).message}${cause ? ` (${cause})` : ''}`,
      );
    }
    if (!res || !Array.isArray(res.data))
      throw new DataError(
        `embeddings endpoint ${this.client.baseURL} answered without a "data" array (not an OpenAI-compatible JSON body)`,
      );
    if (res.data.length !== batch.length)
      throw new Error(`embeddings endpoint returned ${res.data.length} vectors for ${batch.length} inputs`);
    const out: Float32Array[] = new Array(batch.length);
    for (const d of res.data) out[d.index] = Float32Array.from(d.embedding as number[]);
    return out;
  }

  /** Vectors for `texts`, from the cache or the endpoint. */
  private async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const keys = texts.map((t) => this.key(t));
    const todo: string[] = [];
    const todoKeys: string[] = [];
    const queued = new Set<string>();
    texts.forEach((t, i) => {
      const k = keys[i]!;
      if (!this.memory.has(k) && !queued.has(k)) {
        queued.add(k);
        todo.push(t);
        todoKeys.push(k);
      }
    });
    const size = this.options.batchSize ?? 64;
    const batches: number[] = [];
    for (let s = 0; s < todo.length; s += size) batches.push(s);
    await new Semaphore(this.options.concurrency ?? 4).map(batches, async (s) => {
      const vecs = await this.request(todo.slice(s, s + size));
      vecs.forEach((v, j) => {
        if (this.options.normalize ?? true) l2Normalize(v, v.length);
        const k = todoKeys[s + j]!;
        this.memory.set(k, v);
        this.appender?.append({ key: k, v: toB64(v) });
      });
    });
    return keys.map((k) => this.memory.get(k)!);
  }

  private async matrix(texts: readonly string[]): Promise<Float32Array> {
    const rows = await this.embed(texts);
    const out = new Float32Array(texts.length * this._dim);
    rows.forEach((r, i) => {
      if (r.length !== this._dim)
        throw new Error(`endpoint returned ${r.length} dimensions, expected ${this._dim}`);
      out.set(r, i * this._dim);
    });
    return out;
  }

  encodeQueries(texts: readonly string[]): Promise<Float32Array> {
    return this.matrix(texts);
  }

  encodeDocuments(texts: readonly string[]): Promise<Float32Array> {
    return this.matrix(texts);
  }

  async close(): Promise<void> {
    this.appender?.close();
    this.appender = null;
  }
}
