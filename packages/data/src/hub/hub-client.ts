/**
 * A small Hugging Face Hub client for datasets, speaking the Hub's HTTP file API:
 *   GET {endpoint}/api/datasets/{repo}/revision/{rev}            -> { sha, siblings }
 *   GET {endpoint}/api/datasets/{repo}/tree/{sha}?recursive=true -> [{ type, path, size, oid, lfs? }]
 *   GET {endpoint}/datasets/{repo}/resolve/{sha}/{path}           -> the file (Range supported)
 *
 * - Pinned revisions: files are fetched by the resolved commit and cached under
 *   `{cacheDir}/datasets/{repo}/{commit}/{path}`; `refs/{rev}` remembers branch -> commit.
 * - Resumable: bytes go to `{file}.incomplete`; a retry (or a later run) asks for
 *   `Range: bytes=N-` and appends; completed files are checked against the Hub's size and hash
 *   (sha256 of LFS files, git blob sha1 of others) before the atomic rename.
 * - Offline (`offline: true`, or `HF_HUB_OFFLINE=1`): only the cache is used; a missing file or
 *   unresolved revision is an error that says so.
 * - Token from the environment (`HF_TOKEN`, then `HUGGING_FACE_HUB_TOKEN`), sent as a Bearer
 *   header and never written anywhere.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { DataError, resolveInside, UnsafePathError, writeFileAtomic, writeJsonAtomic } from '@dv/core';

export interface HubOptions {
  /** Default `HF_ENDPOINT` or https://huggingface.co. */
  endpoint?: string;
  /** Default `HF_TOKEN` / `HUGGING_FACE_HUB_TOKEN` from the environment. */
  token?: string;
  /** Default `DV_HUB_CACHE` or ~/.cache/dv/hub. */
  cacheDir?: string;
  /** Use only the cache. Default: `HF_HUB_OFFLINE=1`. */
  offline?: boolean;
  /** Attempts per file when a transfer breaks off (each resumes where the last stopped). */
  retries?: number;
  /** Called with bytes received so far and the total, per file. */
  onProgress?: (path: string, received: number, total: number) => void;
}

export interface HubFile {
  path: string;
  size: number;
  /** sha256 for LFS files, git blob sha1 otherwise. */
  hash: { algorithm: 'sha256' | 'git-sha1'; value: string };
}

export class HubError extends DataError {}

interface Resolved {
  endpoint: string;
  token: string | undefined;
  cacheDir: string;
  offline: boolean;
  retries: number;
  onProgress?: HubOptions['onProgress'];
}

function resolveOptions(o: HubOptions = {}): Resolved {
  const env = process.env;
  return {
    endpoint: (o.endpoint ?? env.HF_ENDPOINT ?? 'https://huggingface.co').replace(/\/+$/, ''),
    token: o.token ?? env.HF_TOKEN ?? env.HUGGING_FACE_HUB_TOKEN ?? undefined,
    cacheDir: o.cacheDir ?? env.DV_HUB_CACHE ?? join(homedir(), '.cache', 'dv', 'hub'),
    offline: o.offline ?? ['1', 'true', 'yes'].includes((env.HF_HUB_OFFLINE ?? '').toLowerCase()),
    retries: o.retries ?? 4,
    onProgress: o.onProgress,
  };
}

const COMMIT = /^[0-9a-f]{40}$/;

/**
 * `{cacheDir}/datasets/{repo}`. Repo ids, revisions, commits and file paths come from the user or
 * the server, so each goes through `resolveInside` (a listing entry `../../x` must not write
 * outside the cache; the hash check cannot help, the server supplies the hash).
 */
function repoDir(r: Resolved, repo: string): string {
  if (repo.split('/').length > 2 || !/^[\w.-]+(\/[\w.-]+)?$/.test(repo))
    throw new HubError(`repo id ${JSON.stringify(repo)} is not of the form OWNER/NAME`);
  return inside(join(r.cacheDir, 'datasets'), repo, { kind: 'path', what: 'repo id' });
}

/** `resolveInside`, its refusal as a HubError (what callers of this module catch). */
function inside(root: string, name: string, o: Parameters<typeof resolveInside>[2]): string {
  try {
    return resolveInside(root, name, o);
  } catch (err) {
    if (err instanceof UnsafePathError) throw new HubError(err.message);
    throw err;
  }
}

function commitDir(r: Resolved, repo: string, commit: string): string {
  if (!COMMIT.test(commit))
    throw new HubError(`commit ${JSON.stringify(commit)} of ${repo} is not 40 hex digits`);
  return join(repoDir(r, repo), commit);
}

