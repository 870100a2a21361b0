/**
 * A TREC run in columns, for `dv eval trec` on large runs: per topic a contiguous range of
 * entries, each entry a score (Float64Array) and its doc id as a byte range of one shared byte
 * array, plus a hash table on (topic, doc id bytes). The `Run` type (`Map<qid, Map<doc, score>>`)
 * costs one JS string and one Map entry per line, whose allocation and garbage collection were
 * most of a 1M-line evaluation; here doc ids stay bytes and only judged docs are ever looked up.
 *
 * `readRunColumns` has one fast path and one reference path. The fast path reads plain files
 * whose every line is ASCII with 6+ columns, a score that `Number` reads as a finite number, and
 * no (topic, doc) listed twice: exactly the lines @dv/core's `readRun` accepts without any of its
 * special rules (inf scores, Unicode whitespace, Tevatron's 3 columns, gzip), and for them it gives
 * the same topics, doc ids and scores. Any other file (a line outside that set, gzip, an empty or
 * unreadable file) is read again by `readRunWithTag` and converted, so every message, refusal and
 * special rule stays @dv/core's, in one implementation.
 */
import { open } from 'node:fs/promises';
import { type Run, readRunWithTag } from '@dv/core';

/** @internal A run in columns (see the file comment). Entries of topic t: [topicStart[t], topicStart[t + 1]). */
export interface RunColumns {
  /** Topic ids in the order the file first lists them. */
  readonly qids: readonly string[];
  readonly topicStart: Int32Array;
  /** Entry -> score as written (float64). */
  readonly scores: Float64Array;
  /** Entry -> its doc id's bytes [docStart, docEnd) in `bytes` (UTF-8). */
  readonly docStart: Int32Array;
  readonly docEnd: Int32Array;
  readonly bytes: Uint8Array;
  /** Entry -> hash of (topic, doc id bytes). */
  readonly hashes: Int32Array;
  /**
   * One open-addressing hash table per topic, topic t's in table[tableStart[t], tableStart[t + 1])
   * (a power of two, at least twice its entries: small and local, where one table for the whole
   * run missed the cache on every line); each slot holds entry + 1, 0 when empty.
   */
  readonly tableStart: Int32Array;
  readonly table: Int32Array;
}

/** FNV-1a over the doc id bytes, seeded by the topic index. */
const FNV_PRIME = 16777619;
const seedOf = (topic: number) => Math.imul(0x811c9dc5 ^ topic, FNV_PRIME);

/** Thrown inside the fast path when a line needs @dv/core's reader. */
const SLOW = Symbol('slow path');

const POW10 = Array.from({ length: 16 }, (_, k) => 10 ** k);

/**
 * `[-]digits[.digits]` with at most 15 digits, read from bytes [s, e) as m / 10^k: m < 2^53 and
 * 10^k are exact doubles, so the one division rounds correctly, the value `Number` gives for the
 * text. NaN for any other form (the caller then uses `Number`).
 */
