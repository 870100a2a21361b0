/**
 * Atomic file writes: data goes to a temporary file in the same folder, is fsynced, then
 * renamed over the target. A crash at any point leaves either the old file or the new one,
 * never a half-written one; the temporary file is removed on failure.
 * Text goes through `writeAtomic`, binary data (safetensors, ONNX, embedding matrices) through
 * `writeBytesAtomic`; both byte for byte. Redaction is the caller's job where a secret can
 * appear (manifests, logs: see redact.ts), never a property of the writer (issue 12 item 2).
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { assertSafeOutputPath, withWriteErrors } from './output-guard.js';

export function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temporary files that writers of `path` killed mid-write (kill -9) left beside it:
 * `.<name>.tmp-<pid>-<hex>` of a process that is no longer alive (a live writer's file is kept).
 * For jobs that resume after a crash and then finish (shard checkpoints); returns what it removed.
 */
export function removeStaleTemps(path: string): string[] {
  const dir = dirname(path);
  const prefix = `.${basename(path)}.tmp-`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(/^(\d+)-[0-9a-f]+$/.exec(name.slice(prefix.length))?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || alive(pid)) continue;
    rmSync(join(dir, name), { force: true });
    removed.push(join(dir, name));
  }
  return removed;
}

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

/** A temporary file beside `path`: `commit` fsyncs and renames it over `path`, `abort` removes it. */
function openTemp(path: string): { fd: number; commit(): void; abort(): void } {
  assertSafeOutputPath(dirname(path));
  withWriteErrors(path, () => mkdirSync(dirname(path), { recursive: true }));
  const tmp = tempPathFor(path);
  const fd = withWriteErrors(path, () => openSync(tmp, 'wx'));
  return {
    fd,
    commit() {
      try {
        withWriteErrors(path, () => fsyncSync(fd));
      } catch (err) {
        closeSync(fd);
        rmSync(tmp, { force: true });
        throw err;
      }
      closeSync(fd);
      withWriteErrors(path, () => renameSync(tmp, path));
      fsyncDir(dirname(path));
    },
    abort() {
      closeSync(fd);
      rmSync(tmp, { force: true });
    },
  };
}

/**
 * Writes chunks produced by `produce` atomically to `path`, byte for byte.
 * If `produce` throws, nothing is left behind and the error propagates.
 */
export async function writeAtomic(
  path: string,
  produce: (write: (chunk: string) => void) => void | Promise<void>,
): Promise<void> {
  const temp = openTemp(path);
  try {
    await produce((chunk) => {
      withWriteErrors(path, () => writeSync(temp.fd, chunk));
    });
  } catch (err) {
    temp.abort();
    throw err;
  }
  temp.commit();
}

export async function writeFileAtomic(path: string, data: string): Promise<void> {
  await writeAtomic(path, (write) => write(data));
}

export async function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** Writes binary `chunks` back to back into `path`, atomically and byte for byte. */
export function writeBytesAtomic(path: string, chunks: Iterable<ArrayBufferView> | ArrayBufferView): void {
  const temp = openTemp(path);
  try {
    for (const chunk of ArrayBuffer.isView(chunks) ? [chunks] : chunks) {
      const bytes = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      let done = 0;
      while (done < bytes.length)
        done += withWriteErrors(path, () => writeSync(temp.fd, bytes, done, bytes.length - done));
    }
  } catch (err) {
    temp.abort();
    throw err;
  }
  temp.commit();
}
