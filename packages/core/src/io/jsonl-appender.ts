/**
 * Append-only JSONL log for resumable jobs: one `write` system call per record, so a killed
 * process loses at most the record being written, and that one is detected on reopen.
 *
 * On open, a last line without its newline (a crash mid-append) is cut off, so appends resume
 * on a clean record boundary. `fsync: true` also survives power loss, at a cost per record.
 * Records are written byte for byte (no redaction: see redact.ts).
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readSync,
  statSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import type { z } from 'zod';
import { toJsonLine } from './jsonl.js';

export interface JsonlAppenderOptions {
  fsync?: boolean;
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
  /** Bytes removed on open because the previous writer died mid-record. */
  readonly repairedBytes: number;
  count = 0;

  constructor(
    readonly path: string,
    private readonly schema?: S,
    private readonly options: JsonlAppenderOptions = {},
  ) {
    mkdirSync(dirname(path), { recursive: true });
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
    this.fd = openSync(path, 'a');
  }

  append(record: z.input<S> | z.infer<S>): void {
    if (this.fd === null) throw new Error(`${this.path}: appender is closed`);
    const line = toJsonLine(record, this.schema, this.path);
    writeSync(this.fd, line);
    if (this.options.fsync) fsyncSync(this.fd);
    this.count++;
  }

  close(): void {
    if (this.fd === null) return;
    fsyncSync(this.fd);
    closeSync(this.fd);
    this.fd = null;
  }
}
