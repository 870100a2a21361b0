/**
 * Encodes shard `i/n` of a corpus with any dense `Encoder` and writes it as `.npy` + ids +
 * manifest (schema `EmbeddingShardInfo` in @dv/core), so that n machines can each encode one
 * shard of a large corpus and `readEmbeddingShards` merges them.
 *
 * Corpus: a JSONL of `Passage` records (`docid`, `title`, `text`; BEIR's `_id` is accepted too),
 * docids unique. Each document is formatted with the encoder's formatter (the one formatter of
 * @dv/core), then rows [start, end) of `shardRange` are encoded in calls of `batchSize` texts.
 * Batching is length-sorted, as sentence-transformers' `encode` does it: the corpus is cut into
 * windows of `sortWindowBatches` batches (default 16) from the start, each window's texts are
 * batched longest first (`lengthSortedOrder`, by formatted text length), and the vectors are
 * written back in corpus order. Shards are dealt whole windows (`shardRange` on the window
 * grid), so every batch of a sharded run is the batch of an unsharded one: merged shards stay
 * byte-identical. Padding then costs little (batches of near-equal lengths).
 * Files go to `out` atomically, the manifest last: a shard whose manifest exists is complete.
 * Re-running a finished shard with the same encoder and corpus does nothing (`skipped`) once
 * its files match the size and sha256 its manifest recorded; a file that is missing or differs
 * (truncated, edited) makes the shard unfinished: it is encoded again and `reencoded` says why.
 * A shard made by another encoder or from another corpus file is refused, never overwritten.
 * Keyed by core's keyed-resume contract (`shardKey`, kind 'embedding-shard'): the shard's
 * identity (`EmbeddingShardInfo` without the corpus path: encoder name, settings with the model
 * digests, formatter, range, batching) as slice, the corpus sha256 as input, and the code digest
 * of the encoder's code in @dv/eval plus this file's imports (`encoderCode`) as code; the
 * manifest records the key and its parts. A finished shard of the same identity made by other
 * code (or before code digests were recorded) is encoded again, `reencoded` naming the change.
 * An empty corpus is a `DataError` (a 0-row shard is never written).
 * Resume inside a shard: after each window its rows (a contiguous run in corpus order) are
 * appended to `<embeddings>.partial` and then `<embeddings>.partial.json` is replaced
 * atomically with the count of rows that are safe and the shard's key (`shardKey`, code
 * included). A run interrupted at any point (kill -9
 * included) and started again with the same encoder, corpus and settings reads those rows back,
 * ignores any torn tail past them, and encodes from the next window on; the finished shard is
 * byte-identical to an uninterrupted one (the same batches, in the same order). A partial file
 * of another identity is discarded and said so (`resumedRows` is 0). Both files are removed
 * once the shard is complete.
 */
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  type CacheKey,
  CacheKeyParts,
  cacheKey,
  canonicalJson,
  DataError,
  EmbeddingShardInfo,
  EmbeddingShardRow,
  formatDocument,
  hashFile,
  Passage,
  RunManifest,
  readJsonlWithLines,
  sha256,
  staleReasons,
  writeBytesAtomic,
  writeJsonl,
  writeManifest,
} from '@dv/core';
import { z } from 'zod';
import type { Encoder } from '../encoders/encoder.js';
import { encoderCodeDigest } from '../encoders/encoder-code.js';
import { lengthSortedOrder } from './length-sorted-order.js';
import { npyBytes } from './npy.js';
import { type ShardSpec, shardRange, shardStem } from './shard-range.js';
import { WindowCheckpoint } from './window-checkpoint.js';

export interface EncodeCorpusShardOptions {
  encoder: Encoder;
  /** Passage JSONL. */
  corpus: string;
  shard: ShardSpec;
  /** Output folder (shared by all shards, or one per shard: both merge). */
  out: string;
  /** Texts per encoder call (default 32); every shard of one corpus must use the same. */
  batchSize?: number;
  /**
   * Batches per length-sorting window (default `DEFAULT_SORT_WINDOW_BATCHES`; 1 = corpus order);
   * every shard of one corpus must use the same (recorded in the manifest).
   */
  sortWindowBatches?: number;
  /** Rows encoded so far in this shard, after each encoder call. */
  onProgress?: (done: number, total: number) => void;
  command?: string[];
  /**
   * The key's code part (label -> digest) instead of the code digest of `encoderCode` taken now:
   * for tests and tools that check what changed code does to a shard.
   */
  code?: Readonly<Record<string, string>>;
}

