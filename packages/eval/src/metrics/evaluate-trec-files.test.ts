/**
 * `evaluateTrecFiles` (qrels from bytes, the run in columns: the `dv eval trec` path, issue 24)
 * against the reference `evaluateRun(readQrels, readRun)`: the same numbers on runs with ties
 * (float64 and float32-only), interleaved topics, grades 0 and negative, judged docs never
 * retrieved; the files the fast paths hand to @dv/core (non-ASCII, inf, Tevatron's 3 columns,
 * gzip, CRLF, no last newline); and the same errors for bad files.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createRng, readQrels, readRun } from '@dv/core';
import { afterAll, describe, expect, it } from 'vitest';
import { evaluateRun } from './evaluate-run.js';
import { evaluateTrecFiles } from './evaluate-trec-files.js';
import { readQrelsBytes } from './qrels-bytes.js';
import { readRunColumns, runColumnsFromRun } from './run-columns.js';

const dir = mkdtempSync(join(tmpdir(), 'dv-trec-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const file = (text: string | Buffer) => {
  const p = join(dir, `f${files++}`);
  writeFileSync(p, text);
  return p;
};

const MEASURES = 'ndcg_cut.5,ndcg,map_cut.10,map,P.5,recall.10,recip_rank,recip_rank_cut.3';

async function reference(q: string, r: string, float32: boolean) {
  return evaluateRun(await readQrels(q), await readRun(r), MEASURES, { float32 });
}

async function expectSame(q: string, r: string) {
  for (const float32 of [true, false])
    expect(await evaluateTrecFiles(q, r, MEASURES, { float32 })).toEqual(await reference(q, r, float32));
}

/** A random run and qrels: scores from a few values (ties), topics in pieces (interleaved). */
function randomFiles(seed: number, opts: { interleave: boolean; levels: number }) {
  const rng = createRng(seed);
  const runLines: string[] = [];
  const qrelLines: string[] = [];
  const pieces: string[][] = [];
  for (let t = 0; t < 12; t++) {
    const qid = `${t % 3 === 0 ? '' : 'q'}${t * 7}`; // numeric-looking and not
    const n = 1 + rng.int(60);
    const lines: string[] = [];
    for (let i = 0; i < n; i++) {
      // few distinct scores: many ties; 1 + 1e-9 steps tie only in float32
      const s = rng.int(opts.levels) / 4 + (rng.float() < 0.3 ? rng.int(3) * 1e-9 : 0);
      lines.push(`${qid} Q0 doc-${rng.int(3)}${i} ${i + 1} ${s} tag`);
    }
    for (let i = 0; i < n + 5; i += 1 + rng.int(3))
      qrelLines.push(`${qid} 0 doc-${rng.int(3)}${i} ${rng.int(4) - 1}`);
    if (t === 5) continue; // judged, not retrieved
    pieces.push(lines);
  }
  runLines.push('extra Q0 z 1 0.5 tag'); // retrieved, not judged
  if (opts.interleave) {
    while (pieces.some((p) => p.length > 0))
      for (const p of pieces) runLines.push(...p.splice(0, 1 + rng.int(5)));
  } else for (const p of pieces) runLines.push(...p);
  // a qrels doc listed twice would be refused: keep the first of each
  const seen = new Set<string>();
  const qrels = qrelLines.filter((l) => {
    const [q, , d] = l.split(' ');
    const k = `${q} ${d}`;
    return !seen.has(k) && seen.add(k);
  });
  const seenRun = new Set<string>();
  const run = runLines.filter((l) => {
    const [q, , d] = l.split(' ');
    const k = `${q} ${d}`;
    return !seenRun.has(k) && seenRun.add(k);
  });
  return { qrels: file(`${qrels.join('\n')}\n`), run: file(`${run.join('\n')}\n`) };
}