function plainDecimal(buf: Uint8Array, s: number, e: number): number {
  let i = s;
  const neg = buf[i] === 45;
  if (neg) i++;
  const intStart = i;
  let m = 0;
  let digits = 0;
  let frac = -1;
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

/** Growable columns while reading; `finish` groups them by topic and builds the table. */
class Builder {
  qids: string[] = [];
  topicOf = new Map<string, number>();
  n = 0;
  topic: Int32Array;
  scores: Float64Array;
  docStart: Int32Array;
  docEnd: Int32Array;
  hashes: Int32Array;
  bytes: Uint8Array;
  used = 0;

  constructor(expected: number) {
    const cap = Math.max(1024, expected);
    this.topic = new Int32Array(cap);
    this.scores = new Float64Array(cap);
    this.docStart = new Int32Array(cap);
    this.docEnd = new Int32Array(cap);
    this.hashes = new Int32Array(cap);
    this.bytes = new Uint8Array(cap * 12);
  }

  topicIndex(qid: string): number {
    let t = this.topicOf.get(qid);
    if (t === undefined) {
      t = this.qids.length;
      this.qids.push(qid);
      this.topicOf.set(qid, t);
    }
    return t;
  }

  grow(): void {
    const cap = this.topic.length * 2;
    const widen = <T extends Int32Array | Float64Array>(a: T, make: (n: number) => T): T => {
      const b = make(cap);
      b.set(a);
      return b;
    };
    this.topic = widen(this.topic, (k) => new Int32Array(k));
    this.scores = widen(this.scores, (k) => new Float64Array(k));
    this.docStart = widen(this.docStart, (k) => new Int32Array(k));
    this.docEnd = widen(this.docEnd, (k) => new Int32Array(k));
    this.hashes = widen(this.hashes, (k) => new Int32Array(k));
  }

  /** Copies doc id bytes [s, e) of buf in, as topic t's next entry (its score set by the caller). */
  add(t: number, buf: Uint8Array, s: number, e: number): void {
    const len = e - s;
    if (this.used + len > this.bytes.length) {
      const b = new Uint8Array(Math.max(this.bytes.length * 2, this.used + len));
      b.set(this.bytes.subarray(0, this.used));
      this.bytes = b;
    }
    const bytes = this.bytes;
    const at = this.used;
    let h = seedOf(t);
    for (let i = 0; i < len; i++) {
      const c = buf[s + i]!;
      bytes[at + i] = c;
      h = Math.imul(h ^ c, FNV_PRIME);
    }
    const n = this.n++;
    this.used += len;
    this.topic[n] = t;
    this.docStart[n] = at;
    this.docEnd[n] = at + len;
    this.hashes[n] = h;
  }

  /**
   * The columns grouped by topic (a stable counting sort; a no-op when the file already is) with
   * each topic's table; undefined when a topic lists a doc twice.
   */
  finish(): RunColumns | undefined {
    const { n, qids } = this;
    const T = qids.length;
    const topicStart = new Int32Array(T + 1);
    let grouped = true;
    for (let e = 0; e < n; e++) {
      const t = this.topic[e]!;
      topicStart[t + 1]!++;
      if (e > 0 && t !== this.topic[e - 1] && t !== this.topic[e - 1]! + 1) grouped = false;
    }
    for (let t = 0; t < T; t++) topicStart[t + 1]! += topicStart[t]!;
    let scores = this.scores.subarray(0, n);
    let docStart = this.docStart.subarray(0, n);
    let docEnd = this.docEnd.subarray(0, n);
    let hashes = this.hashes.subarray(0, n);
    if (!grouped) {
      // Topics in first-seen order, each once, is already grouped; else move each entry to its place.
      const next = topicStart.slice(0, T);
      const s2 = new Float64Array(n);
      const d0 = new Int32Array(n);
      const d1 = new Int32Array(n);
      const h2 = new Int32Array(n);
      for (let e = 0; e < n; e++) {
        const p = next[this.topic[e]!]!++;
        s2[p] = scores[e]!;
        d0[p] = docStart[e]!;
        d1[p] = docEnd[e]!;
        h2[p] = hashes[e]!;
      }
      [scores, docStart, docEnd, hashes] = [s2, d0, d1, h2];
    }
    const tableStart = new Int32Array(T + 1);
    for (let t = 0; t < T; t++) {
      let size = 2;
      while (size < 2 * (topicStart[t + 1]! - topicStart[t]!)) size *= 2;
      tableStart[t + 1] = tableStart[t]! + size;
    }
    const table = new Int32Array(tableStart[T]!);
    const bytes = this.bytes;
    for (let t = 0; t < T; t++) {
      const t0 = tableStart[t]!;
      const mask = tableStart[t + 1]! - t0 - 1;
      for (let e = topicStart[t]!; e < topicStart[t + 1]!; e++) {
        const h = hashes[e]!;
        const s = docStart[e]!;
        const len = docEnd[e]! - s;
        let slot = h & mask;
        for (let k = table[t0 + slot]!; k !== 0; k = table[t0 + slot]!) {
          const o = k - 1;
          if (hashes[o] === h && docEnd[o]! - docStart[o]! === len) {
            const os = docStart[o]!;
            let i = 0;
            while (i < len && bytes[os + i] === bytes[s + i]) i++;
            if (i === len) return undefined;
          }
          slot = (slot + 1) & mask;
        }
        table[t0 + slot] = e + 1;
      }
    }
    return { qids, topicStart, scores, docStart, docEnd, bytes, hashes, tableStart, table };
  }
}

/** The entry of `docid` in topic t, or -1 (compares the doc id's UTF-8 bytes). */
export function findDoc(cols: RunColumns, t: number, docid: string): number {
  let key: Uint8Array | undefined;
  let h = seedOf(t);
  const len = docid.length;
  for (let i = 0; i < len; i++) {
    const c = docid.charCodeAt(i);
    if (c >= 0x80) {
      key = Buffer.from(docid, 'utf8');
      break;
    }
    h = Math.imul(h ^ c, FNV_PRIME);
  }
  if (key) {
    h = seedOf(t);
    for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key[i]!, FNV_PRIME);
  }
  const { table, tableStart, hashes, docStart, docEnd, bytes } = cols;
  const t0 = tableStart[t]!;
  const mask = tableStart[t + 1]! - t0 - 1;
  const klen = key ? key.length : len;
  for (let slot = h & mask, k = table[t0 + slot]!; k !== 0; slot = (slot + 1) & mask, k = table[t0 + slot]!) {
    const o = k - 1;
    if (hashes[o] !== h) continue;
    const s = docStart[o]!;
    if (docEnd[o]! - s !== klen) continue;
    let same = true;
    for (let i = 0; i < klen; i++)
      if (bytes[s + i] !== (key ? key[i]! : docid.charCodeAt(i))) {
        same = false;
        break;
      }
    if (same) return o;
  }
  return -1;
}

