/**
 * The byte-level reader behind `readRunWithTag` for plain (not gzip) run files: the file in
 * 1 MiB chunks, each line split at ASCII whitespace by scanning bytes, and only the qid, doc id,
 * score and tag columns turned into strings; no per-line regex, string copies or async yield.
 * For a line of ASCII bytes this is exactly what the line reader does (`trim().split(/\s+/)`:
 * in ASCII, JavaScript's whitespace is C's isspace set, space \t \n \v \f \r). A line with any
 * byte >= 0x80 goes through `parseRunLine`, the line reader's own code, so Unicode whitespace and
 * every parity rule (trec.ts) stay one implementation. Numbers: `Number(s)` when finite, else
 * trec.ts's `parseScore` (inf, NaN and junk handling); that equals `parseScore` for every input.
 */
import { createReadStream } from 'node:fs';
import { DataError } from '../errors.js';
import type { Run } from '../schemas/qrels.js';

export interface RunLineSink {
  run: Run;
  tag: string | null;
  rows: number;
}

/** Is byte b ASCII whitespace (space, \t, \n, \v, \f, \r)? */
const isSpace = (b: number) => b === 32 || (b >= 9 && b <= 13);

export async function readRunBytes(
  path: string,
  parseRunLine: (text: string, line: number, sink: RunLineSink) => void,
  parseScore: (s: string, path: string, line: number) => number,
  blankLine: (path: string, line: number) => DataError,
): Promise<RunLineSink> {
  const sink: RunLineSink = { run: new Map(), tag: null, rows: 0 };
  let number = 0;
  const starts = [0, 0, 0, 0, 0, 0];
  const ends = [0, 0, 0, 0, 0, 0];
  const parse = (buf: Buffer, s: number, e: number) => {
    number++;
    let fields = 0;
    let i = s;
    let ascii = true;
    while (i < e) {
      const b = buf[i]!;
      if (b >= 0x80) {
        ascii = false;
        break;
      }
      if (isSpace(b)) {
        i++;
        continue;
      }
      const f0 = i;
      while (i < e) {
        const c = buf[i]!;
        if (c >= 0x80) {
          ascii = false;
          break;
        }
        if (isSpace(c)) break;
        i++;
      }
      if (!ascii) break;
      if (fields < 6) {
        starts[fields] = f0;
        ends[fields] = i;
      }
      fields++;
    }
    if (!ascii) return parseRunLine(buf.toString('utf8', s, e).replace(/\r$/, ''), number, sink);
    if (fields === 0) throw blankLine(path, number);
    if (fields < 6)
      throw new DataError(
        `run line needs 6 columns "qid Q0 docid rank score tag", found ${fields}`,
        path,
        number,
      );
    const qid = buf.toString('latin1', starts[0]!, ends[0]!);
    const docid = buf.toString('latin1', starts[2]!, ends[2]!);
    const text = buf.toString('latin1', starts[4]!, ends[4]!);
    const v = Number(text);
    const score = Number.isFinite(v) ? v : parseScore(text, path, number);
    let topic = sink.run.get(qid);
    if (!topic) {
      topic = new Map();
      sink.run.set(qid, topic);
    }
    if (topic.has(docid)) throw new DataError(`doc ${docid} appears twice in topic ${qid}`, path, number);
    topic.set(docid, score);
    sink.tag ??= buf.toString('latin1', starts[5]!, ends[5]!);
    sink.rows++;
  };
  let carry: Buffer | null = null;
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
      const buf: Buffer = carry ? Buffer.concat([carry, chunk as Buffer]) : (chunk as Buffer);
      let start = 0;
      for (let nl = buf.indexOf(10, start); nl !== -1; nl = buf.indexOf(10, start)) {
        parse(buf, start, nl);
        start = nl + 1;
      }
      carry = start < buf.length ? buf.subarray(start) : null;
    }
  } catch (err) {
    if (err instanceof DataError) throw err;
    throw new DataError(`read failed after line ${number}: ${(err as Error).message}`, path);
  }
  if (carry) parse(carry, 0, carry.length);
  return sink;
}
