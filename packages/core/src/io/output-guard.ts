/**
 * The one output-folder guard every `dv` command that writes goes through (issue 25), and the
 * checks the writers make inside an output folder.
 *
 * `guardOutputDir(dir, { flag })`, before anything is written:
 * - refuses a folder under /proc, /sys or /dev (kernel file systems, where a write can block
 *   forever: 8 commands hung on `--out /proc/...`);
 * - refuses a path that is a file, or below a file ("--out X is a file, not a folder", not
 *   node's "mkdir: EEXIST");
 * - creates the folder, mapping ENOSPC / EDQUOT / EROFS / EACCES to a message naming the path
 *   and its mount (`writeErrorToDataError`);
 * - registers the folder as an output root (`outputRootOf`), so the atomic writer, the JSONL
 *   appender and every writer built on them refuse a symlink planted below it.
 *
 * `assertNoSymlinkInside(root, path)` walks each component of `path` below `root` with lstat
 * and throws a DataError naming the first symbolic link (a planted `--out/checkpoints -> /x`
 * would send writes outside `--out`). The root itself may be a link: the user chose it.
 *
 * `withWriteErrors(path, fn)` runs `fn` and rethrows its disk-full / read-only / permission
 * errors as a DataError naming `path` and the device and mount point holding it.
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { DataError } from '../errors.js';

/** Error for an output folder that cannot or must not be used; names the folder. */
export class OutputDirError extends DataError {}

/** Kernel file systems: a write there can block forever or change the system. */
const KERNEL_FS = ['/proc', '/sys', '/dev'] as const;

/** The folders guarded in this process (resolved), innermost first when nested. */
const outputRoots = new Set<string>();

export interface GuardOutputDirOptions {
  /** The option that named the folder, for messages (default `--out`). */
  flag?: string;
  /**
   * Create the folder (default true); false only checks (a folder that must already exist: a
   * missing one is left for the command to report, with what it looked for).
   */
  create?: boolean;
}

/** Why `abs` cannot be an output folder (kernel file system, a file, below a file), or null. */
function refusal(abs: string, flag: string): string | null {
  const kernel = KERNEL_FS.find((k) => abs === k || abs.startsWith(`${k}${sep}`));
  if (kernel) return `${flag} is on a kernel file system (${kernel.slice(1)}); choose a normal folder`;
  // the path itself, or the nearest existing folder above it, must be a folder
  for (let p = abs; ; p = dirname(p)) {
    let isDir: boolean | null = null;
    try {
      isDir = statSync(p).isDirectory();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // ENOTDIR: a component above is a file; the walk up finds it
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return null; // let mkdir report it, mapped
    }
    if (isDir === false)
      return p === abs
        ? `${flag} is a file, not a folder`
        : `a path component is a file, not a folder: ${p} (${flag} must name a folder)`;
    if (isDir) return null;
    if (dirname(p) === p) return null;
  }
}

/**
 * Checks `dir` can be an output folder, creates it and registers it as an output root.
 * Returns the absolute folder. Throws `OutputDirError` (a DataError: exit 1) naming it.
 */
export function guardOutputDir(dir: string, o: GuardOutputDirOptions = {}): string {
  const flag = o.flag ?? '--out';
  const abs = resolve(dir);
  const why = refusal(abs, flag);
  if (why) throw new OutputDirError(why, dir);
  if (o.create !== false) withWriteErrors(abs, () => mkdirSync(abs, { recursive: true }));
  else if (!existsSync(abs)) return abs; // the command says what is missing (e.g. no config.json)
  registerOutputRoot(abs);
  return abs;
}

/** Marks `dir` as an output folder: writers below it refuse symbolic links (see file comment). */
export function registerOutputRoot(dir: string): void {
  outputRoots.add(resolve(dir));
}

/** The innermost registered output root that contains `path`, or null. */
export function outputRootOf(path: string): string | null {
  const abs = resolve(path);
  let best: string | null = null;
  for (const root of outputRoots)
    if ((abs === root || abs.startsWith(`${root}${sep}`)) && (!best || root.length > best.length))
      best = root;
  return best;
}

/**
 * Throws a DataError when a component of `path` below `root` (the last one included) is a
 * symbolic link. Components that do not exist yet are fine (they will be created as folders).
 */
export function assertNoSymlinkInside(root: string, path: string): void {
  const base = resolve(root);
  const rel = relative(base, resolve(path));
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return;
  let at = base;
  for (const part of rel.split(sep)) {
    at = `${at}${sep}${part}`;
    let isLink = false;
    try {
      isLink = lstatSync(at).isSymbolicLink();
    } catch {
      return; // does not exist yet: nothing below it exists either
    }
    if (isLink)
      throw new DataError(
        `is a symbolic link inside the output folder ${base}; dv does not write through links there (remove it)`,
        at,
      );
  }
}

/** `assertNoSymlinkInside` against the registered output root holding `path`, if any. */
export function assertSafeOutputPath(path: string): void {
  const root = outputRootOf(path);
  if (root) assertNoSymlinkInside(root, path);
}

const WRITE_ERRORS: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
};

/** The mount point and device holding `path` (from /proc/self/mounts), e.g. `/ (/dev/sda1)`. */
export function mountOf(path: string): string | null {
  let mounts: string[][];
  try {
    mounts = readFileSync('/proc/self/mounts', 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(' ').map((f) => f.replace(/\\040/g, ' ')));
  } catch {
    return null;
  }
  const abs = resolve(path);
  let best: string[] | null = null;
  for (const m of mounts) {
    const at = m[1];
    if (!at) continue;
    const inside = at === '/' || abs === at || abs.startsWith(`${at}${sep}`);
    if (inside && (!best || at.length >= best[1]!.length)) best = m;
  }
  return best ? `${best[1]} (${best[0]}, ${best[2]})` : null;
}

/**
 * A write error as a DataError naming the file and its mount, for disk full, quota,
 * read-only and permission errors; null for any other error (rethrow it as it is).
 */
export function writeErrorToDataError(err: unknown, path: string): DataError | null {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const what = code ? WRITE_ERRORS[code] : undefined;
  if (!what) return null;
  const at = (err as NodeJS.ErrnoException).path ?? path;
  const mount = mountOf(at);
  return new DataError(`cannot write: ${what}${mount ? ` on ${mount}` : ''} (${code})`, at);
}

/** Runs `fn`; disk-full, read-only and permission errors come back naming `path` and its mount. */
export function withWriteErrors<T>(path: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw writeErrorToDataError(err, path) ?? err;
  }
}
