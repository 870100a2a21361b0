/**
 * Temporary folders for tests, removed after the test file that made them: the workspace's one
 * temp-dir helper (other packages import it from `@dv/core/test-utils`). The folders are removed
 * in an `afterAll` hook registered on the importing test file (vitest evaluates this module once
 * per file), and on process exit as a fallback for plain node scripts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const made: string[] = [];

function removeAll(): void {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

afterAll(removeAll);
process.on('exit', removeAll);

/** A fresh empty folder under the OS temp dir, named `<prefix>XXXXXX`, removed after the file's tests. */
export function tmpDir(prefix = 'dv-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}