/** strcmp of two entries' doc ids (unsigned bytes; a prefix sorts first). */
export function compareDocs(cols: RunColumns, a: number, b: number): number {
  const { bytes, docStart, docEnd } = cols;
  const as = docStart[a]!;
  const bs = docStart[b]!;
  const al = docEnd[a]! - as;
  const bl = docEnd[b]! - bs;
  const m = Math.min(al, bl);
  for (let i = 0; i < m; i++) {
    const d = bytes[as + i]! - bytes[bs + i]!;
    if (d !== 0) return d;
  }
  return al - bl;
}

/** A `Run` in columns (the reference path, and for callers that hold a `Run` already). */
export function runColumnsFromRun(run: Run): RunColumns {
  let total = 0;
  for (const topic of run.values()) total += topic.size;
  const b = new Builder(total);
  for (const [qid, topic] of run) {
    const t = b.topicIndex(qid);
    for (const [doc, score] of topic) {
      const key = Buffer.from(doc, 'utf8');
      if (b.n === b.topic.length) b.grow();
      b.scores[b.n] = score;
      b.add(t, key, 0, key.length);
    }
  }
  const cols = b.finish();
  // Two ids with one UTF-8 form: only strings with lone surrogates, which no decoded file holds.
  if (!cols) throw new Error('a topic of the run holds two doc ids with the same UTF-8 bytes');
  return cols;
}

const CHUNK = 1 << 22;

/** Reads a TREC run file into columns (see the file comment for what the fast path takes). */
export async function readRunColumns(path: string): Promise<RunColumns> {
  const fast = await readFast(path).catch((err) => {
    if (err === SLOW || (err as NodeJS.ErrnoException).code !== undefined) return undefined;
    throw err;
  });
  return fast ?? runColumnsFromRun((await readRunWithTag(path)).run);
}

