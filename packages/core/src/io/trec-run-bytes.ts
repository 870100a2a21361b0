/**
 * The byte-level reader behind `readRunWithTag` for plain (not gzip) run files: the file in
 * 1 MiB chunks, each line split at ASCII whitespace by scanning bytes, and only the qid, doc id,
 * score and tag columns turned into strings; no per-line regex, string copies or async yield.
 * For a line of ASCII bytes this is exactly what the line reader does (`trim().split(/\s+/)`:
 * in ASCII, JavaScript's whitespace is C's isspace set, space \t \n \v \f \r). A line with any
 * byte >= 0x80 goes through `parseRunLine`, the line reader's own code, so Unicode whitespace and
 * every parity rule (trec.ts) stay one implementation. Numbers: `Number(s)` when finite, else
 * trec.ts's `parseScore` (inf, NaN and junk handling); that equals `parseScore` for every input.
 * Two allocations are skipped on the common path: a line whose qid bytes equal the previous
 * line's reuses that qid string (runs list a topic's docs together), and a score of the plain
 * form `[-]digits[.digits]` with at most 15 digits is read from the bytes as m / 10^k (m < 2^53
 * and 10^k <= 10^22 are exact doubles, so the one division rounds correctly: the value
 * `Number(text)` gives, Clinger's fast path); any other score goes through `Number(text)`.
 */
import { createReadStream } from 'node:fs';
import { DataError } from '../errors.js';
import type { Run } from '../schemas/qrels.js';

export interface RunLineSink {
  run: Run;
  tag: string | null;
  rows: number;
}

const POW10 = Array.from({ length: 23 }, (_, k) => 10 ** k);

/**
 * `[-]digits[.digits]` (at least one digit before the point, at most 15 digits in all) read
 * from bytes [s, e) as m / 10^k, exactly `Number` of the same text (see the file comment);
 * NaN for any other form (the caller then uses `Number`).
 */
export function plainDecimal(buf: Uint8Array, s: number, e: number): number {
  let i = s;
  const neg = buf[i] === 45; // '-'
  if (neg) i++;
  let m = 0;
  let digits = 0;
  let frac = -1;
  const intStart = i;
  for (; i < e; i++) {
    const c = buf[i]!;
    if (c >= 48 && c <= 57) {
      m = m * 10 + (c - 48);
      digits++;
      if (frac >= 0) frac++;
    } else if (c === 46 && frac < 0 && i > intStart) frac = 0;
    else return Number.NaN;
  }
  if (digits === 0 || digits > 15 || frac === 0) return Number.NaN;
  const v = frac > 0 ? m / POW10[frac]! : m;
  return neg ? -v : v;
}

/** Do bytes [s, e) of buf equal `want`? (A loop: qids are short, a native call costs more.) */
function sameBytes(buf: Uint8Array, s: number, e: number, want: Uint8Array): boolean {
  if (e - s !== want.length) return false;
  for (let k = 0; k < want.length; k++) if (buf[s + k] !== want[k]) return false;
  return true;
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
  let lastQid = '';
  let lastQidBytes = Buffer.alloc(0);
  let lastTopic: Map<string, number> | undefined;
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
    const q0 = starts[0]!;
    const q1 = ends[0]!;
    let topic: Map<string, number> | undefined;
    let qid: string;
    if (lastTopic && sameBytes(buf, q0, q1, lastQidBytes)) {
      qid = lastQid;
      topic = lastTopic;
    } else {
      qid = buf.toString('latin1', q0, q1);
      topic = sink.run.get(qid);
      if (!topic) {
        topic = new Map();
        sink.run.set(qid, topic);
      }
      lastQid = qid;
      lastQidBytes = Buffer.from(buf.subarray(q0, q1));
      lastTopic = topic;
    }
    const docid = buf.toString('latin1', starts[2]!, ends[2]!);
    let score = plainDecimal(buf, starts[4]!, ends[4]!);
    if (Number.isNaN(score)) {
      const text = buf.toString('latin1', starts[4]!, ends[4]!);
      const v = Number(text);
      score = Number.isFinite(v) ? v : parseScore(text, path, number);
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