export interface EncodeCorpusShardResult {
  info: EmbeddingShardInfo;
  manifest: string;
  /** True when a complete, matching shard was already there. */
  skipped: boolean;
  /** Rows taken from an interrupted run's window checkpoints instead of encoded again. */
  resumedRows: number;
  /** Why a shard whose manifest was there was encoded again (its files did not match it). */
  reencoded?: string;
  seconds: number;
}

/**
 * Default batches per length-sorting window: 16 batches (512 texts at batch 32) cut padding
 * to a few percent on corpora of mixed lengths while keeping shards fine-grained.
 */
export const DEFAULT_SORT_WINDOW_BATCHES = 16;

/** BEIR corpora name the id `_id`; ours `docid`. */
const CorpusRow = z.preprocess((v) => {
  if (v && typeof v === 'object' && !('docid' in v) && '_id' in v) {
    const { _id, ...rest } = v as Record<string, unknown>;
    return { docid: _id, ...rest };
  }
  return v;
}, Passage);

/** File names of shard `s`. */
export function shardFiles(shard: ShardSpec): { embeddings: string; ids: string; manifest: string } {
  const stem = shardStem(shard);
  return {
    embeddings: `embeddings-${stem}.npy`,
    ids: `ids-${stem}.jsonl`,
    manifest: `shard-${stem}.manifest.json`,
  };
}

/** This module's own code, counted in every shard key beside the encoder's. */
const SHARD_ENTRY = 'src/shards/encode-corpus-shard.ts';

/**
 * A shard's key: kind 'embedding-shard', slice its identity without the corpus file's path and
 * digest, input the corpus sha256, code the encoder's code digest (or `code` as given).
 */
export function shardKey(
  info: EmbeddingShardInfo,
  encoder: Pick<Encoder, 'settings'>,
  code?: Readonly<Record<string, string>>,
): CacheKey {
  const { path: _path, sha256: corpusSha256, ...corpus } = info.corpus;
  return cacheKey({
    kind: 'embedding-shard',
    slice: { ...info, corpus },
    inputs: { corpus: corpusSha256 },
    code: code ?? encoderCodeDigest(encoder, [SHARD_ENTRY]),
  });
}

/** What identifies an encoder's vectors (compared across shards and with `--model`). */
export function encoderIdentity(encoder: Encoder): EmbeddingShardInfo['encoder'] {
  return {
    name: encoder.name,
    dim: encoder.dim,
    settings: { ...encoder.settings },
    formatter: encoder.formatter,
  };
}

async function countRows(path: string): Promise<number> {
  let n = 0;
  for await (const _ of readJsonlWithLines(path, CorpusRow, {
    uniqueBy: (p) => p.docid,
    uniqueName: 'docid',
  }))
    n++;
  return n;
}

