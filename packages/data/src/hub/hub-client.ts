/**
 * A small Hugging Face Hub client for datasets and models, speaking the Hub's HTTP file API
 * (`{kind}` = `datasets` or `models`):
 *   GET {endpoint}/api/{kind}/{repo}/revision/{rev}            -> { sha, siblings }
 *   GET {endpoint}/api/{kind}/{repo}/tree/{sha}?recursive=true -> [{ type, path, size, oid, lfs? }],
 *       paginated: each page's `Link: <url>; rel="next"` header names the next one, followed
 *       to the end (a listing is never silently cut at the first page)
 *   GET {endpoint}/datasets/{repo}/resolve/{sha}/{path}         -> the file (Range supported);
 *       models: {endpoint}/{repo}/resolve/{sha}/{path}
 *
 * - The cache is huggingface_hub's layout, both ways (hub-cache.ts has the details): blobs,
 *   snapshot links, `refs/`, `trees/{commit}.json` file lists, `.locks/`. huggingface_hub reads
 *   what we download offline, by commit or branch, and we read what it downloaded offline (its
 *   `trees/` listing, else the snapshot links present). Listings of a commit are cached for good
 *   (a commit never changes), online too. The cache is `cacheDir`, else `DV_HUB_CACHE`,
 *   `HF_HUB_CACHE`, `$HF_HOME/hub`, `~/.cache/huggingface/hub`.
 * - Why not `@huggingface/hub` (npm): see the note in packages/data/README.md (it has no offline
 *   read of a cache, and no `trees/` listing for huggingface_hub to read ours by commit).
 * - Resumable: bytes go to `blobs/{hash}.incomplete`; a retry (or a later run) asks for
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
  copyFileSync,
  createReadStream,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { DataError, resolveInside, UnsafePathError, writeFileAtomic } from '@dv/core';
import {
  type ListingSource,
  readLegacyListing,
  readTreeCache,
  recordedAbsent,
  snapshotListing,
  touchLockFile,
  withBlobId,
  writeTreeCache,
} from './hub-cache.js';

export interface HubOptions {
  /** Default `HF_ENDPOINT` or https://huggingface.co. */
  endpoint?: string;
  /** Default `HF_TOKEN` / `HUGGING_FACE_HUB_TOKEN` from the environment. */
  token?: string;
  /** The Hub cache root (see the file comment for the default). */
  cacheDir?: string;
  /** `dataset` (default) or `model`. */
  repoType?: HubRepoType;
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

export type HubRepoType = 'dataset' | 'model';

interface Resolved {
  repoType: HubRepoType;
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
    repoType: o.repoType ?? 'dataset',
    endpoint: (o.endpoint ?? env.HF_ENDPOINT ?? 'https://huggingface.co').replace(/\/+$/, ''),
    token: o.token ?? env.HF_TOKEN ?? env.HUGGING_FACE_HUB_TOKEN ?? undefined,
    cacheDir: o.cacheDir ?? hubCacheDir(),
    offline: o.offline ?? ['1', 'true', 'yes'].includes((env.HF_HUB_OFFLINE ?? '').toLowerCase()),
    retries: o.retries ?? 4,
    onProgress: o.onProgress,
  };
}

const COMMIT = /^[0-9a-f]{40}$/;

/** The Hub cache root as huggingface_hub picks it (`DV_HUB_CACHE` first). */
export function hubCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.DV_HUB_CACHE) return env.DV_HUB_CACHE;
  if (env.HF_HUB_CACHE) return env.HF_HUB_CACHE;
  if (env.HF_HOME) return join(env.HF_HOME, 'hub');
  return join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'huggingface', 'hub');
}

/**
 * `{cache}/datasets--org--name` (huggingface_hub's `repo_folder_name`). Repo ids, revisions,
 * commits, hashes and file paths come from the user or the server, so each is checked before it
 * becomes a path (a listing entry `../../x` must not write outside the cache; the hash check
 * cannot help, the server supplies the hash).
 */
