/**
 * On-disk cache of corpus embeddings, keyed by content: SHA-256 over the encoder's identity
 * (name, dim, settings, formatter settings) and every formatted text in order. The same
 * corpus under the same model and prompts is encoded once; any change to a text, a prompt or
 * the model gives a new key. Files: `<dir>/<key>.f32` (row-major little-endian float32) and
 * `<key>.json` (rows, dim, encoder name), both written atomically.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson, writeBytesAtomic, writeJsonAtomic } from '@dv/core';
import type { Encoder } from '../encoders/encoder.js';

export function embeddingCacheKey(
  encoder: Encoder,
  kind: 'query' | 'document',
  texts: readonly string[],
): string {
  const h = createHash('sha256');
  h.update(
    canonicalJson({
      name: encoder.name,
      dim: encoder.dim,
      settings: encoder.settings,
      formatter: encoder.formatter,
      kind,
      n: texts.length,
    }),
  );
  for (const t of texts) {
    h.update('\u0000');
    h.update(t);
  }
  return h.digest('hex');
}

export interface CacheStats {
  hits: number;
  misses: number;
}

export class EmbeddingCache {
  readonly stats: CacheStats = { hits: 0, misses: 0 };
  constructor(readonly dir: string) {}

  /** Document embeddings of `texts` under `encoder`, from the cache or encoded and stored. */
  async documents(encoder: Encoder, texts: readonly string[]): Promise<Float32Array> {
    const key = embeddingCacheKey(encoder, 'document', texts);
    const bin = join(this.dir, `${key}.f32`);
    if (existsSync(bin)) {
      const buf = readFileSync(bin);
      if (buf.byteLength === texts.length * encoder.dim * 4) {
        this.stats.hits++;
        const out = new Float32Array(texts.length * encoder.dim);
        new Uint8Array(out.buffer).set(buf);
        return out;
      }
    }
    this.stats.misses++;
    const m = await encoder.encodeDocuments(texts);
    writeBytesAtomic(bin, new Uint8Array(m.buffer, m.byteOffset, m.byteLength));
    await writeJsonAtomic(join(this.dir, `${key}.json`), {
      rows: texts.length,
      dim: encoder.dim,
      encoder: encoder.name,
      createdAt: new Date().toISOString(),
    });
    return m;
  }
}
