import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DataError, JsonlAppender, Passage, readJsonlAll, SeedExample, writeJsonl } from '../index.js';
import { tmpDir } from '../test-utils/tmp.js';

const P = (docid: string) => ({ docid, title: '', text: `text ${docid}` });

describe('readJsonl', () => {
  it('reads valid records, skipping blank lines, from plain and gzip files', async () => {
    const dir = tmpDir();
    const body = `${JSON.stringify(P('a'))}\n\n${JSON.stringify(P('b'))}\r\n`;
    writeFileSync(join(dir, 'p.jsonl'), body);
    writeFileSync(join(dir, 'p.jsonl.gz'), gzipSync(body));
    writeFileSync(join(dir, 'gz-without-extension'), gzipSync(body));
    for (const f of ['p.jsonl', 'p.jsonl.gz', 'gz-without-extension']) {
      const rows = await readJsonlAll(join(dir, f), Passage);
      expect(rows.map((r) => r.docid)).toEqual(['a', 'b']);
    }
  });

  it('names file and line for bad JSON', async () => {
    const dir = tmpDir();
    const f = join(dir, 'bad.jsonl');
    writeFileSync(f, `${JSON.stringify(P('a'))}\n{"docid": "b", \n`);
    await expect(readJsonlAll(f, Passage)).rejects.toThrow(new RegExp(`^${f}:2: invalid JSON`));
  });

  it('names file, line and field for a schema violation', async () => {
    const dir = tmpDir();
    const f = join(dir, 'bad.jsonl');
    writeFileSync(f, `${JSON.stringify(P('a'))}\n${JSON.stringify(P('b'))}\n{"docid":"c","text":5}\n`);
    const err = await readJsonlAll(f, Passage).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataError);
    expect((err as DataError).message).toMatch(new RegExp(`^${f}:3: text: `));
    expect((err as DataError).line).toBe(3);
  });

  it('refuses duplicate ids, naming both lines', async () => {
    const dir = tmpDir();
    const f = join(dir, 'dup.jsonl');
    writeFileSync(f, [P('a'), P('b'), P('a')].map((r) => JSON.stringify(r)).join('\n'));
    await expect(readJsonlAll(f, Passage, { uniqueBy: (p) => p.docid, uniqueName: 'docid' })).rejects.toThrow(
      `${f}:3: duplicate docid "a" (first seen on line 1)`,
    );
  });

  it('reports a missing file by name', async () => {
    await expect(readJsonlAll('/nonexistent/x.jsonl', Passage)).rejects.toThrow(
      '/nonexistent/x.jsonl: cannot open: ENOENT',
    );
  });

  it('a truncated last line is an error unless the reader tolerates a crashed appender', async () => {
    const dir = tmpDir();
    const f = join(dir, 'log.jsonl');
    writeFileSync(f, `${JSON.stringify(P('a'))}\n{"docid":"b","te`);
    await expect(readJsonlAll(f, Passage)).rejects.toThrow(`${f}:2: invalid JSON`);
    expect((await readJsonlAll(f, Passage, { allowTruncatedTail: true })).map((p) => p.docid)).toEqual(['a']);
  });
});

describe('writeJsonl (atomic)', () => {
  it('writes validated records and leaves no temp file', async () => {
    const dir = tmpDir();
    const f = join(dir, 'out', 'p.jsonl');
    expect(await writeJsonl(f, [P('a'), { docid: 'b', text: 't' }], Passage)).toBe(2);
    expect(readFileSync(f, 'utf8')).toBe(`${JSON.stringify(P('a'))}\n{"docid":"b","title":"","text":"t"}\n`);
    expect(readdirSync(join(dir, 'out'))).toEqual(['p.jsonl']);
  });

  it('an invalid record aborts the write: the old file stays, no partial file appears', async () => {
    const dir = tmpDir();
    const f = join(dir, 'p.jsonl');
    writeFileSync(f, 'old\n');
    await expect(writeJsonl(f, [P('a'), { docid: '', text: 'x' }], Passage)).rejects.toThrow(
      /record 2: docid/,
    );
    expect(readFileSync(f, 'utf8')).toBe('old\n');
    expect(readdirSync(dir)).toEqual(['p.jsonl']);
  });

  it('a generator that throws midway leaves nothing behind', async () => {
    const dir = tmpDir();
    const f = join(dir, 'p.jsonl');
    async function* gen() {
      yield P('a');
      throw new Error('boom');
    }
    await expect(writeJsonl(f, gen(), Passage)).rejects.toThrow('boom');
    expect(existsSync(f)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('round-trips seed examples', async () => {
    const dir = tmpDir();
    const f = join(dir, 's.jsonl');
    const seeds = [{ id: 's1', query: 'bass', instruction: { text: 'Only fish.' }, positives: [P('a')] }];
    await writeJsonl(f, seeds, SeedExample);
    const back = await readJsonlAll(f, SeedExample);
    expect(back[0]).toEqual(SeedExample.parse(seeds[0]));
  });
});

describe('JsonlAppender', () => {
  it('appends one line per record and resumes after a dangling partial record', async () => {
    const dir = tmpDir();
    const f = join(dir, 'log.jsonl');
    const a = new JsonlAppender(f, Passage);
    a.append(P('a'));
    a.append(P('b'));
    a.close();
    writeFileSync(f, `${readFileSync(f, 'utf8')}{"docid":"c","ti`); // crash mid-record
    const b = new JsonlAppender(f, Passage);
    expect(b.repairedBytes).toBe('{"docid":"c","ti'.length);
    b.append(P('c'));
    b.close();
    expect((await readJsonlAll(f, Passage)).map((p) => p.docid)).toEqual(['a', 'b', 'c']);
  });

  it('refuses invalid records without writing them', async () => {
    const dir = tmpDir();
    const f = join(dir, 'log.jsonl');
    const a = new JsonlAppender(f, z.object({ n: z.number() }));
    a.append({ n: 1 });
    expect(() => a.append({ n: 'x' } as unknown as { n: number })).toThrow(/n: /);
    a.close();
    expect(readFileSync(f, 'utf8')).toBe('{"n":1}\n');
  });
});

describe('writeBytesAtomic', () => {
  it('writes chunks byte for byte, without redaction, and leaves no temp file', async () => {
    const { writeBytesAtomic } = await import('../index.js');
    const dir = tmpDir();
    const f = join(dir, 'x.bin');
    process.env.DV_TEST_SECRET_TOKEN = 'abcdefgh-secret';
    try {
      const text = new TextEncoder().encode('abcdefgh-secret');
      writeBytesAtomic(f, [new Uint8Array([0, 255]), new Float32Array([1.5]), text]);
      const back = readFileSync(f);
      expect([...back.subarray(0, 2)]).toEqual([0, 255]);
      expect(new Float32Array(back.buffer.slice(back.byteOffset + 2, back.byteOffset + 6))[0]).toBe(1.5);
      expect(back.subarray(6).toString()).toBe('abcdefgh-secret');
      expect(readdirSync(dir)).toEqual(['x.bin']);
    } finally {
      delete process.env.DV_TEST_SECRET_TOKEN;
    }
  });
});
