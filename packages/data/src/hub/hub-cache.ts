/**
 * The on-disk Hub cache as huggingface_hub (1.x) lays it out, read and written so that either
 * tool finds what the other downloaded. Per repo, `{cache}/{datasets|models}--{org}--{name}/`:
 *
 *   blobs/{etag}                 file bytes; the etag is the sha256 of an LFS file, the git blob
 *                                sha1 of a regular one (the Hub's X-Linked-Etag / ETag headers)
 *   snapshots/{commit}/{path}    relative symlink to the blob (a copy where links are impossible)
 *   refs/{branch or tag}         the commit, no trailing newline (huggingface_hub reads it raw)
 *   trees/{commit}.json          the file list of the commit:
 *                                `{ "format_version": 1, "files": { path: { size, blob_id,
 *                                lfs_sha256?, lfs_size?, xet_hash? } } }` (`_tree_cache.py`)
 *   .no_exist/{commit}/{path}    empty marker: huggingface_hub asked for the file and the Hub said
 *                                it is not in the repo (we only read these, to say so)
 *
 * and `{cache}/.locks/{repo folder}/{etag}.lock`, the lock file huggingface_hub holds (flock)
 * while it fetches that blob.
 *
 * What huggingface_hub keeps offline: `snapshot_download` stores `trees/{commit}.json` (the
 * complete listing of the commit, whatever `allow_patterns` fetched) and, with a commit and
 * HF_HUB_OFFLINE=1, needs it: without it, it asks the Hub for the tree and fails. `hf_hub_download`
 * alone stores no listing at all, only blob + snapshot link (+ ref). So our offline read takes
 * the listing from `trees/`, then from our pre-1.x `.dv/{commit}.files.json` (copied into
 * `trees/` on first read, the old file left for older dv releases), and otherwise derives it from
 * the links present under `snapshots/{commit}/`: that list holds only the files some tool
 * fetched, so it is never written back to `trees/` (huggingface_hub would take it as complete).
 *
 * Locks: Node has no flock, so `.locks/` gets the lock file (same name and mode 0664 as
 * huggingface_hub) but not the OS lock. Neither tool's correctness depends on it: huggingface_hub
 * writes a per-process temporary file and renames it into `blobs/`; we check the size and hash
 * of `blobs/{etag}.incomplete` and rename it; two writers of one blob both end with the same bytes.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
} from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { resolveInside, UnsafePathError, writeJsonAtomic } from '@dv/core';

export interface CachedHubFile {
  path: string;
  size: number;
  /** sha256 for LFS files, git blob sha1 otherwise. */
  hash: { algorithm: 'sha256' | 'git-sha1'; value: string };
}

/** A listing entry with the git oid the Hub gives (of the file, or of its LFS pointer). */
export interface TreeFile extends CachedHubFile {
  blobId: string;
}

/** Where a file list came from (for messages). */
export type ListingSource = 'trees' | 'legacy' | 'snapshot';

export const TREE_FORMAT_VERSION = 1;
const HASH = /^([0-9a-f]{40}|[0-9a-f]{64})$/;

const gitSha1 = (text: string) =>
  createHash('sha1')
    .update(`blob ${Buffer.byteLength(text)}\0`)
    .update(text)
    .digest('hex');

/** The git oid of the LFS pointer file of a blob (the pointer format is fixed by the LFS spec). */
export function lfsPointerOid(sha256: string, size: number): string {
  return gitSha1(`version https://git-lfs.github.com/spec/v1\noid sha256:${sha256}\nsize ${size}\n`);
}

export function treeFilePath(repoFolder: string, commit: string): string {
  return join(repoFolder, 'trees', `${commit}.json`);
}

/**
 * `trees/{commit}.json`, or undefined when absent or in a format we do not know (huggingface_hub
 * ignores those too). Entries are returned as they are: the caller checks each path stays inside
 * the snapshot and each hash is a hash before anything becomes a path.
 */