describe('evaluateTrecFiles equals evaluateRun(readQrels, readRun)', () => {
  it.each([
    [1, false, 3],
    [2, true, 3],
    [3, true, 40],
    [4, false, 1], // every doc of a topic tied: the comparator-sort fallback
  ])('random run %d (interleaved %s, %d score levels)', async (seed, interleave, levels) => {
    const { qrels, run } = randomFiles(seed, { interleave, levels });
    await expectSame(qrels, run);
  });

  it('ranks ties by doc id descending in byte order, -0 = 0, exponents and long decimals', async () => {
    const q = file('1 0 b 1\n1 0 B 2\n1 0 a10 1\n1 0 a9 1\n1 0 e 1\n');
    const r = file(
      [
        '1 Q0 a9 1 0 t',
        '1 Q0 a10 2 -0 t',
        '1 Q0 B 3 0.0 t',
        '1 Q0 b 4 5e-1 t',
        '1 Q0 e 5 0.50000000000000000001 t',
        '1 Q0 x 6 +0.5 t',
      ].join('\n'),
    );
    await expectSame(q, r);
  });

  it('a topic with many tied judged docs (one comparator sort instead of a scan per doc)', async () => {
    const ids = Array.from({ length: 90 }, (_, i) => `d${(i * 37) % 90}`);
    const r = file(ids.map((d, i) => `q 0 ${d} ${i} ${i % 3 === 0 ? 2 : 1} t`).join('\n'));
    const q = file(ids.map((d, i) => `q 0 ${d} ${i % 4 === 0 ? 0 : 1 + (i % 3)}`).join('\n'));
    await expectSame(q, r);
  });

  it.each([
    ['non-ASCII doc ids', 'q1 Q0 dé 1 0.5 t\nq1 Q0 d 2 0.4 t\n', 'q1 0 dé 1\nq1 0 d 1\n'],
    ['a no-break space inside a column', 'q1 Q0 d\u00a0x 1 0.5 t\nq1 Q0 e 2 0.4 t\n', 'q1 0 x 1\nq1 0 e 1\n'],
    ['inf scores', 'q1 Q0 a 1 inf t\nq1 Q0 b 2 -inf t\nq1 Q0 c 3 0.1 t\n', 'q1 0 b 1\nq1 0 c 1\n'],
    ["Tevatron's 3 columns", 'q1\ta\t0.5\nq1\tb\t0.7\n', 'q1 0 a 1\n'],
    ['CRLF and no last newline', 'q1 Q0 a 1 0.5 t\r\nq1 Q0 b 2 0.7 t', 'q1 0 a 1\r\nq1 0 b 2.0'],
    ['extra columns and tabs', 'q1\tQ0\ta\t1\t0.5\tt\tmore\n', 'q1\t0\ta\t+1\n'],
  ])('%s (the files @dv/core reads)', async (_name, run, qrels) => {
    await expectSame(file(qrels), file(run));
  });

  it('gzip files', async () => {
    await expectSame(file(gzipSync('q1 0 a 1\n')), file(gzipSync('q1 Q0 a 1 0.5 t\nq1 Q0 b 2 0.7 t\n')));
  });

  it.each([
    ['a doc listed twice', 'q1 Q0 a 1 0.5 t\nq1 Q0 b 1 0.5 t\nq1 Q0 a 1 0.4 t\n'],
    ['a blank line', 'q1 Q0 a 1 0.5 t\n\nq1 Q0 b 1 0.5 t\n'],
    ['5 columns', 'q1 Q0 a 1 0.5\n'],
    ['a NaN score', 'q1 Q0 a 1 nan t\n'],
    ['junk after the score', 'q1 Q0 a 1 0.5x t\n'],
    ['an empty file', ''],
  ])('run with %s: the same error as readRun', async (_name, text) => {
    const q = file('q1 0 a 1\n');
    const r = file(text);
    const want = await reference(q, r, true).catch((e: Error) => e.message);
    await expect(evaluateTrecFiles(q, r, MEASURES)).rejects.toThrow(want as string);
  });

  it.each([
    ['a doc judged twice', 'q1 0 a 1\nq1 0 a 2\n'],
    ['a fractional grade', 'q1 0 a 1.5\n'],
    ['3 columns', 'q1 a 1\n'],
    ['a blank line', 'q1 0 a 1\n\n'],
    ['an empty file', ''],
  ])('qrels with %s: the same error as readQrels', async (_name, text) => {
    const q = file(text);
    const want = await readQrels(q).catch((e: Error) => e.message);
    await expect(readQrelsBytes(q)).rejects.toThrow(want as string);
  });

  it('a missing file: the same error', async () => {
    const missing = join(dir, 'missing');
    const want = await readRun(missing).catch((e: Error) => e.message);
    await expect(readRunColumns(missing)).rejects.toThrow(want as string);
  });

  it('qrels: the same map as readQrels on plain files (grades +1, 2.0, -0)', async () => {
    const q = file('q1 0 a +1\nq2 0 b 2.0\nq1 0 c -0\n10 0 d 3\n');
    expect(await readQrelsBytes(q)).toEqual(await readQrels(q));
  });

  it('runColumnsFromRun and readRunColumns hold the same run', async () => {
    const { run } = randomFiles(9, { interleave: true, levels: 5 });
    const a = await readRunColumns(run);
    const b = runColumnsFromRun(await readRun(run));
    expect(a.qids).toEqual(b.qids);
    expect(a.topicStart).toEqual(b.topicStart);
    expect(a.scores).toEqual(b.scores);
  });
});