export async function encodeCorpusShard(o: EncodeCorpusShardOptions): Promise<EncodeCorpusShardResult> {
  const t0 = performance.now();
  const corpusPath = resolve(o.corpus);
  if (!existsSync(corpusPath)) throw new DataError('corpus file not found', corpusPath);
  const batchSize = o.batchSize ?? 32;
  const sortWindowBatches = o.sortWindowBatches ?? DEFAULT_SORT_WINDOW_BATCHES;
  if (!Number.isInteger(sortWindowBatches) || sortWindowBatches < 1)
    throw new Error(`sortWindowBatches must be a positive integer, got ${sortWindowBatches}`);
  const total = await countRows(corpusPath);
  if (total === 0) throw new DataError('the corpus has no documents', corpusPath);
  const { start, end } = shardRange(total, batchSize * sortWindowBatches, o.shard);
  const files = shardFiles(o.shard);
  const info = EmbeddingShardInfo.parse({
    kind: 'embedding-shard',
    shard: o.shard,
    start,
    end,
    total,
    dim: o.encoder.dim,
    batchSize,
    sortWindowBatches,
    encoder: encoderIdentity(o.encoder),
    corpus: { path: corpusPath, sha256: (await hashFile(corpusPath)).sha256, rows: total },
    files: { embeddings: files.embeddings, ids: files.ids },
  });
  const key = shardKey(info, o.encoder, o.code);
  const manifestPath = join(o.out, files.manifest);
  let reencoded: string | undefined;
  if (existsSync(manifestPath)) {
    const recorded = RunManifest.parse(JSON.parse(readFileSync(manifestPath, 'utf8'))).config as {
      cacheKey?: unknown;
      keyParts?: unknown;
    };
    const old = EmbeddingShardInfo.parse(recorded);
    const same = (a: EmbeddingShardInfo, b: EmbeddingShardInfo) =>
      canonicalJson({ ...a, corpus: { ...a.corpus, path: '' } }) ===
      canonicalJson({ ...b, corpus: { ...b.corpus, path: '' } });
    if (!same(old, info))
      throw new DataError(
        'a different shard is already here (other encoder, corpus, batch size, sort window or shard count); use another --out',
        manifestPath,
      );
    if (recorded.cacheKey !== key.key) {
      // the same shard, made by other code (or before keys were recorded): encode it again
      const parts = CacheKeyParts.safeParse(recorded.keyParts);
      reencoded = `made by other code (${staleReasons(parts.success ? parts.data : undefined, key.parts).join('; ')})`;
    } else reencoded = await shardFilesChanged(manifestPath, o.out, [files.embeddings, files.ids]);
    if (reencoded === undefined)
      return {
        info: old,
        manifest: manifestPath,
        skipped: true,
        resumedRows: 0,
        seconds: (performance.now() - t0) / 1000,
      };
    // unfinished from here on: a crash while encoding again must not leave a "finished" shard
    rmSync(manifestPath, { force: true });
  }
  const rows: EmbeddingShardRow[] = [];
  const texts: string[] = [];
  let i = 0;
  for await (const { value } of readJsonlWithLines(corpusPath, CorpusRow)) {
    if (i >= start && i < end) {
      const text = formatDocument(o.encoder.formatter, value);
      texts.push(text);
      rows.push({ docid: value.docid, textSha256: sha256(text) });
    }
    if (++i >= end) break;
  }
  const dim = o.encoder.dim;
  const matrix = new Float32Array(texts.length * dim);
  // The shard starts on the window grid, so its local windows are the corpus's.
  const order =
    sortWindowBatches === 1
      ? texts.map((_, k) => k)
      : lengthSortedOrder(
          texts.map((t) => t.length),
          batchSize * sortWindowBatches,
        );
  const npyPath = join(o.out, files.embeddings);
  const checkpoint = new WindowCheckpoint(npyPath, key.key, dim);
  const resumedRows = checkpoint.restore(matrix, texts.length);
  const window = batchSize * sortWindowBatches;
  if (resumedRows > 0) o.onProgress?.(resumedRows, texts.length);
  for (let s = resumedRows; s < texts.length; s += batchSize) {
    const rowsOf = order.slice(s, s + batchSize);
    const part = await o.encoder.encodeDocuments(rowsOf.map((k) => texts[k]!));
    if (part.length !== rowsOf.length * dim)
      throw new Error(
        `${o.encoder.name} returned ${part.length} floats for ${rowsOf.length} texts of dim ${dim}`,
      );
    for (let k = 0; k < rowsOf.length; k++)
      matrix.set(part.subarray(k * dim, (k + 1) * dim), rowsOf[k]! * dim);
    const done = Math.min(texts.length, s + batchSize);
    // A window is complete when the next batch would start a new one: its rows are final.
    if (done % window === 0 && done < texts.length) await checkpoint.save(matrix, done);
    o.onProgress?.(done, texts.length);
  }
  const idsPath = join(o.out, files.ids);
  writeBytesAtomic(npyPath, npyBytes(matrix, dim));
  await writeJsonl(idsPath, rows, EmbeddingShardRow);
  const seconds = (performance.now() - t0) / 1000;
  const manifest = await writeManifest(
    o.out,
    {
      kind: 'embedding-shard',
      command: o.command,
      config: { ...info, cacheKey: key.key, keyParts: key.parts },
      formatter: o.encoder.formatter,
      timings: { seconds },
      outputs: [npyPath, idsPath],
    },
    files.manifest,
  );
  checkpoint.remove();
  return { info, manifest, skipped: false, resumedRows, seconds, ...(reencoded ? { reencoded } : {}) };
}

/**
 * Why a finished shard's files no longer match its manifest (missing, other size, other
 * sha256), or undefined when they all match. Hashing costs one read of the shard (~1 s/GB).
 */
async function shardFilesChanged(
  manifestPath: string,
  dir: string,
  names: readonly string[],
): Promise<string | undefined> {
  const outputs = RunManifest.parse(JSON.parse(readFileSync(manifestPath, 'utf8'))).outputs;
  for (const name of names) {
    const path = join(dir, name);
    const want = outputs.find((x) => resolve(dir, x.path) === resolve(path));
    if (!want) return `${path} is not recorded in ${manifestPath}`;
    if (!existsSync(path)) return `${path} is missing`;
    const size = statSync(path).size;
    if (size !== want.bytes)
      return `${path} has ${size} bytes, its manifest records ${want.bytes} (truncated?)`;
    const got = await hashFile(path);
    if (got.sha256 !== want.sha256)
      return `${path} differs from its manifest (sha256 ${got.sha256.slice(0, 12)}, recorded ${want.sha256.slice(0, 12)})`;
  }
  return undefined;
}
