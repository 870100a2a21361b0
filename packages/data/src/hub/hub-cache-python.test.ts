/**
 * Issue 22: the Hub cache is shared both ways with huggingface_hub (the real one, from
 * `.venv-ref` or $DV_PYTHON; skipped with a note when neither has it). One loopback Hub server
 * on 127.0.0.1 serves both tools.
 * (1) We download; Python with HF_HUB_OFFLINE=1 reads our cache by commit and by branch
 *     (`snapshot_download`, `hf_hub_download`, `get_cached_repo_tree`). Before `trees/` was
 *     written, `snapshot_download(revision=<commit>)` asked the Hub for the tree and failed.
 * (2) Python downloads (HF_ENDPOINT = the loopback server); we read its cache offline, from its
 *     `trees/` listing, or from the snapshot links when it kept none (`hf_hub_download` only).
 * (3) A cache of ours from before (`.dv/{commit}.files.json`) still reads, and after that first
 *     read huggingface_hub reads it too.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { writeJsonAtomic } from '@dv/core';
import { tmpDir } from '@dv/core/test-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LoopbackHubServer, startLoopbackHubServer } from '../testing/loopback-hub-server.js';
import { downloadDataset, downloadModel, listFiles } from './hub-client.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
const SETUP_HINT =
  'run scripts/setup-reference-venv.sh (huggingface_hub into .venv-ref from the local index), or set DV_PYTHON';

function findPython(): string | undefined {
  const candidates = [process.env.DV_PYTHON, join(repoRoot, '.venv-ref', 'bin', 'python')].filter(
    (p): p is string => Boolean(p) && existsSync(p!),
  );
  for (const python of candidates) {
    const check =
      'import importlib.util, sys; sys.exit(0 if importlib.util.find_spec("huggingface_hub") else 1)';
    if (spawnSync(python, ['-c', check], { stdio: 'ignore', timeout: 60_000 }).status === 0) return python;
  }
  console.warn(`skipping the huggingface_hub cache tests: no Python with huggingface_hub (${SETUP_HINT})`);
  return undefined;
}

const python = findPython();

/** One Python process: each op's result, or its exception's class name and message, in order. */
const SCRIPT = `
import json, sys
from huggingface_hub import snapshot_download, hf_hub_download, get_cached_repo_tree
out = []
for op in json.load(sys.stdin):
    kind = op.pop("op")
    try:
        if kind == "snapshot":
            out.append({"ok": snapshot_download(**op)})
        elif kind == "file":
            out.append({"ok": hf_hub_download(**op)})
        elif kind == "tree":
            out.append({"ok": sorted(f.path for f in get_cached_repo_tree(**op))})
    except Exception as e:
        out.append({"error": type(e).__name__, "message": str(e)})
print(json.dumps(out))
`;

type PyResult = { ok: unknown } | { error: string; message: string };

/**
 * Runs `ops` through SCRIPT. Asynchronous on purpose: the loopback server answering Python
 * runs on this event loop.
 */
async function py(
  ops: Record<string, unknown>[],
  env: { offline: boolean; endpoint?: string },
): Promise<PyResult[]> {
  const home = tmpDir('hf-home-');
  const child = promisify(execFile)(python!, ['-c', SCRIPT], {
    timeout: 120_000,
    maxBuffer: 16 * 1024 * 1024,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      HF_HOME: home,
      HF_HUB_OFFLINE: env.offline ? '1' : '0',
      HF_HUB_DISABLE_TELEMETRY: '1',
      HF_HUB_DISABLE_PROGRESS_BARS: '1',
      ...(env.endpoint ? { HF_ENDPOINT: env.endpoint } : { HF_ENDPOINT: 'http://127.0.0.1:9' }),
    },
  });
  child.child.stdin!.end(JSON.stringify(ops));
  const { stdout } = await child;
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as PyResult[];
}

const BIG = `${'{"_id":"d1","text":"a long document"}\n'.repeat(100)}`;
const FILES = {
  'README.md': '# set\n',
  'corpus/corpus.jsonl': BIG,
  'queries/test.jsonl': '{"_id":"q1","text":"q"}\n',
};
const MODEL_FILES = { 'config.json': '{"model_type":"bert"}', 'model.safetensors': 'w'.repeat(3000) };
let hub: LoopbackHubServer;
let commit = '';
let modelCommit = '';

