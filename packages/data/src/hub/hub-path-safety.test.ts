/**
 * Regression tests for issue 12 item 1 (Hub half): a Hub listing, a revision or a repo id never
 * becomes a path outside the cache. A real loopback server on 127.0.0.1 serves a hostile file
 * list whose hashes match (the server supplies them, so the hash check cannot be the defence).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { writeJsonAtomic } from '@dv/core';
import { tmpDir } from '@dv/core/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadDataset, HubError, resolveRevision } from './hub-client.js';

const COMMIT = 'badc0de000000000000000000000000000000001';
const BODY = Buffer.from('pwn');
const gitSha1 = (b: Buffer) => createHash('sha1').update(`blob ${b.length}\0`).update(b).digest('hex');

let server: Server;
let endpoint = '';
let listing: string[] = [];
let sha = COMMIT;

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    res.setHeader('content-type', 'application/json');
    if (url.pathname.includes('/revision/')) return void res.end(JSON.stringify({ sha }));
    if (url.pathname.includes('/tree/'))
      return void res.end(
        JSON.stringify(
          listing.map((path) => ({ type: 'file', path, size: BODY.length, oid: gitSha1(BODY) })),
        ),
      );
    res.setHeader('content-type', 'application/octet-stream');
    res.end(BODY);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((ok) => server.close(() => ok()));
});

/** Every file under `dir`, recursively, as paths relative to it. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
}

describe('Hub paths stay inside the cache (issue 12 item 1)', () => {
  it.each([['../../x'], ['ok/../../../x'], ['/abs/x'], ['a\\..\\..\\x']])(
    'a listing entry %j is refused before anything is downloaded',
    async (bad) => {
      const outer = tmpDir();
      const cacheDir = join(outer, 'cache');
      listing = ['fine.txt', bad];
      sha = COMMIT;
      const err = await downloadDataset('org/set', COMMIT, { endpoint, cacheDir, retries: 0 }).catch(
        (e) => e,
      );
      expect(err).toBeInstanceOf(HubError);
      expect(err.message).toContain(JSON.stringify(bad));
      expect(err.message).toContain("Hub's file list of org/set");
      // Nothing outside the cache, and no file of the listing inside it either.
      expect(filesUnder(outer).filter((f) => !f.startsWith('cache/'))).toEqual([]);
      expect(filesUnder(cacheDir).filter((f) => f.endsWith('fine.txt'))).toEqual([]);
    },
  );
  it('a repo id or a revision that climbs out is refused', async () => {
    const cacheDir = join(tmpDir(), 'cache');
    for (const repo of ['../../x', 'a/b/c', '/abs', 'org/..'])
      await expect(downloadDataset(repo, COMMIT, { endpoint, cacheDir })).rejects.toThrow(/repo id/);
    await expect(resolveRevision('org/set', '../../../x', { endpoint, cacheDir })).rejects.toThrow(
      /revision "\.\.\/\.\.\/\.\.\/x" has a '\.\.' segment/,
    );
  });
  it('a commit the server gives that is not 40 hex digits is refused', async () => {
    const cacheDir = join(tmpDir(), 'cache');
    sha = '../../../../tmp/x';
    await expect(resolveRevision('org/set', 'main', { endpoint, cacheDir })).rejects.toThrow(
      /gave no commit/,
    );
    sha = COMMIT;
  });
  it('a cached trees/{commit}.json (another tool wrote it) is checked like a listing from the Hub', async () => {
    const outer = tmpDir();
    const cacheDir = join(outer, 'cache');
    const repoFolder = join(cacheDir, 'datasets--org--set');
    const entry = { size: BODY.length, blob_id: gitSha1(BODY) };
    for (const [files, message] of [
      [{ 'fine.txt': entry, '../../../x': entry }, /"\.\.\/\.\.\/\.\.\/x"/],
      [{ 'fine.txt': { size: 3, blob_id: '../../../x' } }, /fine\.txt has no valid hash/],
    ] as const) {
      await writeJsonAtomic(join(repoFolder, 'trees', `${COMMIT}.json`), { format_version: 1, files });
      for (const offline of [true, false])
        await expect(downloadDataset('org/set', COMMIT, { endpoint, cacheDir, offline })).rejects.toThrow(
          message,
        );
    }
    expect(filesUnder(outer).filter((f) => !f.startsWith('cache/'))).toEqual([]);
    expect(filesUnder(join(repoFolder, 'snapshots'))).toEqual([]);
  });
  it('offline, snapshot links that lead outside the blobs of the repo are not cached files', async () => {
    const cacheDir = join(tmpDir(), 'cache');
    const repoFolder = join(cacheDir, 'datasets--org--set');
    const snap = join(repoFolder, 'snapshots', COMMIT);
    mkdirSync(join(repoFolder, 'blobs'), { recursive: true });
    mkdirSync(snap, { recursive: true });
    writeFileSync(join(repoFolder, 'blobs', gitSha1(BODY)), BODY);
    symlinkSync(join('..', '..', 'blobs', gitSha1(BODY)), join(snap, 'ok.txt'));
    symlinkSync('/etc/hostname', join(snap, 'outside.txt'));
    symlinkSync(join('..', '..', 'blobs', 'f'.repeat(40)), join(snap, 'dangling.txt'));
    const got = await downloadDataset('org/set', COMMIT, { cacheDir, offline: true });
    expect(got.files).toEqual([join(snap, 'ok.txt')]);
  });
});
