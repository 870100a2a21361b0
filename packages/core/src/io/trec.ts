/**
 * TREC text formats as trec_eval 9.0.8 reads them.
 *   qrels: `qid iter docid grade`            (4 whitespace-separated columns, integer grade)
 *   run:   `qid Q0 docid rank score tag`     (6 columns, numeric score; rank is ignored)
 * Problems are `DataError`s naming `file:line`: wrong column count, non-numeric values,
 * a doc listed twice for one topic, an empty file.
 */
import { DataError } from '../errors.js';
import type { Qrels, Run } from '../schemas/qrels.js';
import { writeAtomic } from './atomic-write.js';
import { readLines } from './lines.js';

export async function readQrels(path: string): Promise<Qrels> {
  const qrels: Qrels = new Map();
  let rows = 0;
  for await (const line of readLines(path)) {
    if (line.text.trim() === '') continue;
    const cols = line.text.trim().split(/\s+/);
    if (cols.length !== 4) {
      throw new DataError(
        `qrels line needs 4 columns "qid iter docid grade", found ${cols.length}`,
        path,
        line.number,
      );
    }
    const [qid, , docid, g] = cols as [string, string, string, string];
    if (!/^-?\d+$/.test(g))
      throw new DataError(`grade must be an integer, found ${JSON.stringify(g)}`, path, line.number);
    let topic = qrels.get(qid);
    if (!topic) {
      topic = new Map();
      qrels.set(qid, topic);
    }
    if (topic.has(docid))
      throw new DataError(`doc ${docid} judged twice for topic ${qid}`, path, line.number);
    topic.set(docid, Number.parseInt(g, 10));
    rows++;
  }
  if (rows === 0) throw new DataError('qrels file is empty', path);
  return qrels;
}

export interface TrecRunFile {
  run: Run;
  tag: string | null;
}

export async function readRun(path: string): Promise<Run> {
  return (await readRunWithTag(path)).run;
}

/**
 * Reads a run in TREC's 6-column form (`qid Q0 docid rank score tag`) or in the 3-column form
 * Tevatron's search driver writes (`qid docid score`, tab-separated, no tag). The first line
 * decides; a file mixing the two is an error naming the line.
 */
export async function readRunWithTag(path: string): Promise<TrecRunFile> {
  const run: Run = new Map();
  let rows = 0;
  let tag: string | null = null;
  let width: 3 | 6 | undefined;
  for await (const line of readLines(path)) {
    if (line.text.trim() === '') continue;
    const cols = line.text.trim().split(/\s+/);
    if (width === undefined && (cols.length === 6 || cols.length === 3)) width = cols.length;
    if (cols.length !== width) {
      throw new DataError(
        width === 3
          ? `run line needs 3 columns "qid docid score" like the lines before it, found ${cols.length}`
          : width === 6
            ? `run line needs 6 columns "qid Q0 docid rank score tag", found ${cols.length}`
            : `run line needs 6 columns "qid Q0 docid rank score tag" (TREC) or 3 "qid docid score" (Tevatron), found ${cols.length}`,
        path,
        line.number,
      );
    }
    const [qid, docid, s, t] =
      width === 6 ? [cols[0]!, cols[2]!, cols[4]!, cols[5]!] : [cols[0]!, cols[1]!, cols[2]!, undefined];
    const score = Number(s);
    if (s.trim() === '' || !Number.isFinite(score)) {
      throw new DataError(`score must be a finite number, found ${JSON.stringify(s)}`, path, line.number);
    }
    let topic = run.get(qid);
    if (!topic) {
      topic = new Map();
      run.set(qid, topic);
    }
    if (topic.has(docid))
      throw new DataError(`doc ${docid} appears twice in topic ${qid}`, path, line.number);
    topic.set(docid, score);
    if (t !== undefined) tag ??= t;
    rows++;
  }
  if (rows === 0) throw new DataError('run file is empty', path);
  return { run, tag };
}

/**
 * Ranks a topic the trec_eval way: score descending, ties by doc id descending
 * (byte order of the id strings). `float32: true` rounds scores with Math.fround first
 * (pytrec_eval stores scores as float32, which creates ties float64 would not).
 */
export function rankTopic(
  scores: ReadonlyMap<string, number>,
  options: { float32?: boolean } = {},
): string[] {
  const f = options.float32 ? Math.fround : (x: number) => x;
  return [...scores.entries()]
    .map(([d, s]) => [d, f(s)] as const)
    .sort((a, b) => (b[1] !== a[1] ? b[1] - a[1] : compareBytesDesc(a[0], b[0])))
    .map(([d]) => d);
}

/** Doc ids descending by byte order (trec_eval compares with strcmp). */
export function compareBytesDesc(a: string, b: string): number {
  if (a === b) return 0;
  return Buffer.compare(Buffer.from(b), Buffer.from(a));
}

export async function writeRun(path: string, run: Run, tag = 'dv'): Promise<void> {
  await writeAtomic(path, (write) => {
    for (const qid of [...run.keys()].sort()) {
      const scores = run.get(qid)!;
      rankTopic(scores).forEach((docid, i) => {
        write(`${qid} Q0 ${docid} ${i + 1} ${scores.get(docid)} ${tag}\n`);
      });
    }
  });
}

export async function writeQrels(path: string, qrels: Qrels): Promise<void> {
  await writeAtomic(path, (write) => {
    for (const qid of [...qrels.keys()].sort()) {
      for (const [docid, grade] of qrels.get(qid)!) write(`${qid} 0 ${docid} ${grade}\n`);
    }
  });
}