beforeAll(async () => {
  hub = await startLoopbackHubServer({
    repos: [
      { type: 'dataset', repo: 'org/set', files: FILES },
      { type: 'model', repo: 'org/enc', files: MODEL_FILES },
    ],
  });
  commit = hub.commits.get('dataset/org/set')!;
  modelCommit = hub.commits.get('model/org/enc')!;
});
afterAll(() => hub.close());

const ds = (cache_dir: string, extra: Record<string, unknown> = {}) => ({
  repo_id: 'org/set',
  repo_type: 'dataset',
  cache_dir,
  ...extra,
});

// Each test starts Python (importing huggingface_hub takes seconds on a busy machine).
describe.skipIf(!python)(
  'the Hub cache, shared with huggingface_hub both ways (issue 22)',
  { timeout: 120_000 },
  () => {
    it('(1) huggingface_hub offline reads what we downloaded, by commit and by branch', async () => {
      const cacheDir = tmpDir('hub-ours-');
      const d = await downloadDataset('org/set', 'main', { endpoint: hub.url, cacheDir, token: '' });
      const m = await downloadModel('org/enc', modelCommit, { endpoint: hub.url, cacheDir, token: '' });
      const r = await py(
        [
          { op: 'snapshot', ...ds(cacheDir, { revision: commit }) },
          { op: 'snapshot', ...ds(cacheDir, { revision: commit, local_files_only: true }) },
          { op: 'snapshot', ...ds(cacheDir, { revision: 'main' }) },
          { op: 'file', ...ds(cacheDir, { revision: commit, filename: 'corpus/corpus.jsonl' }) },
          { op: 'file', ...ds(cacheDir, { revision: 'main', filename: 'README.md' }) },
          { op: 'tree', ...ds(cacheDir, { revision: commit }) },
          { op: 'snapshot', repo_id: 'org/enc', cache_dir: cacheDir, revision: modelCommit },
        ],
        { offline: true },
      );
      expect(r).toEqual([
        { ok: d.dir },
        { ok: d.dir },
        { ok: d.dir },
        { ok: join(d.dir, 'corpus', 'corpus.jsonl') },
        { ok: join(d.dir, 'README.md') },
        { ok: Object.keys(FILES).sort() },
        { ok: m.dir },
      ]);
      expect(readFileSync(join(d.dir, 'corpus', 'corpus.jsonl'), 'utf8')).toBe(BIG);
      // The lock files huggingface_hub would take, one per blob we fetched.
      expect(readdirSync(join(cacheDir, '.locks', 'datasets--org--set')).sort()).toHaveLength(3);
    });

    it('(1) a partial download of ours is partial to huggingface_hub too (trees lists the commit)', async () => {
      const cacheDir = tmpDir('hub-ours-');
      await downloadDataset('org/set', commit, { endpoint: hub.url, cacheDir, include: ['queries/*'] });
      const [all, allLocal, some] = await py(
        [
          { op: 'snapshot', ...ds(cacheDir, { revision: commit }) },
          { op: 'snapshot', ...ds(cacheDir, { revision: commit, local_files_only: true }) },
          { op: 'snapshot', ...ds(cacheDir, { revision: commit, allow_patterns: ['queries/*'] }) },
        ],
        { offline: true },
      );
      // From the listing it knows the other two files and tries to fetch them (offline: refused) ...
      expect(all).toMatchObject({ error: 'LocalEntryNotFoundError' });
      // ... or, with local files only, says the snapshot is incomplete.
      expect(allLocal).toMatchObject({ error: 'IncompleteSnapshotError' });
      expect((allLocal as { message: string }).message).toContain('2 file(s) are missing');
      expect(some).toEqual({ ok: join(cacheDir, 'datasets--org--set', 'snapshots', commit) });
    });

    it('(2) we read offline what huggingface_hub downloaded from the same server', async () => {
      const cacheDir = tmpDir('hub-py-');
      const r = await py(
        [
          { op: 'snapshot', ...ds(cacheDir, { revision: 'main' }) },
          { op: 'file', ...ds(cacheDir, { revision: 'main', filename: 'no-such-file.txt' }) },
          { op: 'snapshot', repo_id: 'org/enc', cache_dir: cacheDir, revision: 'main' },
        ],
        { offline: false, endpoint: hub.url },
      );
      const snap = join(cacheDir, 'datasets--org--set', 'snapshots', commit);
      expect(r[0]).toEqual({ ok: snap });
      expect(r[1]).toMatchObject({ error: 'RemoteEntryNotFoundError' });
      expect(r[2]).toEqual({ ok: join(cacheDir, 'models--org--enc', 'snapshots', modelCommit) });
      // What it asked the server: revision, tree, then HEAD + GET per file.
      expect(hub.requests).toContain('/api/datasets/org/set/revision/main');
      expect(hub.requests).toContain(`/api/datasets/org/set/tree/${commit}`);
      expect(hub.requests).toContain(`/datasets/org/set/resolve/${commit}/corpus/corpus.jsonl`);
      expect(existsSync(join(cacheDir, 'datasets--org--set', 'trees', `${commit}.json`))).toBe(true);
      expect(existsSync(join(cacheDir, 'datasets--org--set', '.no_exist', commit, 'no-such-file.txt'))).toBe(
        true,
      );

      const seen = hub.requests.length;
      for (const revision of ['main', commit]) {
        const got = await downloadDataset('org/set', revision, { cacheDir, offline: true });
        expect(got.commit).toBe(commit);
        expect(got.files.map((f) => f.slice(snap.length + 1))).toEqual(Object.keys(FILES).sort());
        expect(readFileSync(join(snap, 'corpus', 'corpus.jsonl'), 'utf8')).toBe(BIG);
      }
      const model = await downloadModel('org/enc', 'main', { cacheDir, offline: true });
      expect(model.files).toHaveLength(2);
      // The absence huggingface_hub recorded is reported as such, not as "not cached".
      await expect(
        downloadDataset('org/set', 'main', { cacheDir, offline: true, include: ['no-such-file.txt'] }),
      ).rejects.toThrow(/no-such-file\.txt: not in the repo at that commit, as recorded under \.no_exist/);
      expect(hub.requests.length).toBe(seen);
    });

    it('(2) a cache holding only hf_hub_download files (no trees listing) reads from its snapshot links', async () => {
      const cacheDir = tmpDir('hub-py-');
      const r = await py(
        [
          { op: 'file', ...ds(cacheDir, { revision: 'main', filename: 'corpus/corpus.jsonl' }) },
          { op: 'file', ...ds(cacheDir, { revision: 'main', filename: 'README.md' }) },
        ],
        { offline: false, endpoint: hub.url },
      );
      expect(r.every((x) => 'ok' in x)).toBe(true);
      const repoFolder = join(cacheDir, 'datasets--org--set');
      expect(existsSync(join(repoFolder, 'trees'))).toBe(false);
      const files = await listFiles('org/set', commit, { cacheDir, offline: true });
      expect(files.map((f) => [f.path, f.hash.algorithm])).toEqual([
        ['README.md', 'git-sha1'],
        ['corpus/corpus.jsonl', 'sha256'],
      ]);
      const got = await downloadDataset('org/set', 'main', {
        cacheDir,
        offline: true,
        include: ['corpus/*'],
      });
      expect(readFileSync(got.files[0]!, 'utf8')).toBe(BIG);
      await expect(
        downloadDataset('org/set', 'main', { cacheDir, offline: true, include: ['queries/*'] }),
      ).rejects.toThrow(/no files match queries\/\* among the 2 files present under snapshots\//);
      // A derived list is never written back as the commit's listing.
      expect(existsSync(join(repoFolder, 'trees'))).toBe(false);
    });

    it('(3) an older cache of ours (.dv/{commit}.files.json) reads offline and is then readable by huggingface_hub', async () => {
      const cacheDir = tmpDir('hub-old-');
      const d = await downloadDataset('org/set', commit, { endpoint: hub.url, cacheDir });
      const repoFolder = join(cacheDir, 'datasets--org--set');
      const files = await listFiles('org/set', commit, { cacheDir, offline: true });
      rmSync(join(repoFolder, 'trees'), { recursive: true });
      await writeJsonAtomic(join(repoFolder, '.dv', `${commit}.files.json`), files);
      const [before] = await py([{ op: 'snapshot', ...ds(cacheDir, { revision: commit }) }], {
        offline: true,
      });
      expect(before).toMatchObject({ error: expect.stringMatching(/Offline|LocalEntryNotFound/) });
      const again = await downloadDataset('org/set', commit, { cacheDir, offline: true });
      expect(again.files).toEqual(d.files);
      const [after] = await py([{ op: 'snapshot', ...ds(cacheDir, { revision: commit }) }], {
        offline: true,
      });
      expect(after).toEqual({ ok: d.dir });
    });
  },
);
