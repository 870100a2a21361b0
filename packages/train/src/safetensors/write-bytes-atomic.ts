/**
 * Atomic binary writes, the byte-level twin of `writeAtomic` from @dv/core (which writes
 * redacted text): the chunks go to a temporary file in the target's folder, are fsynced, and
 * the file is renamed over the target. A crash leaves the old file or the new one, never a
 * partial one; the temporary file is removed when writing fails.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { tempPathFor } from '@dv/core';

function fsyncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some file systems refuse fsync on directories; the rename is still atomic.
  }
}

/** Writes `chunks` back to back into `path`, atomically. */
export function writeBytesAtomic(path: string, chunks: Iterable<ArrayBufferView>): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = tempPathFor(path);
  const fd = openSync(tmp, 'w');
  let ok = false;
  try {
    for (const chunk of chunks) {
      const bytes = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      let done = 0;
      while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
    }
    fsyncSync(fd);
    ok = true;
  } finally {
    closeSync(fd);
    if (!ok) rmSync(tmp, { force: true });
  }
  renameSync(tmp, path);
  fsyncDir(dirname(path));
}
