/**
 * The one gate between a name that comes from data or a remote server (a set's `name`, a Hub
 * file path, a revision, a repo id) and the file system: `resolveInside(root, name)` returns an
 * absolute path that is provably inside `root`, or throws an `UnsafePathError` naming the value
 * and where it came from.
 *
 * Rules (the usual archive-extraction "zip slip" defence, applied to every writer):
 * - not empty, no NUL byte, no backslash (a Windows separator on any platform), no control chars;
 * - not absolute (`/x`, `C:x`);
 * - no segment that is empty, `.` or `..` (so `a//b`, `./a` and `a/..` are refused, not
 *   normalised: a name that needs normalising was not written by us);
 * - `kind: 'name'` (a single file or folder name) refuses `/` as well; `kind: 'path'` (a
 *   relative path such as a Hub file path) allows `/` between safe segments;
 * - finally the joined path is checked lexically against the resolved root (`relative(root,
 *   out)` must not climb out), a proof that does not depend on the rules above being complete.
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { DataError } from '../errors.js';

/** A name from data or a server that would not stay inside its root (a DataError: exit 1). */
export class UnsafePathError extends DataError {}

export interface ResolveInsideOptions {
  /** `name`: one path segment (default); `path`: a relative path with `/` between segments. */
  kind?: 'name' | 'path';
  /** What the value is, for the message (e.g. "set name", "Hub file path"). */
  what?: string;
  /** Where the value came from (a file or URL), for the message. */
  source?: string;
}

/** Why `value` is not a safe name or relative path, or null when it is. */
export function unsafePathReason(value: unknown, kind: 'name' | 'path' = 'name'): string | null {
  if (typeof value !== 'string') return 'is not a string';
  if (value.length === 0) return 'is empty';
  if (value.includes('\0')) return 'contains a NUL byte';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we refuse
  if (/[\u0001-\u001f\u007f]/.test(value)) return 'contains a control character';
  if (value.includes('\\')) return 'contains a backslash';
  if (value.startsWith('/') || /^[A-Za-z]:/.test(value) || isAbsolute(value)) return 'is an absolute path';
  const segments = value.split('/');
  if (kind === 'name' && segments.length > 1) return "contains '/' where a single name is meant";
  for (const s of segments) {
    if (s === '') return 'has an empty path segment';
    if (s === '.' || s === '..') return `has a '${s}' segment`;
  }
  return null;
}

/**
 * `root` joined with `name`, after checking `name` (see the file comment). Throws
 * `UnsafePathError` ("set name '../x' from FILE has a '..' segment; refusing to write outside ROOT").
 */
export function resolveInside(root: string, name: string, options: ResolveInsideOptions = {}): string {
  const kind = options.kind ?? 'name';
  const what = options.what ?? (kind === 'name' ? 'name' : 'path');
  const from = options.source ? ` from ${options.source}` : '';
  const base = resolve(root);
  const reason = unsafePathReason(name, kind);
  if (reason) {
    throw new UnsafePathError(
      `${what} ${JSON.stringify(name)}${from} ${reason}; refusing to use it as a path under ${base}`,
    );
  }
  const out = resolve(base, ...name.split('/'));
  const rel = relative(base, out);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new UnsafePathError(`${what} ${JSON.stringify(name)}${from} resolves outside ${base}; refusing it`);
  }
  return out;
}
