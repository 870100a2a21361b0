import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256 } from '@dv/core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Encoder } from '../encoders/encoder.js';
import { OnnxEncoder } from '../encoders/onnx-encoder.js';
import { DenseRanker } from '../search/ranker.js';
import { miniModelFolder } from '../test-utils/mini-model.js';
import { DEFAULT_SORT_WINDOW_BATCHES, encodeCorpusShard, shardFiles } from './encode-corpus-shard.js';
import { lengthSortedOrder } from './length-sorted-order.js';
import { npyHeader, parseNpyFloat32 } from './npy.js';
import { PrecomputedDocumentsEncoder } from './precomputed-documents-encoder.js';
import { readEmbeddingShards } from './read-embedding-shards.js';
import { parseShardSpec, shardRange } from './shard-range.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

describe('lengthSortedOrder', () => {
  it('orders each window longest first, ties by index, never across windows', () => {
    expect(lengthSortedOrder([3, 9, 1, 9, 5], 5)).toEqual([1, 3, 4, 0, 2]);
    expect(lengthSortedOrder([3, 9, 1, 9, 5], 2)).toEqual([1, 0, 3, 2, 4]);
    expect(lengthSortedOrder([], 4)).toEqual([]);
    expect(() => lengthSortedOrder([1], 0)).toThrow(/positive integer/);
  });
});

describe('shardRange', () => {
  it('deals whole batches out contiguously and tiles the corpus', () => {
    // 10 rows, batches of 4 -> batches [0,4) [4,8) [8,10); two shards take 1 and 2 batches.
    expect(shardRange(10, 4, { index: 0, count: 2 })).toEqual({ start: 0, end: 4 });
    expect(shardRange(10, 4, { index: 1, count: 2 })).toEqual({ start: 4, end: 10 });
    for (const [total, b, n] of [
      [23, 4, 3],
      [5, 8, 4],
      [0, 2, 2],
      [100, 1, 7],
    ] as const) {
      let next = 0;
      for (let i = 0; i < n; i++) {
        const r = shardRange(total, b, { index: i, count: n });
        expect(r.start).toBe(next);
        expect(r.start % b).toBe(0);
        next = r.end;
      }
      expect(next).toBe(total);
    }
  });

  it('parses i/n (0-based) and rejects the rest', () => {
    expect(parseShardSpec('2/8')).toEqual({ index: 2, count: 8 });
    for (const bad of ['8/8', '1', 'a/b', '-1/2', '0/0']) expect(() => parseShardSpec(bad)).toThrow(/i\/n/);
  });
});

