/** Atomic binary write (temp file in the same folder, then rename), for embedding matrices. */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { tempPathFor } from '@dv/core';

export function writeBytesAtomic(path: string, data: Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = tempPathFor(path);
  try {
    writeFileSync(tmp, data);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
