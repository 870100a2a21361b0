/**
 * Mirrors files as symlinks under a folder of real directories (loaders list subfolders with
 * `isDirectory()`, which a symlinked folder fails). Each relative path is checked to stay inside
 * `root` (repo paths come from a server).
 */
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { resolveInside } from '@dv/core';

export function linkFile(root: string, rel: string, target: string): string {
  const at = resolveInside(root, rel, { kind: 'path', what: 'repo file path' });
  mkdirSync(dirname(at), { recursive: true });
  rmSync(at, { force: true });
  symlinkSync(resolve(target), at);
  return at;
}