export function readTreeCache(repoFolder: string, commit: string): CachedHubFile[] | undefined {
  const path = treeFilePath(repoFolder, commit);
  if (!existsSync(path)) return undefined;
  let data: { format_version?: unknown; files?: unknown };
  try {
    data = JSON.parse(readFileSync(path, 'utf8')) as typeof data;
  } catch {
    return undefined;
  }
  if (data?.format_version !== TREE_FORMAT_VERSION || typeof data.files !== 'object' || !data.files)
    return undefined;
  const out: CachedHubFile[] = [];
  for (const [file, raw] of Object.entries(data.files as Record<string, unknown>)) {
    const e = raw as { size?: unknown; blob_id?: unknown; lfs_sha256?: unknown; lfs_size?: unknown };
    if (typeof e !== 'object' || e === null) return undefined;
    if (typeof e.lfs_sha256 === 'string') {
      const size = typeof e.lfs_size === 'number' ? e.lfs_size : e.size;
      if (typeof size !== 'number') return undefined;
      out.push({ path: file, size, hash: { algorithm: 'sha256', value: e.lfs_sha256 } });
    } else {
      if (typeof e.blob_id !== 'string' || typeof e.size !== 'number') return undefined;
      out.push({ path: file, size: e.size, hash: { algorithm: 'git-sha1', value: e.blob_id } });
    }
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** Writes `trees/{commit}.json` in huggingface_hub's format (atomic). */
export async function writeTreeCache(
  repoFolder: string,
  commit: string,
  files: readonly TreeFile[],
): Promise<void> {
  const entries: Record<string, Record<string, string | number>> = {};
  for (const f of [...files].sort((a, b) => (a.path < b.path ? -1 : 1)))
    entries[f.path] =
      f.hash.algorithm === 'sha256'
        ? { size: f.size, blob_id: f.blobId, lfs_sha256: f.hash.value, lfs_size: f.size }
        : { size: f.size, blob_id: f.blobId };
  await writeJsonAtomic(treeFilePath(repoFolder, commit), {
    format_version: TREE_FORMAT_VERSION,
    files: entries,
  });
}

/** A listing entry with its git oid: the file's own for git files, its pointer's for LFS files. */
export function withBlobId(f: CachedHubFile): TreeFile {
  return {
    ...f,
    blobId: f.hash.algorithm === 'sha256' ? lfsPointerOid(f.hash.value, f.size) : f.hash.value,
  };
}

/** Our pre-1.x listing, `.dv/{commit}.files.json`, or undefined. */
export function readLegacyListing(repoFolder: string, commit: string): CachedHubFile[] | undefined {
  const path = join(repoFolder, '.dv', `${commit}.files.json`);
  if (!existsSync(path)) return undefined;
  try {
    const files = JSON.parse(readFileSync(path, 'utf8')) as CachedHubFile[];
    return Array.isArray(files) ? files : undefined;
  } catch {
    return undefined;
  }
}

async function gitSha1OfFile(path: string, size: number): Promise<string> {
  const h = createHash('sha1').update(`blob ${size}\0`);
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

/**
 * The files present under `snapshots/{commit}/`, or undefined when that folder is absent. A link
 * counts when it points at `blobs/{sha1 or sha256}` of this repo and the blob is there (the blob
 * name is the hash); a plain file (a copy) is hashed as a git blob. Dangling links and links
 * anywhere else are left out: they are not cached files.
 */
export async function snapshotListing(
  repoFolder: string,
  commit: string,
): Promise<CachedHubFile[] | undefined> {
  const root = join(repoFolder, 'snapshots', commit);
  if (!existsSync(root) || !lstatSync(root).isDirectory()) return undefined;
  const blobs = resolve(repoFolder, 'blobs');
  const out: CachedHubFile[] = [];
  for (const e of readdirSync(root, { recursive: true, withFileTypes: true })) {
    const full = join(e.parentPath, e.name);
    const path = relative(root, full).split(sep).join('/');
    if (e.isSymbolicLink()) {
      const target = resolve(dirname(full), readlinkSync(full));
      const hash = basename(target);
      if (dirname(target) !== blobs || !HASH.test(hash) || !existsSync(target)) continue;
      out.push({
        path,
        size: statSync(target).size,
        hash: { algorithm: hash.length === 64 ? 'sha256' : 'git-sha1', value: hash },
      });
    } else if (e.isFile()) {
      const size = statSync(full).size;
      out.push({ path, size, hash: { algorithm: 'git-sha1', value: await gitSha1OfFile(full, size) } });
    }
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : 1));
}

/** Whether huggingface_hub recorded `path` as absent from the repo at `commit` (`.no_exist/`). */
export function recordedAbsent(repoFolder: string, commit: string, path: string): boolean {
  try {
    return existsSync(
      resolveInside(join(repoFolder, '.no_exist', commit), path, { kind: 'path', what: 'file path' }),
    );
  } catch (err) {
    if (err instanceof UnsafePathError) return false;
    throw err;
  }
}

/**
 * Creates `{cache}/.locks/{repo folder}/{etag}.lock` as huggingface_hub does (mode 0664) and
 * returns its path; see the file comment for why no OS lock is taken on it.
 */
export function touchLockFile(cacheDir: string, repoFolderName: string, etag: string): string {
  const path = join(cacheDir, '.locks', repoFolderName, `${etag}.lock`);
  mkdirSync(dirname(path), { recursive: true });
  closeSync(openSync(path, 'a', 0o664));
  return path;
}
