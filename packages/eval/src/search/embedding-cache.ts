/**
 * On-disk cache of corpus embeddings, keyed by content through core's keyed-resume contract
 * (`cacheKey`, kind 'embedding-cache:<query|document>'): the encoder's identity (name, dim,
 * settings with the model digests, formatter settings) as slice, the SHA-256 of every formatted
 * text in order as input, and the code digest of the encoder's code (`encoderCode`: the ONNX
 * encoder's or the OpenAI request-building file's imports) as code. The same corpus under the
 * same model, prompts and encoder code is encoded once; any change to a text, a prompt, the
 * model or that code gives a new key (a miss: encoded again; the old entry stays unused). Files: `<dir>/<key>.f32` (row-major little-endian float32) and
 * `<key>.json` (rows, dim, encoder name, sha256 of the `.f32`), both written atomically.
 * An entry is used only when it is whole and sane: the right size for rows x dim, the sha256
 * its sidecar recorded, and every value finite. Anything else (a truncated file, a NaN written
 * by hand or by a crashed writer: issue 25, where a NaN turned p-MRR 0.5 into 0.0 without a
 * word) is a miss that is encoded again and replaced, with a note naming the file.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheKey, writeBytesAtomic, writeJsonAtomic } from '@dv/core';
import type { Encoder } from '../encoders/encoder.js';
import { encoderCodeDigest } from '../encoders/encoder-code.js';

/**
 * The cache key of `texts` under `encoder` (see the file comment); `code` replaces the code
 * digest taken now (tests and tools).
 */
export function embeddingCacheKey(
  encoder: Encoder,
  kind: 'query' | 'document',
  texts: readonly string[],
  code?: Readonly<Record<string, string>>,
): string {
  const h = createHash('sha256');
  h.update(String(texts.length));
  for (const t of texts) {
    h.update('\u0000');
    h.update(t);
  }
  return cacheKey({
    kind: `embedding-cache:${kind}`,
    slice: { name: encoder.name, dim: encoder.dim, settings: encoder.settings, formatter: encoder.formatter },
    inputs: { texts: h.digest('hex') },
    code: code ?? encoderCodeDigest(encoder),
  }).key;
}

export interface CacheStats {
  hits: number;
  misses: number;
  /** Entries found but not used (wrong size or digest, non-finite values): encoded again. */
  rejected: number;
}

export interface EmbeddingCacheOptions {
  /** Told why an entry was not used (one line naming the file). */
  onNote?: (line: string) => void;
  /** The keys' code part instead of the encoder's code digest taken now (tests and tools). */
  code?: Readonly<Record<string, string>>;
}

/** Why a cached matrix cannot be used, or null when it is whole and finite. */
export function cachedMatrixProblem(
  buf: Uint8Array,
  rows: number,
  dim: number,
  recorded?: { sha256?: unknown; dim?: unknown },
): string | null {
  if (buf.byteLength !== rows * dim * 4)
    return `${buf.byteLength} bytes, expected ${rows * dim * 4} (${rows} rows x dim ${dim})`;
  if (recorded?.dim !== undefined && recorded.dim !== dim)
    return `recorded dim ${String(recorded.dim)}, the encoder's is ${dim}`;
  if (typeof recorded?.sha256 === 'string') {
    const got = createHash('sha256').update(buf).digest('hex');
    if (got !== recorded.sha256)
      return `sha256 ${got.slice(0, 12)} differs from the recorded ${recorded.sha256.slice(0, 12)}`;
  }
  const m = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
  for (let i = 0; i < m.length; i++)
    if (!Number.isFinite(m[i]!)) return `row ${Math.floor(i / dim)} holds a non-finite value (${m[i]})`;
  return null;
}

export class EmbeddingCache {
  readonly stats: CacheStats = { hits: 0, misses: 0, rejected: 0 };
  constructor(
    readonly dir: string,
    private readonly options: EmbeddingCacheOptions = {},
  ) {}

  /** Document embeddings of `texts` under `encoder`, from the cache or encoded and stored. */
  async documents(encoder: Encoder, texts: readonly string[]): Promise<Float32Array> {
    const key = embeddingCacheKey(encoder, 'document', texts, this.options.code);
    const bin = join(this.dir, `${key}.f32`);
    const sidecar = join(this.dir, `${key}.json`);
    if (existsSync(bin)) {
      const buf = readFileSync(bin);
      let recorded: { sha256?: unknown; dim?: unknown } | undefined;
      let problem: string | null = null;
      try {
        recorded = existsSync(sidecar) ? JSON.parse(readFileSync(sidecar, 'utf8')) : undefined;
      } catch {
        problem = `its sidecar ${sidecar} is not JSON`;
      }
      problem ??= cachedMatrixProblem(buf, texts.length, encoder.dim, recorded);
      if (problem === null) {
        this.stats.hits++;
        const out = new Float32Array(texts.length * encoder.dim);
        new Uint8Array(out.buffer).set(buf);
        return out;
      }
      this.stats.rejected++;
      this.options.onNote?.(`embedding cache ${bin}: ${problem}; not used, encoding again`);
    }
    this.stats.misses++;
    const m = await encoder.encodeDocuments(texts);
    const bytes = new Uint8Array(m.buffer, m.byteOffset, m.byteLength);
    writeBytesAtomic(bin, bytes);
    await writeJsonAtomic(sidecar, {
      rows: texts.length,
      dim: encoder.dim,
      encoder: encoder.name,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      createdAt: new Date().toISOString(),
    });
    return m;
  }
}