function repoDir(r: Resolved, repo: string): string {
  const parts = repo.split('/');
  if (parts.length > 2 || !/^[\w.-]+(\/[\w.-]+)?$/.test(repo) || parts.some((p) => p === '.' || p === '..'))
    throw new HubError(`repo id ${JSON.stringify(repo)} is not of the form OWNER/NAME`);
  return inside(r.cacheDir, `${r.repoType}s--${repo.split('/').join('--')}`, {
    kind: 'path',
    what: 'repo id',
  });
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

function checkCommit(repo: string, commit: string): string {
  if (!COMMIT.test(commit))
    throw new HubError(`commit ${JSON.stringify(commit)} of ${repo} is not 40 hex digits`);
  return commit;
}

/** `snapshots/{commit}` of the repo. */
function snapshotDir(r: Resolved, repo: string, commit: string): string {
  return join(repoDir(r, repo), 'snapshots', checkCommit(repo, commit));
}

function filePath(r: Resolved, repo: string, commit: string, path: string): string {
  return inside(snapshotDir(r, repo, commit), path, {
    kind: 'path',
    what: 'file path',
    source: `the Hub's file list of ${repo}@${commit}`,
  });
}

const HASH = /^([0-9a-f]{40}|[0-9a-f]{64})$/;

function blobPath(r: Resolved, repo: string, file: HubFile): string {
  if (!HASH.test(file.hash.value))
    throw new HubError(`${repo}/${file.path}: ${JSON.stringify(file.hash.value)} is not a sha1 or sha256`);
  return join(repoDir(r, repo), 'blobs', file.hash.value);
}

const kind = (r: Resolved) => `${r.repoType}s`;

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
    throw unreachable(r, what, err);
  }
  if (!res.ok) throw await httpError(res, what);
  return parseBody<T>(r, res, what);
}

function unreachable(r: Resolved, what: string, err: unknown): HubError {
  const cause = (err as { cause?: { message?: string } }).cause?.message;
  return new HubError(
    `${what}: cannot reach ${r.endpoint}: ${cause ?? (err as Error).message} (use offline mode to read from the cache only)`,
  );
}

async function parseBody<T>(r: Resolved, res: Response, what: string): Promise<T> {
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
    `${r.endpoint}/api/${kind(r)}/${repo}/revision/${encodeURIComponent(revision)}`,
    `revision "${revision}" of ${r.repoType} ${repo}`,
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

/** The `rel="next"` target of a Link header (RFC 8288), resolved against `base`. */
export function nextLink(header: string | null, base: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(',')) {
    const m = /^\s*<([^>]*)>\s*;(.*)$/.exec(part);
    if (m && /(^|;)\s*rel\s*=\s*"?next"?\s*(;|$)/.test(m[2]!)) return new URL(m[1]!, base).toString();
  }
  return undefined;
}

/** Every page of a paginated JSON listing, concatenated. */
async function getAllPages<T>(r: Resolved, url: string, what: string): Promise<T[]> {
  const out: T[] = [];
  const seen = new Set<string>();
  let next: string | undefined = url;
  while (next) {
    if (seen.has(next)) throw new HubError(`${what}: the Hub's pagination loops at ${next}`);
    seen.add(next);
    let res: Response;
    try {
      res = await fetch(next, { headers: headers(r) });
    } catch (err) {
      throw unreachable(r, what, err);
    }
    if (!res.ok) throw await httpError(res, what);
    const page = await parseBody<T[]>(r, res, what);
    if (!Array.isArray(page)) throw new HubError(`${what}: the Hub's answer is not a list of files`);
    out.push(...page);
    next = nextLink(res.headers.get('link'), next);
  }
  return out;
}

/**
 * Files of a repo at a commit: the cached listing (`trees/{commit}.json`, else our older
 * `.dv/{commit}.files.json`, which is copied into `trees/`), else the Hub's; offline and with no
 * listing, the files present under `snapshots/{commit}/` (what `hf_hub_download` leaves).
 */
export async function listFiles(repo: string, commit: string, options: HubOptions = {}): Promise<HubFile[]> {
  return (await listing(resolveOptions(options), repo, commit)).files;
}