function filePath(r: Resolved, repo: string, commit: string, path: string): string {
  return inside(commitDir(r, repo, commit), path, {
    kind: 'path',
    what: 'file path',
    source: `the Hub's file list of ${repo}@${commit}`,
  });
}

function headers(r: Resolved, extra: Record<string, string> = {}): Record<string, string> {
  return { ...(r.token ? { authorization: `Bearer ${r.token}` } : {}), 'user-agent': 'dv-data', ...extra };
}

async function httpError(res: Response, what: string): Promise<HubError> {
  let detail = '';
  try {
    const body = await res.text();
    try {
      const e = (JSON.parse(body) as { error?: unknown }).error;
      detail = typeof e === 'string' ? e : e === undefined ? body : JSON.stringify(e);
    } catch {
      detail = body;
    }
  } catch {
    // no body
  }
  const hint =
    res.status === 401 || res.status === 403
      ? ' (authentication required: set HF_TOKEN for gated or private datasets)'
      : '';
  return new HubError(`${what}: HTTP ${res.status}${detail ? ` ${detail.slice(0, 200)}` : ''}${hint}`);
}

async function getJson<T>(r: Resolved, url: string, what: string): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, { headers: headers(r) });
  } catch (err) {
    const cause = (err as { cause?: { message?: string } }).cause?.message;
    throw new HubError(
      `${what}: cannot reach ${r.endpoint}: ${cause ?? (err as Error).message} (use offline mode to read from the cache only)`,
    );
  }
  if (!res.ok) throw await httpError(res, what);
  const text = await res.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new HubError(
      `${what}: ${r.endpoint} answered ${res.status} with a body that is not JSON (${JSON.stringify(text.slice(0, 60))}); is HF_ENDPOINT a Hub?`,
    );
  }
}

/** Resolves a revision (commit, branch or tag) to a commit, remembering it for offline use. */
export async function resolveRevision(
  repo: string,
  revision: string,
  options: HubOptions = {},
): Promise<string> {
  const r = resolveOptions(options);
  const refFile = inside(join(repoDir(r, repo), 'refs'), revision, {
    kind: 'path',
    what: 'revision',
  });
  if (r.offline) {
    if (COMMIT.test(revision)) return revision;
    if (existsSync(refFile)) return readFileSync(refFile, 'utf8').trim();
    throw new HubError(`offline: revision "${revision}" of ${repo} is not in the cache (${r.cacheDir})`);
  }
  const info = await getJson<{ sha?: string }>(
    r,
    `${r.endpoint}/api/datasets/${repo}/revision/${encodeURIComponent(revision)}`,
    `revision "${revision}" of dataset ${repo}`,
  );
  if (!info.sha || !COMMIT.test(info.sha))
    throw new HubError(`revision "${revision}" of ${repo}: the Hub gave no commit`);
  if (!COMMIT.test(revision)) {
    await writeFileAtomic(refFile, info.sha);
  } else if (info.sha !== revision) {
    throw new HubError(`revision "${revision}" of ${repo} resolved to a different commit ${info.sha}`);
  }
  return info.sha;
}

interface TreeEntry {
  type: string;
  path: string;
  size: number;
  oid: string;
  lfs?: { oid: string; size: number };
}

/** Files of a dataset at a commit (from the Hub, or the cached listing when offline). */
export async function listFiles(repo: string, commit: string, options: HubOptions = {}): Promise<HubFile[]> {
  const r = resolveOptions(options);
  const listing = join(commitDir(r, repo, commit), '.dv-files.json');
  if (r.offline) {
    if (!existsSync(listing))
      throw new HubError(`offline: no cached file list for ${repo}@${commit} (${r.cacheDir})`);
    return JSON.parse(readFileSync(listing, 'utf8')) as HubFile[];
  }
  const tree = await getJson<TreeEntry[]>(
    r,
    `${r.endpoint}/api/datasets/${repo}/tree/${commit}?recursive=true`,
    `file list of ${repo}@${commit}`,
  );
  const files: HubFile[] = tree
    .filter((e) => e.type === 'file')
    .map((e) => ({
      path: e.path,
      size: e.lfs?.size ?? e.size,
      hash: e.lfs ? { algorithm: 'sha256', value: e.lfs.oid } : { algorithm: 'git-sha1', value: e.oid },
    }));
  files.sort((a, b) => (a.path < b.path ? -1 : 1));
  for (const f of files) filePath(r, repo, commit, f.path); // refuse the whole listing before any download
  await writeJsonAtomic(listing, files);
  return files;
}

