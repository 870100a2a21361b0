import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { tmpDir } from '@dv/core/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadDataset, downloadModel, HubError, hubCacheDir, matchGlob, nextLink } from './hub-client.js';

/**
 * A loopback server speaking the Hub's dataset file API for one repo with one commit and a
 * `main` branch: revision info, recursive tree (LFS and regular files), resolve with Range.
 */
const REPO = 'org/tiny-set';
const COMMIT = 'c0ffee0000000000000000000000000000000001';
const FILES: Record<string, { body: Buffer; lfs: boolean }> = {
  'README.md': { body: Buffer.from('# tiny set\n'), lfs: false },
  'corpus/test-00000-of-00001.parquet': { body: Buffer.from('PAR1'.repeat(5000)), lfs: true },
  'queries.jsonl': { body: Buffer.from('{"_id":"q1","text":"x"}\n'.repeat(200)), lfs: true },
};
const gitSha1 = (b: Buffer) => createHash('sha1').update(`blob ${b.length}\0`).update(b).digest('hex');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

interface Hit {
  url: string;
  range?: string;
  auth?: string;
}

class FakeHub {
  server!: Server;
  hits: Hit[] = [];
  /** Paths whose next response breaks off after this many bytes. */
  cutAfter = new Map<string, number>();
  /** When set, every request must carry this bearer token. */
  requiredToken: string | undefined;
  corrupt = new Set<string>();
  /** Tree entries per page (the real Hub pages its listings; 0 = one page). */
  pageSize = 0;

  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((ok) => this.server.listen(0, '127.0.0.1', ok));
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((ok) => this.server.close(() => ok()));
  }

  handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url!, 'http://x');
    this.hits.push({ url: url.pathname, range: req.headers.range, auth: req.headers.authorization });
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (this.requiredToken && req.headers.authorization !== `Bearer ${this.requiredToken}`) {
      return void json(401, { error: 'Access to dataset org/tiny-set is restricted.' });
    }
    const kind =
      url.pathname.startsWith('/api/models/') || url.pathname.startsWith(`/${REPO}/resolve/`)
        ? 'models'
        : 'datasets';
    const base = `/api/${kind}/${REPO}`;
    if (url.pathname.startsWith(`${base}/revision/`)) {
      const rev = decodeURIComponent(url.pathname.slice(`${base}/revision/`.length));
      if (rev !== 'main' && rev !== COMMIT) return void json(404, { error: `Invalid rev id: ${rev}` });
      return void json(200, {
        id: REPO,
        sha: COMMIT,
        siblings: Object.keys(FILES).map((rfilename) => ({ rfilename })),
      });
    }
    if (url.pathname === `${base}/tree/${COMMIT}` && url.searchParams.get('recursive') === 'true') {
      const all = [
        { type: 'directory', path: 'corpus', oid: 'x', size: 0 },
        ...Object.entries(FILES).map(([path, f]) =>
          f.lfs
            ? {
                type: 'file',
                path,
                oid: gitSha1(Buffer.from('pointer')),
                size: 130,
                lfs: { oid: sha256(f.body), size: f.body.length },
              }
            : { type: 'file', path, oid: gitSha1(f.body), size: f.body.length },
        ),
      ];
      if (!this.pageSize) return void json(200, all);
      // Cursor pagination as the Hub does it: a Link header with rel="next" until the last page.
      const at = Number(url.searchParams.get('cursor') ?? 0);
      const next = at + this.pageSize;
      if (next < all.length) {
        const u = new URL(url.toString());
        u.searchParams.set('cursor', String(next));
        res.setHeader('link', `<${this.endpoint}${u.pathname}${u.search}>; rel="next"`);
      }
      return void json(200, all.slice(at, next));
    }
    const resolve =
      kind === 'models' ? `/${REPO}/resolve/${COMMIT}/` : `/datasets/${REPO}/resolve/${COMMIT}/`;
    if (url.pathname.startsWith(resolve)) {
      const path = decodeURIComponent(url.pathname.slice(resolve.length));
      const f = FILES[path];
      if (!f) return void json(404, { error: 'Entry not found' });
      let body = this.corrupt.has(path) ? Buffer.from(f.body).fill(65) : f.body;
      let status = 200;
      const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
      const start = m ? Number(m[1]) : 0;
      if (m) {
        status = 206;
        body = body.subarray(start);
      }
      res.writeHead(status, {
        'content-length': String(body.length),
        ...(m ? { 'content-range': `bytes ${start}-${f.body.length - 1}/${f.body.length}` } : {}),
      });
      const cut = this.cutAfter.get(path);
      if (cut !== undefined) {
        this.cutAfter.delete(path);
        res.write(body.subarray(0, cut));
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      }
      return void res.end(body);
    }
    json(404, { error: 'not found' });
  }
}

