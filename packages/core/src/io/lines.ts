/**
 * Streaming line reader over plain or gzip files (gzip detected by its magic bytes, whatever
 * the extension). Yields each line with its 1-based number and whether it ended with a newline,
 * which append-only logs use to tell a record cut short by a crash from a complete one.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import { DataError } from '../errors.js';

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
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let number = 0;
  try {
    for await (const chunk of stream) {
      pending += decoder.write(chunk as Buffer);
      let nl = pending.indexOf('\n');
      while (nl !== -1) {
        number++;
        const text = pending.slice(0, nl).replace(/\r$/, '');
        pending = pending.slice(nl + 1);
        yield { text, number, terminated: true };
        nl = pending.indexOf('\n');
      }
    }
  } catch (err) {
    if (err instanceof DataError) throw err;
    throw new DataError(`read failed after line ${number}: ${(err as Error).message}`, path);
  }
  pending += decoder.end();
  if (pending.length > 0) yield { text: pending.replace(/\r$/, ''), number: number + 1, terminated: false };
}