async function fileHash(
  path: string,
  algorithm: HubFile['hash']['algorithm'],
  size: number,
): Promise<string> {
  const h = createHash(algorithm === 'sha256' ? 'sha256' : 'sha1');
  if (algorithm === 'git-sha1') h.update(`blob ${size}\0`);
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

/** One transfer attempt: appends to `partial` from its current length. Returns when the response ends. */
async function transfer(r: Resolved, url: string, partial: string, file: HubFile): Promise<void> {
  const have = existsSync(partial) ? statSync(partial).size : 0;
  const res = await fetch(url, { headers: headers(r, have > 0 ? { range: `bytes=${have}-` } : {}) });
  if (res.status === 416 && have === file.size) return;
  if (!res.ok) throw await httpError(res, `download of ${file.path}`);
  const append = res.status === 206;
  const fd = openSync(partial, append ? 'a' : 'w');
  let received = append ? have : 0;
  try {
    if (!res.body) return;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      writeSync(fd, chunk);
      received += chunk.length;
      r.onProgress?.(file.path, received, file.size);
    }
  } finally {
    closeSync(fd);
  }
}

/** Downloads one file of `repo@commit` into the cache (resuming a partial one); returns its path. */
export async function downloadFile(
  repo: string,
  commit: string,
  file: HubFile,
  options: HubOptions = {},
): Promise<string> {
  const r = resolveOptions(options);
  const target = filePath(r, repo, commit, file.path);
  if (existsSync(target) && statSync(target).size === file.size) return target;
  if (r.offline)
    throw new HubError(`offline: ${repo}@${commit}/${file.path} is not in the cache (${r.cacheDir})`);
  mkdirSync(dirname(target), { recursive: true });
  const partial = `${target}.incomplete`;
  const url = `${r.endpoint}/datasets/${repo}/resolve/${commit}/${file.path.split('/').map(encodeURIComponent).join('/')}`;
  let lastError: unknown;
  for (let attempt = 0; attempt <= r.retries; attempt++) {
    try {
      await transfer(r, url, partial, file);
    } catch (err) {
      if (err instanceof HubError) throw err;
      lastError = err; // a broken transfer: the next attempt resumes from what arrived
    }
    const got = existsSync(partial) ? statSync(partial).size : 0;
    if (got === file.size) {
      const hash = await fileHash(partial, file.hash.algorithm, file.size);
      if (hash !== file.hash.value) {
        rmSync(partial, { force: true });
        throw new HubError(
          `${repo}@${commit}/${file.path}: ${file.hash.algorithm} mismatch (got ${hash}, expected ${file.hash.value})`,
        );
      }
      renameSync(partial, target);
      return target;
    }
    if (got > file.size) rmSync(partial, { force: true });
  }
  throw new HubError(
    `download of ${repo}@${commit}/${file.path} did not complete after ${r.retries + 1} attempts${lastError ? `: ${(lastError as Error).message}` : ''}; rerun to resume`,
  );
}

/** Glob over repo paths: `*` within a segment, `**` across segments. */
export function matchGlob(pattern: string, path: string): boolean {
  const re = pattern
    .split('**')
    .map((part) =>
      part
        .split('*')
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*'),
    )
    .join('.*');
  return new RegExp(`^${re.replace(/\.\*\//g, '(?:.*/)?')}$`).test(path);
}

export interface DownloadedDataset {
  repo: string;
  revision: string;
  commit: string;
  /** Local folder holding the repo snapshot (`{cacheDir}/datasets/{repo}/{commit}`). */
  dir: string;
  files: string[];
}

/** Downloads (or finds in the cache) the files of a dataset at a pinned revision. */
export async function downloadDataset(
  repo: string,
  revision: string,
  options: HubOptions & { include?: readonly string[] } = {},
): Promise<DownloadedDataset> {
  if (!revision) throw new HubError(`no revision given for ${repo}: pin a commit`);
  const commit = await resolveRevision(repo, revision, options);
  const all = await listFiles(repo, commit, options);
  const wanted = options.include
    ? all.filter((f) => options.include!.some((g) => matchGlob(g, f.path)))
    : all;
  if (wanted.length === 0)
    throw new HubError(`${repo}@${commit}: no files match ${options.include?.join(', ') ?? '*'}`);
  const files: string[] = [];
  for (const f of wanted) files.push(await downloadFile(repo, commit, f, options));
  return { repo, revision, commit, dir: commitDir(resolveOptions(options), repo, commit), files };
}