async function listing(
  r: Resolved,
  repo: string,
  commit: string,
): Promise<{ files: HubFile[]; source: ListingSource | 'hub' }> {
  const dir = repoDir(r, repo);
  checkCommit(repo, commit);
  const checked = (files: HubFile[], source: ListingSource | 'hub') => {
    for (const f of files) {
      filePath(r, repo, commit, f.path); // refuse the whole listing before any download
      if (!HASH.test(f.hash.value) || !Number.isSafeInteger(f.size) || f.size < 0)
        throw new HubError(
          `file list of ${repo}@${commit}: ${f.path} has no valid hash and size (${f.hash.value}, ${f.size})`,
        );
    }
    return { files, source };
  };
  const cached = readTreeCache(dir, commit);
  if (cached) return checked(cached, 'trees');
  const legacy = readLegacyListing(dir, commit);
  if (legacy) {
    const ok = checked(legacy, 'legacy');
    try {
      await writeTreeCache(dir, commit, legacy.map(withBlobId));
    } catch {
      // a read-only cache: the old listing keeps working
    }
    return ok;
  }
  if (r.offline) {
    const present = await snapshotListing(dir, commit);
    if (!present)
      throw new HubError(
        `offline: ${repo}@${commit} is not in the cache (${r.cacheDir}): no trees/${commit}.json and no snapshots/${commit}/`,
      );
    return checked(present, 'snapshot');
  }
  const tree = await getAllPages<TreeEntry>(
    r,
    `${r.endpoint}/api/${kind(r)}/${repo}/tree/${commit}?recursive=true`,
    `file list of ${repo}@${commit}`,
  );
  for (const e of tree)
    if (e.type === 'file' && !HASH.test(e.lfs?.oid ?? e.oid))
      throw new HubError(
        `file list of ${repo}@${commit}: ${e.path} has no valid hash (${e.lfs?.oid ?? e.oid})`,
      );
  const files = tree
    .filter((e) => e.type === 'file')
    .map((e) => ({
      path: e.path,
      size: e.lfs?.size ?? e.size,
      hash: e.lfs
        ? { algorithm: 'sha256' as const, value: e.lfs.oid }
        : { algorithm: 'git-sha1' as const, value: e.oid },
      blobId: HASH.test(e.oid) ? e.oid : undefined,
    }));
  files.sort((a, b) => (a.path < b.path ? -1 : 1));
  const result = checked(
    files.map(({ blobId: _, ...f }) => f),
    'hub',
  );
  await writeTreeCache(
    dir,
    commit,
    files.map((f) => (f.blobId ? { ...f, blobId: f.blobId } : withBlobId(f))),
  );
  return result;
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
  const blob = blobPath(r, repo, file);
  if (existsSync(target) && statSync(target).size === file.size) return target;
  if (existsSync(blob) && statSync(blob).size === file.size) return linkSnapshot(blob, target);
  if (r.offline)
    throw new HubError(`offline: ${repo}@${commit}/${file.path} is not in the cache (${r.cacheDir})`);
  mkdirSync(dirname(blob), { recursive: true });
  touchLockFile(r.cacheDir, basename(repoDir(r, repo)), file.hash.value);
  const partial = `${blob}.incomplete`;
  const prefix = r.repoType === 'dataset' ? '/datasets' : '';
  const url = `${r.endpoint}${prefix}/${repo}/resolve/${commit}/${file.path.split('/').map(encodeURIComponent).join('/')}`;
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
      renameSync(partial, blob);
      return linkSnapshot(blob, target);
    }
    if (got > file.size) rmSync(partial, { force: true });
  }
  throw new HubError(
    `download of ${repo}@${commit}/${file.path} did not complete after ${r.retries + 1} attempts${lastError ? `: ${(lastError as Error).message}` : ''}; rerun to resume`,
  );
}

/** `snapshots/{commit}/{path}` -> the blob, as a relative symlink (a copy where links fail). */
function linkSnapshot(blob: string, target: string): string {
  mkdirSync(dirname(target), { recursive: true });
  rmSync(target, { force: true });
  try {
    symlinkSync(relative(dirname(target), blob), target);
  } catch {
    copyFileSync(blob, target);
  }
  return target;
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
  /** Local folder holding the repo snapshot (`{cache}/datasets--org--name/snapshots/{commit}`). */
  dir: string;
  files: string[];
}

/** A downloaded model snapshot (config, tokenizer, safetensors, ... as `include` selects). */
export type DownloadedModel = DownloadedDataset;

/** Downloads (or finds in the cache) the files of a model repo at a pinned revision. */
export function downloadModel(
  repo: string,
  revision: string,
  options: Omit<HubOptions, 'repoType'> & { include?: readonly string[] } = {},
): Promise<DownloadedModel> {
  return downloadDataset(repo, revision, { ...options, repoType: 'model' });
}

/** Downloads (or finds in the cache) the files of a dataset (or, with `repoType`, a model) at a pinned revision. */
export async function downloadDataset(
  repo: string,
  revision: string,
  options: HubOptions & { include?: readonly string[] } = {},
): Promise<DownloadedDataset> {
  if (!revision) throw new HubError(`no revision given for ${repo}: pin a commit`);
  const commit = await resolveRevision(repo, revision, options);
  const r = resolveOptions(options);
  const { files: all, source } = await listing(r, repo, commit);
  const wanted = options.include
    ? all.filter((f) => options.include!.some((g) => matchGlob(g, f.path)))
    : all;
  if (wanted.length === 0) {
    const absent = (options.include ?? []).filter((g) => recordedAbsent(repoDir(r, repo), commit, g));
    const why =
      absent.length > 0
        ? ` (${absent.join(', ')}: not in the repo at that commit, as recorded under .no_exist/)`
        : source === 'snapshot'
          ? ` among the ${all.length} files present under snapshots/${commit}/ (offline, and no trees/${commit}.json listing: the cache holds single-file downloads only)`
          : '';
    throw new HubError(`${repo}@${commit}: no files match ${options.include?.join(', ') ?? '*'}${why}`);
  }
  const files: string[] = [];
  for (const f of wanted) files.push(await downloadFile(repo, commit, f, options));
  return {
    repo,
    revision,
    commit,
    dir: snapshotDir(r, repo, commit),
    files,
  };
}