const hub = new FakeHub();
beforeAll(() => hub.start());
afterAll(() => hub.stop());

describe('Hub downloader against a loopback Hub', () => {
  it('downloads a pinned revision into the cache, verifies hashes, then serves it from the cache', async () => {
    const cacheDir = tmpDir('hub-cache-');
    const r = await downloadDataset(REPO, COMMIT, { endpoint: hub.endpoint, cacheDir, token: '' });
    expect(r.commit).toBe(COMMIT);
    expect(r.files.map((f) => f.slice(r.dir.length + 1))).toEqual(Object.keys(FILES).sort());
    for (const [path, f] of Object.entries(FILES))
      expect(readFileSync(join(r.dir, path)).equals(f.body)).toBe(true);
    const before = hub.hits.length;
    const again = await downloadDataset(REPO, COMMIT, { endpoint: hub.endpoint, cacheDir, offline: true });
    expect(again.files).toEqual(r.files);
    expect(hub.hits.length).toBe(before);
  });

  it('resumes an interrupted download with a Range request', async () => {
    const cacheDir = tmpDir('hub-cache-');
    const path = 'corpus/test-00000-of-00001.parquet';
    hub.cutAfter.set(path, 7000);
    hub.hits = [];
    const r = await downloadDataset(REPO, 'main', {
      endpoint: hub.endpoint,
      cacheDir,
      include: ['**/*.parquet'],
    });
    expect(r.files).toHaveLength(1);
    expect(readFileSync(r.files[0]!).equals(FILES[path]!.body)).toBe(true);
    const gets = hub.hits.filter((h) => h.url.endsWith(path));
    expect(gets.map((h) => h.range)).toEqual([undefined, 'bytes=7000-']);
  });

  it('picks up a partial file left by an earlier run (resume across processes)', async () => {
    const cacheDir = tmpDir('hub-cache-');
    const path = 'queries.jsonl';
    const partial = join(
      cacheDir,
      'datasets--org--tiny-set',
      'blobs',
      `${sha256(FILES[path]!.body)}.incomplete`,
    );
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(partial, '..'), { recursive: true });
    writeFileSync(partial, FILES[path]!.body.subarray(0, 1000));
    hub.hits = [];
    const r = await downloadDataset(REPO, COMMIT, { endpoint: hub.endpoint, cacheDir, include: [path] });
    expect(readFileSync(r.files[0]!).equals(FILES[path]!.body)).toBe(true);
    expect(existsSync(partial)).toBe(false);
    expect(hub.hits.filter((h) => h.url.endsWith(path)).map((h) => h.range)).toEqual(['bytes=1000-']);
  });

  it('a wrong revision is an error naming the revision and the repo', async () => {
    const cacheDir = tmpDir('hub-cache-');
    const bad = 'deadbeef00000000000000000000000000000000';
    const p = downloadDataset(REPO, bad, { endpoint: hub.endpoint, cacheDir });
    await expect(p).rejects.toThrow(HubError);
    await expect(downloadDataset(REPO, bad, { endpoint: hub.endpoint, cacheDir })).rejects.toThrow(
      `revision "${bad}" of dataset ${REPO}: HTTP 404 Invalid rev id: ${bad}`,
    );
  });

  it('offline mode uses only the cache and says what is missing', async () => {
    const cacheDir = tmpDir('hub-cache-');
    await expect(
      downloadDataset(REPO, 'main', { endpoint: hub.endpoint, cacheDir, offline: true }),
    ).rejects.toThrow(/offline: revision "main" of org\/tiny-set is not in the cache/);
    await downloadDataset(REPO, 'main', { endpoint: hub.endpoint, cacheDir, include: ['README.md'] });
    const hits = hub.hits.length;
    const off = await downloadDataset(REPO, 'main', { cacheDir, offline: true, include: ['README.md'] });
    expect(off.commit).toBe(COMMIT);
    expect(hub.hits.length).toBe(hits);
    await expect(
      downloadDataset(REPO, 'main', { cacheDir, offline: true, include: ['queries.jsonl'] }),
    ).rejects.toThrow(/offline: org\/tiny-set@c0ffee0+1\/queries\.jsonl is not in the cache/);
  });

  it('sends the token from HF_TOKEN; without it a gated repo says authentication is required', async () => {
    const cacheDir = tmpDir('hub-cache-');
    hub.requiredToken = 'hf_test_secret_123';
    const saved = process.env.HF_TOKEN;
    try {
      delete process.env.HF_TOKEN;
      await expect(downloadDataset(REPO, COMMIT, { endpoint: hub.endpoint, cacheDir })).rejects.toThrow(
        /HTTP 401 .*authentication required: set HF_TOKEN/,
      );
      process.env.HF_TOKEN = 'hf_test_secret_123';
      hub.hits = [];
      const r = await downloadDataset(REPO, COMMIT, {
        endpoint: hub.endpoint,
        cacheDir,
        include: ['README.md'],
      });
      expect(r.files).toHaveLength(1);
      expect(hub.hits.every((h) => h.auth === 'Bearer hf_test_secret_123')).toBe(true);
      const listing = readFileSync(
        join(cacheDir, 'datasets--org--tiny-set', 'trees', `${COMMIT}.json`),
        'utf8',
      );
      expect(listing).not.toContain('hf_test_secret_123');
    } finally {
      hub.requiredToken = undefined;
      if (saved === undefined) delete process.env.HF_TOKEN;
      else process.env.HF_TOKEN = saved;
    }
  });

  it('a corrupted transfer fails the hash check and leaves no file behind', async () => {
    const cacheDir = tmpDir('hub-cache-');
    hub.corrupt.add('README.md');
    try {
      await expect(
        downloadDataset(REPO, COMMIT, { endpoint: hub.endpoint, cacheDir, include: ['README.md'] }),
      ).rejects.toThrow(/README\.md: git-sha1 mismatch/);
      expect(existsSync(join(cacheDir, 'datasets--org--tiny-set', 'snapshots', COMMIT, 'README.md'))).toBe(
        false,
      );
      expect(readdirSync(join(cacheDir, 'datasets--org--tiny-set', 'blobs'))).toEqual([]);
    } finally {
      hub.corrupt.delete('README.md');
    }
  });

  it('follows the Link header through every page of a file listing', async () => {
    const cacheDir = tmpDir('hub-cache-');
    hub.pageSize = 1;
    hub.hits = [];
    try {
      const r = await downloadDataset(REPO, COMMIT, { endpoint: hub.endpoint, cacheDir });
      expect(r.files.map((f) => f.slice(r.dir.length + 1))).toEqual(Object.keys(FILES).sort());
      // 1 directory + 3 files, one entry per page.
      expect(hub.hits.filter((h) => h.url.includes('/tree/'))).toHaveLength(4);
    } finally {
      hub.pageSize = 0;
    }
    expect(nextLink('<https://h/a?cursor=2>; rel="next", <https://h/a>; rel="first"', 'https://h/')).toBe(
      'https://h/a?cursor=2',
    );
    expect(nextLink('<https://h/a>; rel="prev"', 'https://h/')).toBeUndefined();
  });

  it('uses the Hub cache layout: blobs + snapshot symlinks + refs, so Python downloads are reused', async () => {
    const cacheDir = tmpDir('hub-cache-');
    const repoDir = join(cacheDir, 'datasets--org--tiny-set');
    // What huggingface_hub leaves after hf_hub_download(repo_type="dataset", revision="main").
    const body = FILES['queries.jsonl']!.body;
    mkdirSync(join(repoDir, 'blobs'), { recursive: true });
    mkdirSync(join(repoDir, 'snapshots', COMMIT), { recursive: true });
    mkdirSync(join(repoDir, 'refs'), { recursive: true });
    writeFileSync(join(repoDir, 'blobs', sha256(body)), body);
    symlinkSync(join('..', '..', 'blobs', sha256(body)), join(repoDir, 'snapshots', COMMIT, 'queries.jsonl'));
    writeFileSync(join(repoDir, 'refs', 'main'), COMMIT);
    hub.hits = [];
    const r = await downloadDataset(REPO, 'main', { endpoint: hub.endpoint, cacheDir });
    expect(r.dir).toBe(join(repoDir, 'snapshots', COMMIT));
    expect(hub.hits.some((h) => h.url.endsWith('queries.jsonl'))).toBe(false); // reused, not fetched
    const readme = join(r.dir, 'README.md');
    expect(lstatSync(readme).isSymbolicLink()).toBe(true);
    expect(readlinkSync(readme)).toBe(join('..', '..', 'blobs', gitSha1(FILES['README.md']!.body)));
    expect(readFileSync(join(repoDir, 'refs', 'main'), 'utf8')).toBe(COMMIT);
    expect(hubCacheDir({ HF_HOME: '/x/hf' })).toBe('/x/hf/hub');
    expect(hubCacheDir({ HF_HUB_CACHE: '/y', HF_HOME: '/x' })).toBe('/y');
  });

  it("keeps the commit's file list in trees/{commit}.json (huggingface_hub's format) and reuses it", async () => {
    const cacheDir = tmpDir('hub-cache-');
    await downloadDataset(REPO, COMMIT, { endpoint: hub.endpoint, cacheDir, include: ['README.md'] });
    const tree = JSON.parse(
      readFileSync(join(cacheDir, 'datasets--org--tiny-set', 'trees', `${COMMIT}.json`), 'utf8'),
    );
    const parquet = FILES['corpus/test-00000-of-00001.parquet']!.body;
    expect(tree).toEqual({
      format_version: 1,
      files: {
        'README.md': { size: 11, blob_id: gitSha1(FILES['README.md']!.body) },
        'corpus/test-00000-of-00001.parquet': {
          size: parquet.length,
          blob_id: gitSha1(Buffer.from('pointer')),
          lfs_sha256: sha256(parquet),
          lfs_size: parquet.length,
        },
        'queries.jsonl': expect.objectContaining({ lfs_sha256: sha256(FILES['queries.jsonl']!.body) }),
      },
    });
    // A commit never changes: the second run (online) lists from the cache, not the Hub.
    hub.hits = [];
    await downloadDataset(REPO, COMMIT, { endpoint: hub.endpoint, cacheDir, include: ['queries.jsonl'] });
    expect(hub.hits.map((h) => h.url)).toEqual([
      `/api/datasets/${REPO}/revision/${COMMIT}`,
      `/datasets/${REPO}/resolve/${COMMIT}/queries.jsonl`,
    ]);
  });

  it('offline with no listing (what hf_hub_download leaves), the file list is the snapshot links present', async () => {
    const cacheDir = tmpDir('hub-cache-');
    const repoDir = join(cacheDir, 'datasets--org--tiny-set');
    const body = FILES['queries.jsonl']!.body;
    mkdirSync(join(repoDir, 'blobs'), { recursive: true });
    mkdirSync(join(repoDir, 'snapshots', COMMIT), { recursive: true });
    mkdirSync(join(repoDir, 'refs'), { recursive: true });
    writeFileSync(join(repoDir, 'blobs', sha256(body)), body);
    symlinkSync(join('..', '..', 'blobs', sha256(body)), join(repoDir, 'snapshots', COMMIT, 'queries.jsonl'));
    writeFileSync(join(repoDir, 'refs', 'main'), COMMIT);
    const r = await downloadDataset(REPO, 'main', { cacheDir, offline: true });
    expect(r.files).toEqual([join(repoDir, 'snapshots', COMMIT, 'queries.jsonl')]);
    await expect(downloadDataset(REPO, COMMIT, { cacheDir: tmpDir(), offline: true })).rejects.toThrow(
      /offline: org\/tiny-set@c0ffee0+1 is not in the cache .*no trees\/c0ffee0+1\.json and no snapshots\//,
    );
  });

  it('fetches models too (config, tokenizer, weights) from the model endpoints', async () => {
    const cacheDir = tmpDir('hub-cache-');
    hub.hits = [];
    const r = await downloadModel(REPO, COMMIT, { endpoint: hub.endpoint, cacheDir, include: ['README.md'] });
    expect(r.dir).toBe(join(cacheDir, 'models--org--tiny-set', 'snapshots', COMMIT));
    expect(readFileSync(r.files[0]!, 'utf8')).toBe('# tiny set\n');
    expect(hub.hits.map((h) => h.url)).toEqual([
      `/api/models/${REPO}/revision/${COMMIT}`,
      `/api/models/${REPO}/tree/${COMMIT}`,
      `/${REPO}/resolve/${COMMIT}/README.md`,
    ]);
  });

  it('globs: * stays within a segment, ** crosses segments', () => {
    expect(matchGlob('**/*.parquet', 'a.parquet')).toBe(true);
    expect(matchGlob('**/*.parquet', 'corpus/x/a.parquet')).toBe(true);
    expect(matchGlob('*.parquet', 'corpus/a.parquet')).toBe(false);
    expect(matchGlob('corpus/*', 'corpus/a.parquet')).toBe(true);
    expect(matchGlob('queries.jsonl', 'queries.jsonl')).toBe(true);
  });
});
