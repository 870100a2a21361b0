/**
 * TREC text formats as trec_eval 9.0.8 reads them.
 *   qrels: `qid iter docid grade`            (4 whitespace-separated columns, integer grade)
 *   run:   `qid Q0 docid rank score tag ...` (6 columns or more: trec_eval reads the first six
 *                                            and ignores the rest; numeric score; rank ignored)
 * Parity with trec_eval's parsers (issue 12 item 10): grades go through C `atol`, so `1.0`
 * reads as 1; scores through `atof`, so `inf` / `-inf` are scores; blank lines are refused, as
 * trec_eval refuses them. Where we are stricter we say so in the message: a fractional grade
 * (`atol` would silently truncate 1.5 to 1), a score with trailing junk (`atof` would read
 * `0.5abc` as 0.5) and a NaN score (no rank order). Problems are `DataError`s naming
 * `file:line`: wrong column count, bad values, a doc listed twice for one topic, an empty file.
 */
import { DataError } from '../errors.js';
import type { Qrels, Run } from '../schemas/qrels.js';
import { writeAtomic } from './atomic-write.js';
import { isGzipFile, readLines } from './lines.js';
import { type RunLineSink, readRunBytes } from './trec-run-bytes.js';

export async function readQrels(path: string): Promise<Qrels> {
  const qrels: Qrels = new Map();
  let rows = 0;
  for await (const line of readLines(path)) {
    if (line.text.trim() === '') throw blankLine(path, line.number);
    const cols = line.text.trim().split(/\s+/);
    if (cols.length !== 4) {
      throw new DataError(
        `qrels line needs 4 columns "qid iter docid grade", found ${cols.length}`,
        path,
        line.number,
      );
    }
    const [qid, , docid, g] = cols as [string, string, string, string];
    const grade = parseGrade(g, path, line.number);
    let topic = qrels.get(qid);
    if (!topic) {
      topic = new Map();
      qrels.set(qid, topic);
    }
    if (topic.has(docid))
      throw new DataError(`doc ${docid} judged twice for topic ${qid}`, path, line.number);
    topic.set(docid, grade);
    rows++;
  }
  if (rows === 0) throw new DataError('qrels file is empty', path);
  return qrels;
}

function blankLine(path: string, line: number): DataError {
  return new DataError('blank line (trec_eval refuses blank lines too; remove it)', path, line);
}

/** A grade as trec_eval's `atol` reads whole numbers (`2`, `-1`, `1.0`); fractions are refused. */
function parseGrade(g: string, path: string, line: number): number {
  if (/^[+-]?\d+(\.0*)?$/.test(g)) return Number.parseInt(g, 10);
  if (/^[+-]?\d*\.\d+$/.test(g))
    throw new DataError(
      `grade must be a whole number, found ${JSON.stringify(g)} (trec_eval's atol would silently truncate it to ${Number.parseInt(g, 10) || 0}; we refuse rather than guess)`,
      path,
      line,
    );
  throw new DataError(`grade must be an integer, found ${JSON.stringify(g)}`, path, line);
}

