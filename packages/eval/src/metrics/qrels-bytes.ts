/**
 * TREC qrels read from bytes, for `dv eval trec`: the file in one read and each line split by a
 * byte loop, where @dv/core's `readQrels` goes line by line through an async iterator, a regex
 * split and a regex per grade (most of its time on 40k-line qrels). The fast path takes files
 * whose every line is printable ASCII in exactly 4 columns with a grade of the form
 * `[+-]digits[.000]` (at most 15 digits) and no doc judged twice in a topic: lines `readQrels`
 * reads the same way (same topics, doc ids and grades, `-0` included). Any other file is handed to
 * `readQrels` itself, so its messages and rules stay in one place.
 */
import { readFile } from 'node:fs/promises';
import { type Qrels, readQrels } from '@dv/core';

const SLOW = Symbol('slow path');

/** `[+-]digits[.0...]` in bytes [s, e) as parseInt reads it; NaN for any other form. */
function wholeGrade(buf: Uint8Array, s: number, e: number): number {
  let i = s;
  const sign = buf[i];
  if (sign === 45 || sign === 43) i++;
  let v = 0;
  const d0 = i;
  while (i < e && buf[i]! >= 48 && buf[i]! <= 57) v = v * 10 + (buf[i++]! - 48);
  if (i === d0 || i - d0 > 15) return Number.NaN;
  if (i < e && buf[i] === 46) for (i++; i < e && buf[i] === 48; ) i++;
  if (i !== e) return Number.NaN;
  return sign === 45 ? -v : v;
}

function parse(buf: Uint8Array): Qrels {
  const qrels: Qrels = new Map();
  let lastQid = '';
  let topic: Map<string, number> | undefined;
  let rows = 0;
  const end = buf.length;
  const starts = [0, 0, 0, 0];
  const ends = [0, 0, 0, 0];
  let i = 0;
  while (i < end) {
    let fields = 0;
    let c = buf[i]!;
    for (;;) {
      while (c === 32 || c === 9 || c === 11 || c === 12 || c === 13) c = buf[++i]!;
      if (c === 10 || i >= end) break;
      const f0 = i;
      while (c > 32 && c < 127) c = buf[++i]!;
      if (i < end && c !== 32 && c !== 10 && (c < 9 || c > 13)) throw SLOW;
      if (fields < 4) {
        starts[fields] = f0;
        ends[fields] = i;
      }
      fields++;
    }
    i++; // past the \n (or the end)
    if (fields !== 4) throw SLOW;
    const grade = wholeGrade(buf, starts[3]!, ends[3]!);
    if (Number.isNaN(grade)) throw SLOW;
    const qid = Buffer.from(buf.buffer, buf.byteOffset + starts[0]!, ends[0]! - starts[0]!).toString(
      'latin1',
    );
    if (!topic || qid !== lastQid) {
      topic = qrels.get(qid);
      if (!topic) {
        topic = new Map();
        qrels.set(qid, topic);
      }
      lastQid = qid;
    }
    const doc = Buffer.from(buf.buffer, buf.byteOffset + starts[2]!, ends[2]! - starts[2]!).toString(
      'latin1',
    );
    if (topic.has(doc)) throw SLOW;
    topic.set(doc, grade);
    rows++;
  }
  if (rows === 0) throw SLOW;
  return qrels;
}

/** @internal `readQrels(path)`, faster on plain ASCII files (see the file comment). */
export async function readQrelsBytes(path: string): Promise<Qrels> {
  let buf: Buffer;
  try {
    buf = await readFile(path);
  } catch {
    return readQrels(path); // its message for a missing or unreadable file
  }
  try {
    return parse(buf);
  } catch (err) {
    if (err !== SLOW) throw err;
    return readQrels(path);
  }
}