/** What the scan keeps from line to line and chunk to chunk: the last line's topic and qid bytes. */
interface ScanState {
  topic: number;
  qid: Uint8Array;
}

/**
 * The lines of buf[0, end) (each ending in \n) into b. One pass over the bytes in JavaScript,
 * no native call per line. Lines with anything but printable ASCII and whitespace, fewer than 6
 * columns or a score `Number` does not read as finite throw SLOW.
 */
function scanLines(buf: Uint8Array, end: number, b: Builder, st: ScanState): void {
  let i = 0;
  while (i < end) {
    let fields = 0;
    let q0 = 0;
    let q1 = 0;
    let d0 = 0;
    let d1 = 0;
    let s0 = 0;
    let s1 = 0;
    let c = buf[i]!;
    for (;;) {
      while (c === 32 || c === 9 || c === 11 || c === 12 || c === 13) c = buf[++i]!;
      if (c === 10) break;
      const f0 = i;
      while (c > 32 && c < 127) c = buf[++i]!;
      if (c !== 32 && c !== 10 && (c < 9 || c > 13)) throw SLOW; // non-ASCII or a control byte
      if (fields === 0) {
        q0 = f0;
        q1 = i;
      } else if (fields === 2) {
        d0 = f0;
        d1 = i;
      } else if (fields === 4) {
        s0 = f0;
        s1 = i;
      }
      fields++;
    }
    i++; // past the \n
    if (fields < 6) throw SLOW;
    let t = st.topic;
    const last = st.qid;
    let same = t >= 0 && q1 - q0 === last.length;
    for (let k = 0; same && k < last.length; k++) if (buf[q0 + k] !== last[k]) same = false;
    if (!same) {
      t = b.topicIndex(Buffer.from(buf.buffer, buf.byteOffset + q0, q1 - q0).toString('latin1'));
      st.topic = t;
      st.qid = buf.slice(q0, q1);
    }
    if (b.n === b.topic.length) b.grow();
    const e = b.n;
    let score = plainDecimal(buf, s0, s1);
    if (Number.isNaN(score)) {
      score = Number(Buffer.from(buf.buffer, buf.byteOffset + s0, s1 - s0).toString('latin1'));
      if (!Number.isFinite(score)) throw SLOW;
    }
    b.scores[e] = score;
    b.add(t, buf, d0, d1);
  }
}

async function readFast(path: string): Promise<RunColumns | undefined> {
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    if (size === 0 || size >= 2 ** 31 - CHUNK) return undefined;
    const b = new Builder(Math.ceil(size / 24));
    const st: ScanState = { topic: -1, qid: new Uint8Array(0) };
    let buf = new Uint8Array(CHUNK);
    let have = 0;
    for (let first = true; ; first = false) {
      if (have === buf.length) {
        const bigger = new Uint8Array(buf.length * 2);
        bigger.set(buf);
        buf = bigger;
      }
      const { bytesRead } = await fh.read(buf, have, buf.length - have, null);
      if (first && bytesRead >= 2 && buf[0] === 0x1f && buf[1] === 0x8b) return undefined; // gzip
      const end = have + bytesRead;
      if (bytesRead === 0) {
        if (end > 0) {
          // the last line has no \n: give it one
          const tail = new Uint8Array(end + 1);
          tail.set(buf.subarray(0, end));
          tail[end] = 10;
          scanLines(tail, end + 1, b, st);
        }
        break;
      }
      const stop = buf.lastIndexOf(10, end - 1) + 1;
      scanLines(buf, stop, b, st);
      buf.copyWithin(0, stop, end);
      have = end - stop;
    }
    // a (topic, doc) listed twice (finish says undefined): @dv/core's reader names the line
    return b.n === 0 ? undefined : b.finish();
  } finally {
    await fh.close();
  }
}
