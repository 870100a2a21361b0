/**
 * Shard keys (issue 25): window checkpoints and finished-shard manifests are keyed through
 * core's cacheKey with the code digest of the encoder's code (`encoderCode`). A changed code
 * digest (injected with `code`; no source edited) discards a window checkpoint and encodes a
 * finished shard again, saying why; the same digest resumes / skips.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clearCodeDigestMemo, codeDigest, defaultFormatterSettings, type Encoder } from '@dv/core';
import { tmpDir } from '@dv/core/test-utils';
import { describe, expect, it } from 'vitest';
import { encoderCode, encoderCodeDigest } from '../encoders/encoder-code.js';
import { encodeCorpusShard, shardFiles } from './encode-corpus-shard.js';

const DIM = 4;
/** A deterministic encoder; `failAfter` calls it throws (an interrupted run). */
function hashEncoder(failAfter = Number.POSITIVE_INFINITY): Encoder & { calls: number } {
  const vec = (texts: readonly string[]) => {
    const out = new Float32Array(texts.length * DIM);
    texts.forEach((t, i) => {
      for (let d = 0; d < DIM; d++) out[i * DIM + d] = ((t.length * (d + 3)) % 17) / 17;
    });
    return out;
  };
  const e = {
    name: 'hash-test',
    dim: DIM,
    formatter: defaultFormatterSettings,
    settings: { backend: 'hash-test' },
    calls: 0,
    encodeQueries: async (t: readonly string[]) => vec(t),
    encodeDocuments: async (t: readonly string[]) => {
      if (++e.calls > failAfter) throw new Error('crash');
      return vec(t);
    },
  };
  return e;
}

function corpusFile(dir: string): string {
  const path = join(dir, 'corpus.jsonl');
  const rows = Array.from({ length: 24 }, (_, i) =>
    JSON.stringify({ docid: `d${i}`, title: '', text: `doc ${'x'.repeat(i % 7)} ${i}` }),
  );
  writeFileSync(path, `${rows.join('\n')}\n`);
  return path;
}

const A = { '@dv/eval:encoder(hash-test)': 'a'.repeat(64) };
const B = { '@dv/eval:encoder(hash-test)': 'b'.repeat(64) };
const shard = { index: 0, count: 1 };

describe('shard keys hold the encoder code digest', () => {
  it('the real key: code of the encoder folder (unknown backend) or the ONNX encoder file, with the shard code', async () => {
    const dir = tmpDir('dv-shard-key-');
    const r = await encodeCorpusShard({
      encoder: hashEncoder(),
      corpus: corpusFile(dir),
      shard,
      out: dir,
      batchSize: 4,
    });
    const config = JSON.parse(readFileSync(r.manifest, 'utf8')).config;
    clearCodeDigestMemo();
    expect(config.keyParts).toMatchObject({
      kind: 'embedding-shard',
      inputs: { corpus: r.info.corpus.sha256 },
    });
    expect(config.keyParts.code).toEqual(
      encoderCodeDigest(hashEncoder(), ['src/shards/encode-corpus-shard.ts']),
    );
    expect(encoderCode({ settings: { backend: 'onnxruntime-node' } }).entries?.[0]).toBe(
      'src/encoders/onnx-encoder.ts',
    );
    // the ONNX encoder's digest differs from the whole-folder one (narrowed to its file's imports)
    const onnx = codeDigest(encoderCode({ settings: { backend: 'onnxruntime-node' } }), import.meta.url);
    expect(onnx.digest).not.toBe(Object.values(config.keyParts.code)[0]);
  });

  it('a finished shard made by other code is encoded again, saying why; the same code skips it', async () => {
    const dir = tmpDir('dv-shard-code-');
    const corpus = corpusFile(dir);
    const opts = { corpus, shard, out: dir, batchSize: 4, sortWindowBatches: 2 };
    const first = await encodeCorpusShard({ ...opts, encoder: hashEncoder(), code: A });
    expect(first.skipped).toBe(false);
    const same = await encodeCorpusShard({ ...opts, encoder: hashEncoder(), code: A });
    expect(same.skipped).toBe(true);
    const enc = hashEncoder();
    const other = await encodeCorpusShard({ ...opts, encoder: enc, code: B });
    expect(other.skipped).toBe(false);
    expect(other.reencoded).toBe('made by other code (code of @dv/eval:encoder(hash-test) changed)');
    expect(enc.calls).toBe(6);
    // a manifest from before keys were recorded: encoded again, saying so
    const m = JSON.parse(readFileSync(other.manifest, 'utf8'));
    delete m.config.keyParts;
    delete m.config.cacheKey;
    writeFileSync(other.manifest, JSON.stringify(m));
    const legacy = await encodeCorpusShard({ ...opts, encoder: hashEncoder(), code: B });
    expect(legacy.reencoded).toMatch(/made before code digests were recorded/);
  });

  it('a window checkpoint resumes under the same code and is discarded under other code', async () => {
    const dir = tmpDir('dv-shard-window-');
    const corpus = corpusFile(dir);
    const opts = { corpus, shard, batchSize: 2, sortWindowBatches: 2 };
    const same = join(dir, 'same');
    await expect(encodeCorpusShard({ ...opts, out: same, encoder: hashEncoder(5), code: A })).rejects.toThrow(
      'crash',
    );
    expect(
      (await encodeCorpusShard({ ...opts, out: same, encoder: hashEncoder(), code: A })).resumedRows,
    ).toBe(8);
    const other = join(dir, 'other');
    await expect(
      encodeCorpusShard({ ...opts, out: other, encoder: hashEncoder(5), code: A }),
    ).rejects.toThrow('crash');
    const state = JSON.parse(
      readFileSync(join(other, `${shardFiles(shard).embeddings}.partial.json`), 'utf8'),
    );
    expect(state.rows).toBe(8);
    const fresh = await encodeCorpusShard({ ...opts, out: other, encoder: hashEncoder(), code: B });
    expect(fresh.resumedRows).toBe(0);
    // byte-identical to the resumed one: only the code part differed
    expect(
      readFileSync(join(other, shardFiles(shard).embeddings)).equals(
        readFileSync(join(same, shardFiles(shard).embeddings)),
      ),
    ).toBe(true);
  });
});