describe('npy', () => {
  it('writes the version 1.0 header numpy writes, data 64-byte aligned', () => {
    const h = npyHeader(3, 4);
    expect(h.length % 64).toBe(0);
    const text = new TextDecoder('latin1').decode(h.subarray(10));
    // numpy.lib.format.write_array_header_1_0 for float32 (3, 4): this dict, space padding, '\n'.
    expect(text.trimEnd()).toBe("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }");
    expect(text.endsWith('\n')).toBe(true);
    expect([...h.subarray(0, 8)]).toEqual([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
    expect(new DataView(h.buffer).getUint16(8, true)).toBe(h.length - 10);
  });

  it('rejects a float64 file, naming it', () => {
    const h = npyHeader(1, 1);
    const bad = new TextDecoder('latin1').decode(h).replace('<f4', '<f8');
    const bytes = Uint8Array.from(bad, (c) => c.charCodeAt(0));
    expect(() => parseNpyFloat32(bytes, 'x.npy')).toThrow(/x\.npy: .*float32/);
  });
});

describe('corpus encoding in shards', () => {
  let encoder: OnnxEncoder;
  const root = mkdtempSync(join(tmpdir(), 'dv-shards-'));
  const docs = Array.from({ length: 23 }, (_, i) => ({
    docid: `d${i}`,
    title: ['bass', 'trout', 'guitar'][i % 3]!,
    text: `the ${['fish', 'string instrument', 'viola'][i % 3]} ${'very '.repeat(i % 5)}number ${i}`,
  }));
  const corpus = join(root, 'corpus.jsonl');
  writeFileSync(corpus, docs.map((d) => JSON.stringify(d)).join('\n'));

  beforeAll(async () => {
    const m = await miniModelFolder('mini-bert', 'cls', { backend: 'cpu' });
    encoder = await OnnxEncoder.fromDir(m.dir, { batchSize: 4 });
  }, 120_000);

  it('3 merged shards are byte-identical to one unsharded run, and search gives the same run', async () => {
    const one = join(root, 'one');
    const three = join(root, 'three');
    await encodeCorpusShard({
      encoder,
      corpus,
      shard: { index: 0, count: 1 },
      out: one,
      batchSize: 4,
      sortWindowBatches: 2,
    });
    // Shards in any order, into one folder.
    for (const i of [2, 0, 1])
      await encodeCorpusShard({
        encoder,
        corpus,
        shard: { index: i, count: 3 },
        out: three,
        batchSize: 4,
        sortWindowBatches: 2,
      });
    const [a, b] = [await readEmbeddingShards(one), await readEmbeddingShards(three)];
    expect(b.shards).toBe(3);
    expect(b.ids).toEqual(docs.map((d) => d.docid));
    expect(sha256(new Uint8Array(b.matrix.buffer))).toBe(sha256(new Uint8Array(a.matrix.buffer)));
    // Shards take whole sort windows (2 batches of 4 = 8 rows; 3 shards: 8, 8, 7 rows), so the
    // identity is not trivial.
    const sizes = [0, 1, 2].map((i) => shardRange(23, 8, { index: i, count: 3 })).map((r) => r.end - r.start);
    expect(sizes).toEqual([8, 8, 7]);
    expect(
      JSON.parse(readFileSync(join(three, shardFiles({ index: 1, count: 3 }).manifest), 'utf8')).config,
    ).toMatchObject({ start: 8, end: 16, sortWindowBatches: 2 });

    const queries = [
      { id: 'q1', text: 'bass fish' },
      { id: 'q2', text: 'guitar' },
    ];
    const items = docs.map((d) => ({ id: d.docid, text: `${d.title} ${d.text}` }));
    const runOf = (store: typeof a) =>
      new DenseRanker(new PrecomputedDocumentsEncoder(encoder, store)).retrieve(queries, items, 5);
    const [ra, rb] = [await runOf(a), await runOf(b)];
    expect([...rb.entries()].map(([q, r]) => [q, [...r.entries()]])).toEqual(
      [...ra.entries()].map(([q, r]) => [q, [...r.entries()]]),
    );
    // And the stored vectors are what the encoder gives for the same batch of 4: the window of
    // rows 8..15 batched longest text first, each vector back in its corpus row.
    const window = items.slice(8, 16).map((x) => x.text);
    const firstBatch = lengthSortedOrder(
      window.map((t) => t.length),
      8,
    ).slice(0, 4);
    expect(new Set(firstBatch)).not.toEqual(new Set([0, 1, 2, 3]));
    const direct = await encoder.encodeDocuments(firstBatch.map((k) => window[k]!));
    for (const [j, k] of firstBatch.entries())
      expect(Array.from(b.matrix.subarray((8 + k) * b.dim, (9 + k) * b.dim))).toEqual(
        Array.from(direct.subarray(j * b.dim, (j + 1) * b.dim)),
      );
  });

  it('length-sorted batching (the default) keeps corpus order: the vectors of corpus-order batching', async () => {
    const sorted = join(root, 'sorted');
    const plain = join(root, 'plain');
    const r = await encodeCorpusShard({
      encoder,
      corpus,
      shard: { index: 0, count: 1 },
      out: sorted,
      batchSize: 4,
    });
    expect(r.info.sortWindowBatches).toBe(DEFAULT_SORT_WINDOW_BATCHES);
    await encodeCorpusShard({
      encoder,
      corpus,
      shard: { index: 0, count: 1 },
      out: plain,
      batchSize: 4,
      sortWindowBatches: 1,
    });
    const [a, b] = [await readEmbeddingShards(sorted), await readEmbeddingShards(plain)];
    expect(a.ids).toEqual(b.ids);
    // Same rows up to float32 rounding from other padding (another batch composition).
    let maxDiff = 0;
    for (let i = 0; i < a.matrix.length; i++)
      maxDiff = Math.max(maxDiff, Math.abs(a.matrix[i]! - b.matrix[i]!));
    expect(maxDiff).toBeLessThan(1e-5);
    // Row 0 and row 1 differ (so the comparison would catch rows in the wrong place).
    expect(
      Math.abs(a.matrix[0]! - a.matrix[a.dim]!) + Math.abs(a.matrix[1]! - a.matrix[a.dim + 1]!),
    ).toBeGreaterThan(1e-3);
    await expect(readEmbeddingShards([sorted, plain])).rejects.toThrow();
  });

  it('an interrupted shard resumes after its last whole window and ends byte-identical', async () => {
    const opts = { corpus, shard: { index: 0, count: 1 }, batchSize: 2, sortWindowBatches: 2 };
    const ref = join(root, 'resume-ref');
    await encodeCorpusShard({ ...opts, encoder, out: ref });
    const out = join(root, 'resume');
    const files = shardFiles(opts.shard);
    const partial = join(out, `${files.embeddings}.partial`);
    // The same encoder, failing on its 8th call (rows 14-15): windows of 4 rows, 3 complete.
    let calls = 0;
    const failing: Encoder = {
      name: encoder.name,
      dim: encoder.dim,
      formatter: encoder.formatter,
      settings: encoder.settings,
      encodeQueries: (t) => encoder.encodeQueries(t),
      encodeDocuments: (t) => {
        if (++calls === 8) throw new Error('crash');
        return encoder.encodeDocuments(t);
      },
    };
    await expect(encodeCorpusShard({ ...opts, encoder: failing, out })).rejects.toThrow('crash');
    expect(existsSync(join(out, files.manifest))).toBe(false);
    expect(JSON.parse(readFileSync(`${partial}.json`, 'utf8')).rows).toBe(12);
    // A torn tail past the safe rows (an append cut short) is ignored.
    appendFileSync(partial, new Uint8Array(7).fill(255));
    calls = 0;
    const counting: Encoder = {
      ...failing,
      encodeDocuments: (t) => {
        calls++;
        return encoder.encodeDocuments(t);
      },
    };
    const r = await encodeCorpusShard({ ...opts, encoder: counting, out });
    expect(r.resumedRows).toBe(12);
    expect(calls).toBe(6); // rows 12..22 in batches of 2
    expect(readFileSync(join(out, files.embeddings)).equals(readFileSync(join(ref, files.embeddings)))).toBe(
      true,
    );
    expect(readFileSync(join(out, files.ids), 'utf8')).toBe(readFileSync(join(ref, files.ids), 'utf8'));
    expect(existsSync(partial) || existsSync(`${partial}.json`)).toBe(false);

    // A checkpoint of another identity (here another batch size) is discarded, not mixed in.
    const other = join(root, 'resume-other');
    calls = 0;
    await expect(encodeCorpusShard({ ...opts, encoder: failing, out: other })).rejects.toThrow('crash');
    const again = await encodeCorpusShard({
      ...opts,
      batchSize: 4,
      sortWindowBatches: 1,
      encoder,
      out: other,
    });
    expect(again.resumedRows).toBe(0);
  });

  it('a finished shard is not encoded again; a different one into the same folder is refused', async () => {
    const out = join(root, 'resume');
    const first = await encodeCorpusShard({
      encoder,
      corpus,
      shard: { index: 1, count: 2 },
      out,
      batchSize: 4,
      sortWindowBatches: 2,
    });
    expect(first.skipped).toBe(false);
    const again = await encodeCorpusShard({
      encoder,
      corpus,
      shard: { index: 1, count: 2 },
      out,
      batchSize: 4,
      sortWindowBatches: 2,
    });
    expect(again.skipped).toBe(true);
    await expect(
      encodeCorpusShard({ encoder, corpus, shard: { index: 1, count: 2 }, out, batchSize: 8 }),
    ).rejects.toThrow(/shard-00001-of-00002\.manifest\.json: a different shard is already here/);
  });

  // issue 25: a re-run kept a finished shard whose .npy had been truncated, and exited 0
  it('a finished shard whose file was truncated or edited is encoded again, saying why', async () => {
    const out = join(root, 'verify');
    const o = { encoder, corpus, shard: { index: 0, count: 2 }, out, batchSize: 4, sortWindowBatches: 2 };
    await encodeCorpusShard(o);
    const npy = join(out, shardFiles(o.shard).embeddings);
    const good = readFileSync(npy);
    writeFileSync(npy, good.subarray(0, good.length - 100));
    const again = await encodeCorpusShard(o);
    expect(again.skipped).toBe(false);
    expect(again.reencoded).toBe(
      `${npy} has ${good.length - 100} bytes, its manifest records ${good.length} (truncated?)`,
    );
    expect(readFileSync(npy).equals(good)).toBe(true);
    // same size, one bit flipped: the sha256 tells
    const flipped = Buffer.from(good);
    flipped[flipped.length - 1]! ^= 1;
    writeFileSync(npy, flipped);
    expect((await encodeCorpusShard(o)).reencoded).toMatch(/differs from its manifest \(sha256 /);
    expect(readFileSync(npy).equals(good)).toBe(true);
    const ok = await encodeCorpusShard(o);
    expect([ok.skipped, ok.reencoded]).toEqual([true, undefined]);
  });

  it('an empty corpus is an error naming it; no 0-row shard is written', async () => {
    const empty = join(root, 'empty.jsonl');
    writeFileSync(empty, '\n');
    const out = join(root, 'empty-out');
    await expect(
      encodeCorpusShard({ encoder, corpus: empty, shard: { index: 0, count: 1 }, out }),
    ).rejects.toThrow(`${empty}: the corpus has no documents`);
    expect(existsSync(join(out, shardFiles({ index: 0, count: 1 }).manifest))).toBe(false);
  });

  it('refuses incomplete, mixed or tampered shards, naming the file', async () => {
    const out = join(root, 'partial');
    await encodeCorpusShard({
      encoder,
      corpus,
      shard: { index: 0, count: 3 },
      out,
      batchSize: 4,
      sortWindowBatches: 2,
    });
    await encodeCorpusShard({
      encoder,
      corpus,
      shard: { index: 2, count: 3 },
      out,
      batchSize: 4,
      sortWindowBatches: 2,
    });
    await expect(readEmbeddingShards(out)).rejects.toThrow(/missing shard 1\/3 \(of 3\)/);
    await encodeCorpusShard({
      encoder,
      corpus,
      shard: { index: 1, count: 3 },
      out,
      batchSize: 4,
      sortWindowBatches: 2,
    });
    const npy = join(out, shardFiles({ index: 1, count: 3 }).embeddings);
    const bytes = readFileSync(npy);
    bytes[bytes.length - 1]! ^= 1;
    writeFileSync(npy, bytes);
    await expect(readEmbeddingShards(out)).rejects.toThrow(
      /embeddings-00001-of-00003\.npy: file differs from its manifest/,
    );
    const other = join(root, 'other');
    writeFileSync(
      join(root, 'corpus2.jsonl'),
      docs
        .slice(0, 20)
        .map((d) => JSON.stringify(d))
        .join('\n'),
    );
    await encodeCorpusShard({
      encoder,
      corpus: join(root, 'corpus2.jsonl'),
      shard: { index: 1, count: 3 },
      out: other,
      batchSize: 4,
      sortWindowBatches: 2,
    });
    await expect(readEmbeddingShards([join(root, 'three'), other])).rejects.toThrow(
      /another corpus file|is also in/,
    );
  });

  it('a document that was not encoded is an error, not a wrong vector', async () => {
    const store = await readEmbeddingShards(join(root, 'three'));
    const p = new PrecomputedDocumentsEncoder(encoder, store);
    await expect(p.encodeDocuments(['bass the fish number 0', 'never encoded'])).rejects.toThrow(
      /three: a document is not in the embeddings/,
    );
  });

  it('a bad corpus line is a file:line error', async () => {
    const bad = join(root, 'bad.jsonl');
    writeFileSync(bad, '{"docid":"a","text":"x"}\n{"title":"no id"}\n');
    await expect(
      encodeCorpusShard({ encoder, corpus: bad, shard: { index: 0, count: 1 }, out: join(root, 'bad') }),
    ).rejects.toThrow(/bad\.jsonl:2: /);
  });

  it('the .npy shards load in numpy with the same bytes (reference venv)', async (ctx) => {
    const python = [process.env.DV_PYTHON, join(repoRoot, '.venv-ref', 'bin', 'python')].find(
      (p) => p && existsSync(p),
    );
    if (!python) {
      console.warn('skipping numpy check: no .venv-ref (run pnpm setup:reference) and no DV_PYTHON');
      ctx.skip();
      return;
    }
    const dir = join(root, 'three');
    const script = `
import glob, hashlib, json, sys, numpy as np
parts = [np.load(p) for p in sorted(glob.glob(sys.argv[1] + '/embeddings-*.npy'))]
m = np.concatenate(parts)
print(json.dumps({"dtype": str(m.dtype), "shape": list(m.shape), "sha": hashlib.sha256(np.ascontiguousarray(m).tobytes()).hexdigest(),
  "mmap": list(np.load(sorted(glob.glob(sys.argv[1] + '/embeddings-*.npy'))[0], mmap_mode='r').shape)}))`;
    const r = spawnSync(python, ['-c', script, dir], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    const got = JSON.parse(r.stdout.trim());
    const store = await readEmbeddingShards(dir);
    expect(got).toEqual({
      dtype: 'float32',
      shape: [23, store.dim],
      sha: sha256(new Uint8Array(store.matrix.buffer)),
      mmap: [8, store.dim],
    });
  }, 90_000);
});
