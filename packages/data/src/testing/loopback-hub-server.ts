/**
 * A loopback server on 127.0.0.1 (random port) speaking the part of the Hugging Face Hub's HTTP
 * file API that hub-client.ts and huggingface_hub (`snapshot_download`, `hf_hub_download`, with
 * HF_ENDPOINT pointing here) use, for any number of dataset and model repos held in memory: for
 * tests, dry runs of the paper profile and demos; never the real Hub. `rev` is the repo's commit
 * or `main` throughout.
 *
 *   GET /api/{datasets|models}/{repo}/revision/{rev}           -> { id, sha, siblings }
 *   GET /api/{datasets|models}/{repo}/tree/{rev}?recursive=true -> [{ type, path, size, oid,
 *       lfs?: { oid, size, pointerSize } }]  (size: the file's; oid: the git oid of the file,
 *       or of its LFS pointer)
 *   GET|HEAD /datasets/{repo}/resolve/{rev}/{path}, /{repo}/resolve/{rev}/{path}
 *       (Range: bytes=N-), with the headers huggingface_hub needs: `X-Repo-Commit`, `ETag` (git
 *       oid), and for LFS files `X-Linked-Etag` (sha256) and `X-Linked-Size`
 *
 * Files at or above `lfsFromBytes` (default 1 KiB) are listed as LFS files (sha256 of the
 * content), smaller ones as regular git files (git blob sha1), as on the Hub. Anything else
 * answers 404 `{"error": ...}` with the Hub's `X-Error-Code` (RepoNotFound, RevisionNotFound,
 * EntryNotFound; the last with `X-Repo-Commit`, from which huggingface_hub writes `.no_exist/`).
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackHubRepo {
  type: 'dataset' | 'model';
  /** `owner/name`. */
  repo: string;
  /** 40 hex digits (default: derived from the repo id and its files). */
  commit?: string;
  /** Repo path -> content. */
  files: Readonly<Record<string, string | Uint8Array>>;
}

export interface LoopbackHubServerOptions {
  repos: readonly LoopbackHubRepo[];
  lfsFromBytes?: number;
}

export interface LoopbackHubServer {
  /** The endpoint to give the Hub client (`HubOptions.endpoint`, `HF_ENDPOINT`). */
  readonly url: string;
  /** `type/repo` -> the commit it serves. */
  readonly commits: ReadonlyMap<string, string>;
  /** Request paths received, in order. */
  readonly requests: readonly string[];
  close(): Promise<void>;
}

const gitSha1 = (b: Buffer) => createHash('sha1').update(`blob ${b.length}\0`).update(b).digest('hex');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
/** The LFS pointer file git stores for `b` (git-lfs spec v1). */
const lfsPointer = (b: Buffer) =>
  Buffer.from(`version https://git-lfs.github.com/spec/v1\noid sha256:${sha256(b)}\nsize ${b.length}\n`);

interface Served {
  commit: string;
  files: Map<string, Buffer>;
}

export async function startLoopbackHubServer(options: LoopbackHubServerOptions): Promise<LoopbackHubServer> {
  const lfsFrom = options.lfsFromBytes ?? 1024;
  const repos = new Map<string, Served>();
  for (const r of options.repos) {
    const files = new Map(
      Object.entries(r.files).map(([p, c]) => [p, typeof c === 'string' ? Buffer.from(c) : Buffer.from(c)]),
    );
    const commit =
      r.commit ??
      createHash('sha1')
        .update(`${r.type}/${r.repo}\n`)
        .update([...files.entries()].map(([p, b]) => `${p}:${sha256(b)}`).join('\n'))
        .digest('hex');
    if (!/^[0-9a-f]{40}$/.test(commit)) throw new Error(`commit of ${r.repo} must be 40 hex digits`);
    repos.set(`${r.type}s/${r.repo}`, { commit, files });
  }
  const requests: string[] = [];

  const json = (res: ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      ...extra,
    });
    res.end(text);
  };
  const notFound = (res: ServerResponse, code: string, error: string, commit?: string) =>
    json(res, 404, { error }, { 'x-error-code': code, ...(commit ? { 'x-repo-commit': commit } : {}) });
  const atRev = (served: Served, rev: string) => rev === 'main' || rev === served.commit;

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = decodeURIComponent(url.pathname);
    requests.push(path);
    const api = /^\/api\/(datasets|models)\/([^/]+\/[^/]+)\/(revision|tree)\/([^/]+)\/?$/.exec(path);
    if (api) {
      const [, kind, repo, what, rev] = api as unknown as [string, string, string, string, string];
      const served = repos.get(`${kind}/${repo}`);
      if (!served) return notFound(res, 'RepoNotFound', 'Repository not found');
      if (!atRev(served, rev)) return notFound(res, 'RevisionNotFound', `Invalid rev id: ${rev}`);
      if (what === 'revision') {
        return json(res, 200, {
          id: repo,
          sha: served.commit,
          siblings: [...served.files.keys()].map((rfilename) => ({ rfilename })),
        });
      }
      if (url.searchParams.get('recursive') !== 'true')
        return notFound(res, 'RevisionNotFound', `Invalid rev id: ${rev}`);
      const dirs = new Set<string>();
      for (const p of served.files.keys()) {
        const parts = p.split('/');
        for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
      }
      return json(res, 200, [
        ...[...dirs].sort().map((d) => ({ type: 'directory', path: d, oid: '0'.repeat(40), size: 0 })),
        ...[...served.files.entries()].map(([p, b]) => {
          if (b.length < lfsFrom) return { type: 'file', path: p, oid: gitSha1(b), size: b.length };
          const pointer = lfsPointer(b);
          return {
            type: 'file',
            path: p,
            oid: gitSha1(pointer),
            size: b.length,
            lfs: { oid: sha256(b), size: b.length, pointerSize: pointer.length },
          };
        }),
      ]);
    }
    const file = /^(\/datasets)?\/([^/]+\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(path);
    if (file) {
      const [, ds, repo, rev, p] = file as unknown as [string, string | undefined, string, string, string];
      const served = repos.get(`${ds ? 'datasets' : 'models'}/${repo}`);
      if (!served) return notFound(res, 'RepoNotFound', 'Repository not found');
      if (!atRev(served, rev)) return notFound(res, 'RevisionNotFound', `Invalid rev id: ${rev}`);
      const body = served.files.get(p);
      if (!body) return notFound(res, 'EntryNotFound', 'Entry not found', served.commit);
      const lfs = body.length >= lfsFrom;
      const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
      const start = m ? Math.min(Number(m[1]), body.length) : 0;
      const part = body.subarray(start);
      res.writeHead(m ? 206 : 200, {
        'content-length': String(part.length),
        'accept-ranges': 'bytes',
        'x-repo-commit': served.commit,
        etag: `"${lfs ? gitSha1(lfsPointer(body)) : gitSha1(body)}"`,
        ...(lfs ? { 'x-linked-etag': `"${sha256(body)}"`, 'x-linked-size': String(body.length) } : {}),
        ...(m ? { 'content-range': `bytes ${start}-${body.length - 1}/${body.length}` } : {}),
      });
      return void res.end(req.method === 'HEAD' ? undefined : part);
    }
    json(res, 404, { error: 'not found' });
  };

  const server: Server = createServer(handle);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as AddressInfo).port;
  const commits = new Map(
    [...repos.entries()].map(([k, v]) => [
      k.replace(/^datasets\//, 'dataset/').replace(/^models\//, 'model/'),
      v.commit,
    ]),
  );
  return {
    url: `http://127.0.0.1:${port}`,
    commits,
    requests,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
