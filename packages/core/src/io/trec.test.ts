import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rankTopic, readQrels, readRun, readRunWithTag, writeRun } from '../index.js';
import { tmpDir } from '../test-utils/tmp.js';
import { writeQrels } from './trec.js';

describe('TREC qrels', () => {
  it('reads `qid iter docid grade`', async () => {
    const dir = tmpDir();
    const f = join(dir, 'q.txt');
    writeFileSync(f, '1 0 a 2\n1 0 b 0\n2\t0\tc\t-1\n');
    const q = await readQrels(f);
    expect([...q.get('1')!]).toEqual([
      ['a', 2],
      ['b', 0],
    ]);
    expect(q.get('2')!.get('c')).toBe(-1);
  });
  it.each([
    ['1 0 a\n', ':1: qrels line needs 4 columns'],
    ['1 0 a x\n', ':1: grade must be an integer'],
    // issue 12 item 10: stricter than trec_eval, and the message says how and why
    [
      '1 0 a 1.5\n',
      ':1: grade must be a whole number, found "1.5" (trec_eval\'s atol would silently truncate it to 1',
    ],
    ['1 0 a 1\n\n1 0 b 1\n', ':2: blank line (trec_eval refuses blank lines too'],
    ['1 0 a 1\n1 0 a 2\n', ':2: doc a judged twice for topic 1'],
    ['', ': qrels file is empty'],
  ])('refuses %j with file:line', async (body, msg) => {
    const dir = tmpDir();
    const f = join(dir, 'q.txt');
    writeFileSync(f, body);
    await expect(readQrels(f)).rejects.toThrow(`${f}${msg}`);
  });
});

describe('TREC runs', () => {
  it('reads `qid Q0 docid rank score tag` ignoring the rank column', async () => {
    const dir = tmpDir();
    const f = join(dir, 'r.txt');
    writeFileSync(f, '1 Q0 a 1 0.5 t\n1 Q0 b 2 1.5 t\n');
    const r = await readRun(f);
    expect(rankTopic(r.get('1')!)).toEqual(['b', 'a']);
  });
  it('reads the 3-column `qid docid score` run Tevatron search writes (no tag)', async () => {
    const dir = tmpDir();
    const f = join(dir, 'rank.txt');
    // tevatron.retriever.driver.search --save_text: f"{qid}\t{docid}\t{score}\n" per hit.
    writeFileSync(f, 'q1\td7\t12.5\nq1\td3\t13.25\nq2\td7\t-1\n');
    const { run, tag } = await readRunWithTag(f);
    expect(tag).toBeNull();
    expect(rankTopic(run.get('q1')!)).toEqual(['d3', 'd7']);
    expect(run.get('q2')).toEqual(new Map([['d7', -1]]));
    writeFileSync(f, 'q1\td7\t12.5\n1 Q0 a 1 0.5 t\n');
    await expect(readRun(f)).rejects.toThrow(`${f}:2: run line needs 3 columns "qid docid score"`);
  });
  it.each([
    ['1 Q0 a 1 0.5\n', ':1: run line needs 6 columns "qid Q0 docid rank score tag"'],
    ['1 Q0 a 1 0.5 t\n1 a 0.5\n', ':2: run line needs 6 columns'],
    ['1 Q0 a 1 high t\n', ':1: score must be a number, found "high"'],
    ['1 Q0 a 1 0.5abc t\n', ':1: score must be a number, found "0.5abc" (trec_eval\'s atof would read only'],
    ['1 Q0 a 1 nan t\n', ':1: score is NaN, which has no rank order'],
    ['\n\n', ':1: blank line'],
    ['1 Q0 a 1 0.5 t\n1 Q0 a 2 0.4 t\n', ':2: doc a appears twice in topic 1'],
    ['', ': run file is empty'],
  ])('refuses %j with file:line', async (body, msg) => {
    const dir = tmpDir();
    const f = join(dir, 'r.txt');
    writeFileSync(f, body);
    await expect(readRun(f)).rejects.toThrow(`${f}${msg}`);
  });
  it('accepts what trec_eval 9.0.8 accepts: 7+ columns, grades 1.0, inf / -inf scores (issue 12 item 10)', async () => {
    const dir = tmpDir();
    const r = join(dir, 'r.txt');
    writeFileSync(r, '1 Q0 a 1 inf t extra cols\n1 Q0 b 2 -inf t\n1 Q0 c 3 0.5 t\n1 Q0 d 4 INF t\n');
    const run = await readRun(r);
    expect(run.get('1')!.get('a')).toBe(Infinity);
    expect(rankTopic(run.get('1')!)).toEqual(['d', 'a', 'c', 'b']);
    const q = join(dir, 'q.txt');
    writeFileSync(q, '1 0 a 1.0\n1 0 b 2.\n1 0 c -1\n');
    expect([...(await readQrels(q)).get('1')!.values()]).toEqual([1, 2, -1]);
  });
  it('ranks ties by doc id descending, and float32 rounding creates ties', () => {
    expect(
      rankTopic(
        new Map([
          ['a', 1],
          ['c', 1],
          ['b', 2],
        ]),
      ),
    ).toEqual(['b', 'c', 'a']);
    // 1 and 1 + 1e-9 differ in float64 but are equal in float32.
    const s = new Map([
      ['a', 1 + 1e-9],
      ['b', 1],
    ]);
    expect(rankTopic(s)).toEqual(['a', 'b']);
    expect(rankTopic(s, { float32: true })).toEqual(['b', 'a']);
  });
  it('breaks ties in UTF-8 byte order (strcmp), also where UTF-16 code-unit order differs', () => {
    // U+1F600 (F0 9F 98 80) sorts after U+FF01 (EF BC 81) as bytes, before it as UTF-16 units.
    const ids = ['\u{1F600}', '\uFF01', 'z', 'Z', '\u00e9', 'e', 'ab', 'a'];
    const tied = new Map(ids.map((d) => [d, 0.5]));
    const byBytes = [...ids].sort((x, y) => Buffer.compare(Buffer.from(y), Buffer.from(x)));
    expect(byBytes[0]).toBe('\u{1F600}');
    expect(rankTopic(tied)).toEqual(byBytes);
  });
  it('writes runs ranked and qrels, and reads them back', async () => {
    const dir = tmpDir();
    const run = new Map([
      [
        'q1',
        new Map([
          ['a', 0.1],
          ['b', 0.9],
        ]),
      ],
    ]);
    await writeRun(join(dir, 'run'), run, 'tag');
    expect(readFileSync(join(dir, 'run'), 'utf8')).toBe('q1 Q0 b 1 0.9 tag\nq1 Q0 a 2 0.1 tag\n');
    expect(await readRun(join(dir, 'run'))).toEqual(run);
    const qrels = new Map([['q1', new Map([['a', 1]])]]);
    await writeQrels(join(dir, 'qrels'), qrels);
    expect(await readQrels(join(dir, 'qrels'))).toEqual(qrels);
  });
});
