/**
 * Merges the shards `encodeCorpusShard` wrote (one folder, or several folders holding
 * different shards) into one corpus matrix in corpus order.
 *
 * Checks, each a `DataError` naming the file: every shard agrees on the shard count, corpus
 * digest, batch size and encoder identity; shards 0..n-1 are all present exactly once and their
 * row ranges tile [0, total); each file's SHA-256 and size match its manifest (unless
 * `verify: false`); `.npy` shapes match the manifest.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  canonicalJson,
  DataError,
  EmbeddingShardInfo,
  EmbeddingShardRow,
  hashFile,
  RunManifest,
  readJsonlAll,
} from '@dv/core';
import { parseNpyFloat32 } from './npy.js';

export interface EmbeddingStore {
  dim: number;
  /** Row-major `ids.length x dim`. */
  matrix: Float32Array;
  ids: string[];
  /** SHA-256 of each row's formatted text. */
  textSha256: string[];
  encoder: EmbeddingShardInfo['encoder'];
  corpusSha256: string;
  shards: number;
  /** The shard manifests read, in shard order. */
  manifests: string[];
}

const MANIFEST = /^shard-(\d{5})-of-(\d{5})\.manifest\.json$/;

export async function readEmbeddingShards(
  dirs: string | readonly string[],
  options: { verify?: boolean } = {},
): Promise<EmbeddingStore> {
  const found: Array<{ dir: string; path: string; info: EmbeddingShardInfo; manifest: RunManifest }> = [];
  for (const dir of typeof dirs === 'string' ? [dirs] : dirs) {
    if (!existsSync(dir)) throw new DataError('embeddings folder not found', dir);
    for (const name of readdirSync(dir).sort()) {
      if (!MANIFEST.test(name)) continue;
      const path = join(dir, name);
      let manifest: RunManifest;
      let info: EmbeddingShardInfo;
      try {
        manifest = RunManifest.parse(JSON.parse(readFileSync(path, 'utf8')));
        info = EmbeddingShardInfo.parse(manifest.config);
      } catch (err) {
        throw new DataError(
          `not an embedding-shard manifest: ${(err as Error).message.split('\n')[0]}`,
          path,
        );
      }
      found.push({ dir, path, info, manifest });
    }
  }
  if (found.length === 0)
    throw new DataError(
      "no shard-*.manifest.json here (write them with 'dv eval encode')",
      [dirs].flat().join(', '),
    );
  found.sort((a, b) => a.info.shard.index - b.info.shard.index);
  const first = found[0]!;
  const n = first.info.shard.count;
  const seen = new Map<number, string>();
  for (const f of found) {
    const i = f.info;
    const mismatch =
      i.shard.count !== n
        ? `shard count ${i.shard.count}, not ${n}`
        : i.corpus.sha256 !== first.info.corpus.sha256
          ? 'another corpus file (digest differs)'
          : i.batchSize !== first.info.batchSize
            ? `batch size ${i.batchSize}, not ${first.info.batchSize}`
            : i.sortWindowBatches !== first.info.sortWindowBatches
              ? `sort window of ${i.sortWindowBatches} batches, not ${first.info.sortWindowBatches}`
              : canonicalJson(i.encoder) !== canonicalJson(first.info.encoder)
                ? `another encoder (${i.encoder.name} ${canonicalJson(i.encoder.settings)})`
                : null;
    if (mismatch)
      throw new DataError(`shard ${i.shard.index}/${n} does not match ${first.path}: ${mismatch}`, f.path);
    if (seen.has(i.shard.index))
      throw new DataError(`shard ${i.shard.index}/${n} is also in ${seen.get(i.shard.index)}`, f.path);
    seen.set(i.shard.index, f.path);
  }
  const missing = Array.from({ length: n }, (_, i) => i).filter((i) => !seen.has(i));
  if (missing.length > 0)
    throw new DataError(
      `missing shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${n}`).join(', ')} (of ${n})`,
      first.dir,
    );
  const total = first.info.total;
  const dim = first.info.dim;
  const matrix = new Float32Array(total * dim);
  const ids: string[] = [];
  const textSha256: string[] = [];
  let next = 0;
  for (const f of found) {
    const i = f.info;
    if (i.start !== next)
      throw new DataError(`shard ${i.shard.index}/${n} starts at row ${i.start}, expected ${next}`, f.path);
    next = i.end;
    const npy = join(f.dir, i.files.embeddings);
    const idsPath = join(f.dir, i.files.ids);
    for (const p of [npy, idsPath]) {
      if (!existsSync(p)) throw new DataError(`file of shard ${i.shard.index}/${n} is missing`, p);
      if (options.verify ?? true) {
        const want = f.manifest.outputs.find((o) => join(f.dir, o.path) === p);
        const got = await hashFile(p);
        if (want && (want.sha256 !== got.sha256 || want.bytes !== got.bytes))
          throw new DataError(
            `file differs from its manifest (sha256 ${got.sha256.slice(0, 12)}, expected ${want.sha256.slice(0, 12)})`,
            p,
          );
      }
    }
    const m = parseNpyFloat32(readFileSync(npy), npy);
    if (m.rows !== i.end - i.start || m.dim !== dim)
      throw new DataError(`shape (${m.rows}, ${m.dim}), manifest says (${i.end - i.start}, ${dim})`, npy);
    matrix.set(m.data, i.start * dim);
    const rows = await readJsonlAll(idsPath, EmbeddingShardRow);
    if (rows.length !== m.rows) throw new DataError(`${rows.length} ids for ${m.rows} rows`, idsPath);
    for (const r of rows) {
      ids.push(r.docid);
      textSha256.push(r.textSha256);
    }
  }
  if (next !== total) throw new DataError(`shards end at row ${next} of ${total}`, found.at(-1)!.path);
  return {
    dim,
    matrix,
    ids,
    textSha256,
    encoder: first.info.encoder,
    corpusSha256: first.info.corpus.sha256,
    shards: n,
    manifests: found.map((f) => f.path),
  };
}
