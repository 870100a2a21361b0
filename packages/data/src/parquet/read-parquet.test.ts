import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { tmpDir } from '@dv/core/test-utils';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { parquetWriteFile } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { parquetRowCount, readParquetRows, streamParquetRows } from './read-parquet.js';

/**
 * A zstd frame (RFC 8878 section 3.1.1) holding `data` in raw blocks: magic, a frame header
 * with the single-segment flag and an 8-byte content size, then blocks of at most 128 KiB
 * (3-byte header: last flag, type 0 = raw, size). Node 20 has no zstd encoder; a raw-block
 * frame is still the real format any zstd decoder must read.
 */
function zstdRawFrame(data: Uint8Array): Uint8Array {
  const parts: number[] = [0x28, 0xb5, 0x2f, 0xfd, 0b1110_0000];
  const size = BigInt(data.length);
  for (let i = 0n; i < 8n; i++) parts.push(Number((size >> (8n * i)) & 0xffn));
  const max = 128 * 1024;
  let off = 0;
  do {
    const n = Math.min(max, data.length - off);
    const last = off + n >= data.length ? 1 : 0;
    const header = last | (0 << 1) | (n << 3);
    parts.push(header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff);
    for (let i = 0; i < n; i++) parts.push(data[off + i]!);
    off += n;
  } while (off < data.length);
  return Uint8Array.from(parts);
}

/** An LZ4 block (lz4 block format) of literals only: one token, its length bytes, the bytes. */
function lz4RawLiterals(data: Uint8Array): Uint8Array {
  const out: number[] = [];
  const n = data.length;
  out.push((Math.min(n, 15) << 4) | 0);
  if (n >= 15) {
    let rest = n - 15;
    while (rest >= 255) {
      out.push(255);
      rest -= 255;
    }
    out.push(rest);
  }
  for (const b of data) out.push(b);
  return Uint8Array.from(out);
}

const codecs = {
  GZIP: (b: Uint8Array) => new Uint8Array(gzipSync(b)),
  BROTLI: (b: Uint8Array) => new Uint8Array(brotliCompressSync(b)),
  ZSTD: zstdRawFrame,
  LZ4_RAW: lz4RawLiterals,
} as const;

describe('parquet codecs (hyparquet-compressors)', () => {
  const rows = Array.from({ length: 300 }, (_, i) => ({
    id: `q${i}`,
    text: `the bass is a fish ${i % 7} `.repeat(1 + (i % 5)),
    score: i / 3,
  }));
  for (const codec of Object.keys(codecs) as (keyof typeof codecs)[]) {
    it(`${codec} pages decode to the written rows`, async () => {
      const path = join(tmpDir('dv-parquet-'), `${codec}.parquet`);
      parquetWriteFile({
        filename: path,
        codec,
        compressors: { [codec]: codecs[codec] },
        rowGroupSize: 128,
        columnData: [
          { name: 'id', data: rows.map((r) => r.id), type: 'STRING' },
          { name: 'text', data: rows.map((r) => r.text), type: 'STRING' },
          { name: 'score', data: rows.map((r) => r.score), type: 'DOUBLE' },
        ],
      });
      // The footer names the codec of every column chunk, and hyparquet alone cannot read it.
      const bytes = readFileSync(path);
      const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
      const meta = parquetMetadata(file);
      for (const rg of meta.row_groups) for (const c of rg.columns) expect(c.meta_data?.codec).toBe(codec);
      await expect(parquetReadObjects({ file, metadata: meta })).rejects.toThrow(/codec/i);
      expect(await parquetRowCount(path)).toBe(300);
      expect(await readParquetRows(path)).toEqual(rows);
      const streamed: unknown[] = [];
      for await (const { row, number } of streamParquetRows(path, ['id'])) {
        expect(row.id).toBe(`q${number - 1}`);
        streamed.push(row);
      }
      expect(streamed).toHaveLength(300);
    });
  }
});
