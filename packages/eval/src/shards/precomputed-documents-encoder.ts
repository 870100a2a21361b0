/**
 * An `Encoder` whose documents come from merged embedding shards (`readEmbeddingShards`) and
 * whose queries come from the model that made them: `dv eval run --embeddings DIR`. Documents
 * are looked up by the SHA-256 of their formatted text, so a benchmark's corpus maps onto the
 * stored rows whatever its order, and a document that was not encoded (or was formatted
 * differently) is an error rather than a silently wrong vector.
 *
 * The query encoder must have the stored identity (name, dim, settings incl. model digest,
 * formatter); otherwise queries and documents would live in different spaces. Mismatches are
 * `DataError`s naming the embeddings folder.
 */
import { dirname } from 'node:path';
import { canonicalJson, DataError, type FormatterSettings, sha256 } from '@dv/core';
import type { Encoder } from '../encoders/encoder.js';
import { encoderIdentity } from './encode-corpus-shard.js';
import type { EmbeddingStore } from './read-embedding-shards.js';

export class PrecomputedDocumentsEncoder implements Encoder {
  private readonly rowOf = new Map<string, number>();
  /** The embeddings folder, for errors. */
  private readonly where: string;

  constructor(
    private readonly queries: Encoder,
    private readonly store: EmbeddingStore,
  ) {
    this.where = store.manifests.length ? dirname(store.manifests[0]!) : 'embeddings';
    const want = canonicalJson(store.encoder);
    const got = canonicalJson(encoderIdentity(queries));
    if (want !== got)
      throw new DataError(
        `the embeddings were made by ${store.encoder.name} with ${canonicalJson({ settings: store.encoder.settings, formatter: store.encoder.formatter })}; ` +
          `the model given is ${queries.name} with ${canonicalJson({ settings: queries.settings, formatter: queries.formatter })}`,
        this.where,
      );
    store.textSha256.forEach((h, i) => {
      if (!this.rowOf.has(h)) this.rowOf.set(h, i);
    });
  }

  get name(): string {
    return this.queries.name;
  }
  get dim(): number {
    return this.queries.dim;
  }
  get formatter(): FormatterSettings {
    return this.queries.formatter;
  }
  get settings(): Readonly<Record<string, unknown>> {
    return this.queries.settings;
  }

  encodeQueries(texts: readonly string[]): Promise<Float32Array> {
    return this.queries.encodeQueries(texts);
  }

  async encodeDocuments(texts: readonly string[]): Promise<Float32Array> {
    const dim = this.store.dim;
    const out = new Float32Array(texts.length * dim);
    texts.forEach((t, i) => {
      const row = this.rowOf.get(sha256(t));
      if (row === undefined)
        throw new DataError(
          `a document is not in the embeddings (${this.store.ids.length} rows from ${this.store.shards} shards): ` +
            `encode this benchmark's corpus with the same formatter. Text: ${JSON.stringify(t.slice(0, 80))}`,
          this.where,
        );
      out.set(this.store.matrix.subarray(row * dim, (row + 1) * dim), i * dim);
    });
    return out;
  }

  close(): Promise<void> {
    return this.queries.close?.() ?? Promise.resolve();
  }
}