/** A score as trec_eval's `atof` reads it, `inf` / `-inf` included; NaN and junk are refused. */
function parseScore(s: string, path: string, line: number): number {
  if (/^[+-]?inf(inity)?$/i.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
  const score = Number(s);
  if (/^[+-]?nan$/i.test(s))
    throw new DataError(
      'score is NaN, which has no rank order (trec_eval would accept it and rank arbitrarily)',
      path,
      line,
    );
  if (!Number.isFinite(score))
    throw new DataError(
      `score must be a number, found ${JSON.stringify(s)}${/^[+-]?(\d|\.\d)/.test(s) ? " (trec_eval's atof would read only its leading digits; we refuse rather than guess)" : ''}`,
      path,
      line,
    );
  return score;
}

export interface TrecRunFile {
  run: Run;
  tag: string | null;
}

export async function readRun(path: string): Promise<Run> {
  return (await readRunWithTag(path)).run;
}

/**
 * Reads a run in TREC's form (`qid Q0 docid rank score tag`, 6 columns or more) or in the
 * 3-column form Tevatron's search driver writes (`qid docid score`, tab-separated, no tag). The
 * first line decides; a file mixing the two is an error naming the line.
 */
export async function readRunWithTag(path: string): Promise<TrecRunFile> {
  if ((await firstLineColumns(path)) === 3) return readTevatronRun(path);
  let gz: boolean;
  try {
    gz = await isGzipFile(path);
  } catch (err) {
    throw new DataError(
      `cannot open: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      path,
    );
  }
  // Plain files: the byte-level reader (same rules; it hands non-ASCII lines to parseRunLine).
  const sink = gz
    ? await readRunLines(path)
    : await readRunBytes(path, (text, n, into) => parseRunLine(text, n, path, into), parseScore, blankLine);
  if (sink.rows === 0) throw new DataError('run file is empty', path);
  return { run: sink.run, tag: sink.tag };
}

/** Column count of the first line, or undefined for an empty or unreadable file (the readers say why). */
async function firstLineColumns(path: string): Promise<number | undefined> {
  try {
    for await (const line of readLines(path)) return line.text.trim().split(/\s+/).length;
  } catch {
    return undefined;
  }
  return undefined;
}

/** Tevatron's `qid docid score` run (no tag), every line 3 columns, the same value rules. */
async function readTevatronRun(path: string): Promise<TrecRunFile> {
  const run: Run = new Map();
  let rows = 0;
  for await (const line of readLines(path)) {
    if (line.text.trim() === '') throw blankLine(path, line.number);
    const cols = line.text.trim().split(/\s+/);
    if (cols.length !== 3)
      throw new DataError(
        `run line needs 3 columns "qid docid score" like the lines before it, found ${cols.length}`,
        path,
        line.number,
      );
    const [qid, docid, s] = cols as [string, string, string];
    const score = parseScore(s, path, line.number);
    let topic = run.get(qid);
    if (!topic) {
      topic = new Map();
      run.set(qid, topic);
    }
    if (topic.has(docid))
      throw new DataError(`doc ${docid} appears twice in topic ${qid}`, path, line.number);
    topic.set(docid, score);
    rows++;
  }
  if (rows === 0) throw new DataError('run file is empty', path);
  return { run, tag: null };
}

/** The line-by-line reader (gzip runs, and the reference the byte reader is tested against). */
export async function readRunLines(path: string): Promise<RunLineSink> {
  const sink: RunLineSink = { run: new Map(), tag: null, rows: 0 };
  for await (const line of readLines(path)) parseRunLine(line.text, line.number, path, sink);
  return sink;
}

/** One run line (`qid Q0 docid rank score tag ...`) into the run, with trec.ts's rules. */
function parseRunLine(text: string, number: number, path: string, sink: RunLineSink): void {
  if (text.trim() === '') throw blankLine(path, number);
  const cols = text.trim().split(/\s+/);
  if (cols.length < 6) {
    throw new DataError(
      `run line needs 6 columns "qid Q0 docid rank score tag", found ${cols.length}`,
      path,
      number,
    );
  }
  const [qid, , docid, , s, t] = cols as [string, string, string, string, string, string];
  const score = parseScore(s, path, number);
  let topic = sink.run.get(qid);
  if (!topic) {
    topic = new Map();
    sink.run.set(qid, topic);
  }
  if (topic.has(docid)) throw new DataError(`doc ${docid} appears twice in topic ${qid}`, path, number);
  topic.set(docid, score);
  sink.tag ??= t;
  sink.rows++;
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
  const n = scores.size;
  const docs = new Array<string>(n);
  const values = new Float64Array(n);
  let k = 0;
  for (const [d, s] of scores) {
    docs[k] = d;
    values[k++] = options.float32 ? Math.fround(s) : s;
  }
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  // comparisons, not subtraction: Infinity - Infinity is NaN
  order.sort((a, b) => {
    const x = values[a]!;
    const y = values[b]!;
    return x !== y ? (y > x ? 1 : -1) : compareBytesDesc(docs[a]!, docs[b]!);
  });
  const out = new Array<string>(n);
  for (let i = 0; i < n; i++) out[i] = docs[order[i]!]!;
  return out;
}

/** A UTF-16 surrogate code unit (without one, code-unit order is UTF-8 byte order). */
const SURROGATE = /[\ud800-\udfff]/;

/**
 * Doc ids descending by byte order (trec_eval compares with strcmp). UTF-8 byte order is code
 * point order, which JavaScript's code-unit comparison matches unless a string holds a
 * surrogate (then both are compared as UTF-8 bytes).
 */
export function compareBytesDesc(a: string, b: string): number {
  if (a === b) return 0;
  if (!SURROGATE.test(a) && !SURROGATE.test(b)) return a < b ? 1 : -1;
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
