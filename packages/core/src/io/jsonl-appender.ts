/**
 * Append-only JSONL log for resumable jobs: one `write` system call per record (or per
 * event-loop turn with `groupPerTick`), so a killed process loses at most the records not yet
 * written, and a partial last one is detected on reopen.
 *
 * On open, a last line without its newline (a crash mid-append) is cut off, so appends resume
 * on a clean record boundary. `fsync: true` also survives power loss, at a cost per record.
 * Records are written byte for byte (no redaction: see redact.ts).
 * The log itself must not be a symbolic link (refused, never appended or truncated through),
 * nor lie below one inside an output folder (output-guard.ts); it is opened with O_NOFOLLOW.
 * Disk-full, read-only and permission errors name the log and its mount (issue 25).
 */
import {
  closeSync,
  constants,
  existsSync,
  fsyncSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import type { z } from 'zod';
import { DataError } from '../errors.js';
import { toJsonLine } from './jsonl.js';
import { assertSafeOutputPath, withWriteErrors } from './output-guard.js';

/** Refuses a log path that is a symbolic link (a planted link would send appends elsewhere). */
function assertNotSymlink(path: string): void {
  let link = false;
  try {
    link = lstatSync(path).isSymbolicLink();
  } catch {
    return;
  }
  if (link)
    throw new DataError(
      'is a symbolic link; dv appends only to a regular file it owns (remove the link)',
      path,
    );
}

export interface JsonlAppenderOptions {
  fsync?: boolean;
  /**
   * Group the records appended in one event-loop turn into one `write` (flushed from
   * setImmediate, and by `flush()` / `close()`), for jobs that append hundreds of records a
   * second from concurrent tasks. A kill -9 then loses the records of that turn that were not
   * yet written, and at most one record is left partial (cut on reopen), as without grouping:
   * a resumable job redoes them, so nothing is duplicated or lost. Records are still validated
   * and serialised in `append()`, so a bad record throws at its call site.
   */
  groupPerTick?: boolean;
}

/** Bytes to cut so the file ends on a newline (0 when it already does or is empty). */
function danglingTailBytes(path: string): number {
  const size = statSync(path).size;
  if (size === 0) return 0;
  const fd = openSync(path, 'r');
  try {
    const block = Buffer.alloc(64 * 1024);
    let end = size;
    let cut = 0;
    while (end > 0) {
      const start = Math.max(0, end - block.length);
      const n = readSync(fd, block, 0, end - start, start);
      const nl = block.subarray(0, n).lastIndexOf(0x0a);
      if (nl !== -1) return cut + (n - nl - 1);
      cut += n;
      end = start;
    }
    return size; // no newline at all: the whole file is one partial record
  } finally {
    closeSync(fd);
  }
}

export class JsonlAppender<S extends z.ZodType> {
  private fd: number | null;
  private pending: string[] = [];
  private flushScheduled = false;
  /** Bytes removed on open because the previous writer died mid-record. */
  readonly repairedBytes: number;
  count = 0;

  constructor(
    readonly path: string,
    private readonly schema?: S,
    private readonly options: JsonlAppenderOptions = {},
  ) {
    assertSafeOutputPath(dirname(path));
    assertNotSymlink(path);
    withWriteErrors(path, () => mkdirSync(dirname(path), { recursive: true }));
    let repaired = 0;
    if (existsSync(path)) {
      repaired = danglingTailBytes(path);
      if (repaired > 0) {
        const fd = openSync(path, 'r+');
        try {
          ftruncateSync(fd, statSync(path).size - repaired);
        } finally {
          closeSync(fd);
        }
      }
    }
    this.repairedBytes = repaired;
    const { O_APPEND, O_CREAT, O_WRONLY, O_NOFOLLOW } = constants;
    this.fd = withWriteErrors(path, () => openSync(path, O_APPEND | O_CREAT | O_WRONLY | O_NOFOLLOW, 0o666));
  }

  append(record: z.input<S> | z.infer<S>): void {
    if (this.fd === null) throw new Error(`${this.path}: appender is closed`);
    const line = toJsonLine(record, this.schema, this.path);
    this.count++;
    if (this.options.groupPerTick) {
      this.pending.push(line);
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
      return;
    }
    const fd = this.fd;
    withWriteErrors(this.path, () => writeSync(fd, line));
    if (this.options.fsync) fsyncSync(this.fd);
  }

  /** Writes the records grouped so far (groupPerTick) in one call. */
  flush(): void {
    this.flushScheduled = false;
    if (this.fd === null || this.pending.length === 0) return;
    const data = this.pending.length === 1 ? this.pending[0]! : this.pending.join('');
    this.pending = [];
    const fd = this.fd;
    withWriteErrors(this.path, () => writeSync(fd, data));
    if (this.options.fsync) fsyncSync(this.fd);
  }

  close(): void {
    if (this.fd === null) return;
    this.flush();
    fsyncSync(this.fd);
    closeSync(this.fd);
    this.fd = null;
  }
}
