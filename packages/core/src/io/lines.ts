/**
 * Streaming line reader over plain or gzip files (gzip detected by its magic bytes, whatever
 * the extension). Yields each line with its 1-based number and whether it ended with a newline,
 * which append-only logs use to tell a record cut short by a crash from a complete one.
 * Lines are split on the raw bytes and each is decoded as strict UTF-8: a byte sequence that is
 * not UTF-8 is a `DataError` naming `file:line` and the byte's column, never a silent U+FFFD
 * (the data file is left as it is; the user fixes or re-exports it). A byte order mark is kept.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { DataError } from '../errors.js';

/**
 * Invalid UTF-8; `terminated` false when it is in an unterminated last line (a record an
 * appender's crash cut mid-character, which readers of append-only logs may drop).
 */
export class InvalidUtf8Error extends DataError {
  constructor(
    message: string,
    file: string,
    line: number,
    readonly terminated: boolean,
  ) {
    super(message, file, line);
  }
}

export interface Line {
  text: string;
  number: number;
  terminated: boolean;
}

export async function isGzipFile(path: string): Promise<boolean> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(2);
    const { bytesRead } = await fh.read(buf, 0, 2, 0);
    return bytesRead === 2 && buf[0] === 0x1f && buf[1] === 0x8b;
  } finally {
    await fh.close();
  }
}

export async function* readLines(path: string): AsyncGenerator<Line> {
  let gz: boolean;
  try {
    gz = await isGzipFile(path);
  } catch (err) {
    throw new DataError(
      `cannot open: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      path,
    );
  }
  const raw = createReadStream(path);
  const stream = gz ? raw.pipe(createGunzip()) : raw;
  const decode = (bytes: Buffer, line: number, terminated = true): string => {
    try {
      return STRICT_UTF8.decode(bytes);
    } catch {
      const at = firstInvalidUtf8(bytes);
      throw new InvalidUtf8Error(
        `invalid UTF-8 (byte 0x${(bytes[at] ?? 0).toString(16).padStart(2, '0')} at byte ${at + 1} of the line); the file must be UTF-8 text`,
        path,
        line,
        terminated,
      );
    }
  };
  // bytes of the current line seen so far (a line may span chunks)
  let pending: Buffer[] = [];
  let number = 0;
  try {
    for await (const chunk of stream) {
      const buf = chunk as Buffer;
      let start = 0;
      let nl = buf.indexOf(0x0a, start);
      while (nl !== -1) {
        number++;
        const part = buf.subarray(start, nl);
        const bytes = pending.length ? Buffer.concat([...pending, part]) : part;
        pending = [];
        yield { text: decode(bytes, number).replace(/\r$/, ''), number, terminated: true };
        start = nl + 1;
        nl = buf.indexOf(0x0a, start);
      }
      if (start < buf.length) pending.push(buf.subarray(start));
    }
  } catch (err) {
    if (err instanceof DataError) throw err;
    throw new DataError(`read failed after line ${number}: ${(err as Error).message}`, path);
  }
  if (pending.length > 0) {
    const text = decode(Buffer.concat(pending), number + 1, false);
    if (text.length > 0) yield { text: text.replace(/\r$/, ''), number: number + 1, terminated: false };
  }
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Index of the first byte that starts no valid UTF-8 sequence (RFC 3629), or -1. */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    let n: number;
    let min: number;
    if (c < 0x80) {
      i++;
      continue;
    }
    if (c >= 0xc2 && c <= 0xdf) [n, min] = [1, 0x80];
    else if (c >= 0xe0 && c <= 0xef) [n, min] = [2, 0x800];
    else if (c >= 0xf0 && c <= 0xf4) [n, min] = [3, 0x10000];
    else return i;
    let cp = c & (0x3f >> n);
    for (let k = 1; k <= n; k++) {
      const x = b[i + k];
      if (x === undefined || (x & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (x & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += n + 1;
  }
  return -1;
}
