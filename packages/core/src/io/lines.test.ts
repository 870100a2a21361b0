import { createReadStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DataError } from '../errors.js';
import { tmpDir } from '../test-utils/tmp.js';
import { readJsonlAll } from './jsonl.js';
import { firstInvalidUtf8, readLines } from './lines.js';

async function lines(path: string) {
  const out: Array<[string, number, boolean]> = [];
  for await (const l of readLines(path)) out.push([l.text, l.number, l.terminated]);
  return out;
}

describe('readLines', () => {
  it('splits on bytes: CRLF, multi-byte characters across read chunks, an unterminated tail', async () => {
    const dir = tmpDir('dv-lines-');
    const path = join(dir, 'a.txt');
    // 'é' (2 bytes) and '😀' (4 bytes) straddle the 64 KiB read-chunk boundary
    const long = `${'x'.repeat(65_535)}é😀`;
    writeFileSync(path, `one\r\n${long}\n\nlast`);
    expect(await lines(path)).toEqual([
      ['one', 1, true],
      [long, 2, true],
      ['', 3, true],
      ['last', 4, false],
    ]);
    const chunks: number[] = [];
    for await (const c of createReadStream(path)) chunks.push((c as Buffer).length);
    expect(chunks.length).toBeGreaterThan(1);
  });

  // issue 25: invalid bytes used to be replaced with U+FFFD and read on without a word
  it('invalid UTF-8 is a DataError naming file:line and the byte, plain and gzip', async () => {
    const dir = tmpDir('dv-lines-');
    const bad = Buffer.concat([
      Buffer.from('{"docid":"d1","title":"","text":"fine"}\n{"docid":"d2","title":"","text":"caf'),
      Buffer.from([0xe9]), // Latin-1 'é': not UTF-8
      Buffer.from('"}\n'),
    ]);
    const plain = join(dir, 'latin1.jsonl');
    writeFileSync(plain, bad);
    const gz = join(dir, 'latin1.jsonl.gz');
    writeFileSync(gz, gzipSync(bad));
    const Row = z.object({ docid: z.string(), title: z.string(), text: z.string() });
    for (const p of [plain, gz]) {
      const err = await readJsonlAll(p, Row).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DataError);
      expect((err as DataError).message).toBe(
        `${p}:2: invalid UTF-8 (byte 0xe9 at byte 37 of the line); the file must be UTF-8 text`,
      );
    }
    // an unterminated last line is checked too
    const tail = join(dir, 'tail.txt');
    writeFileSync(tail, Buffer.from([0x61, 0x0a, 0xff, 0xfe]));
    await expect(lines(tail)).rejects.toThrow(`${tail}:2: invalid UTF-8 (byte 0xff at byte 1`);
  });

  it('a log cut inside a multi-byte character: dropped with allowTruncatedTail, an error without', async () => {
    const dir = tmpDir('dv-lines-');
    const log = join(dir, 'log.jsonl');
    const Rec = z.object({ text: z.string() });
    const whole = Buffer.from(`${JSON.stringify({ text: 'ok' })}\n${JSON.stringify({ text: 'café' })}\n`);
    writeFileSync(log, whole.subarray(0, whole.indexOf(0xc3) + 1)); // ends inside 'é'
    expect(await readJsonlAll(log, Rec, { allowTruncatedTail: true })).toEqual([{ text: 'ok' }]);
    await expect(readJsonlAll(log, Rec)).rejects.toThrow(`${log}:2: invalid UTF-8 (byte 0xc3`);
    // a bad byte in a terminated line is never "a torn tail"
    writeFileSync(log, Buffer.concat([Buffer.from('{"text":"a'), Buffer.from([0xff]), Buffer.from('"}\n')]));
    await expect(readJsonlAll(log, Rec, { allowTruncatedTail: true })).rejects.toThrow(
      `${log}:1: invalid UTF-8`,
    );
  });

  it('firstInvalidUtf8 follows RFC 3629 (overlong, surrogates, truncated sequences)', () => {
    const at = (...b: number[]) => firstInvalidUtf8(Uint8Array.from(b));
    expect(at(0x61, 0xc3, 0xa9, 0xf0, 0x9f, 0x98, 0x80)).toBe(-1);
    expect(at(0x61, 0xc0, 0xaf)).toBe(1); // overlong '/'
    expect(at(0xed, 0xa0, 0x80)).toBe(0); // a UTF-16 surrogate
    expect(at(0x61, 0x62, 0xe2, 0x82)).toBe(2); // cut short
    expect(at(0x80)).toBe(0); // a lone continuation byte
    expect(at(0xf4, 0x90, 0x80, 0x80)).toBe(0); // past U+10FFFF
  });
});
