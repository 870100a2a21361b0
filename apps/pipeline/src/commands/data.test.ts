import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startLoopbackHubServer } from '@dv/data/testing';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const appDir = join(here, '..', '..');
const run = promisify(execFile);

/** Runs the real CLI in a child process, as `pnpm dv` does. */
async function dv(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--conditions=@dv/source', '--import', 'tsx', join(here, '..', 'cli.ts'), ...args],
      { cwd: appDir, env: { ...process.env, npm_lifecycle_event: '', DV_PROGRESS: 'silent', ...env } },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const tiny = ['--test-lemmas', '20', '--dev-lemmas', '5', '--train-lemmas', '20', '--general-examples', '10'];

/** The topics on which the word-matching rule is neutral, from `dv data stats` text. */
const neutralTopicsOf = (out: string) =>
  Number(/neutral on (\d+) of \d+ topics/.exec(out)?.[1] ?? Number.NaN);

describe('dv data build-mini', () => {
  it('builds the mini world, prints where it went and a summary; a rerun is a cache hit', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'dv-data-cli-')), 'world');
    const r = await dv(['data', 'build-mini', '--out', out, '--seed', '3', ...tiny]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Mini world written to ${out}`);
    expect(r.stdout).toContain(join(out, 'benchmark/followir'));
    expect(r.stdout).toMatch(/lemmas train 20 \/ dev 5 \/ test 20 \(in two splits: 0\)/);
    for (const f of [
      'corpus.jsonl',
      'seeds.train.jsonl',
      'benchmark/followir/top_ranked.jsonl',
      'stats.md',
    ]) {
      expect(existsSync(join(out, f)), f).toBe(true);
    }
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(manifest.kind).toBe('mini-world');
    expect(manifest.seeds).toEqual([3]);
    const again = await dv(['data', 'build-mini', '--out', out, '--seed', '3', ...tiny]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('already built');
  }, 180_000);

  it('bad usage exits 2 with the reason', async () => {
    const noOut = await dv(['data', 'build-mini']);
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toContain('--out is required');
    const badSeed = await dv(['data', 'build-mini', '--out', '/tmp/x', '--seed', 'abc']);
    expect(badSeed.code).toBe(2);
    expect(badSeed.stderr).toContain('--seed must be a non-negative integer');
  });

  it('a WordNet folder without its files is a data error naming the file (exit 1)', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'dv-wn-empty-'));
    const r = await dv(['data', 'build-mini', '--out', join(empty, 'out'), '--wordnet-dir', empty, ...tiny]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(join(empty, 'data.noun'));
  });
});

describe('dv data stats', () => {
  // A medium world (same builder as the default one; sizes only change how many lemmas are
  // drawn). The default build's figures are in packages/data/README.md, printed by this command.
  const medium = [
    '--test-lemmas',
    '500',
    '--dev-lemmas',
    '100',
    '--train-lemmas',
    '1000',
    '--general-examples',
    '50',
    '--infosearch-topics',
    '50',
  ];
  it('prints the quality figures, meets every issue-11 target, and the build manifest records them', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'dv-data-stats-')), 'world');
    const b = await dv(['data', 'build-mini', '--out', out, ...medium]);
    expect(b.code, b.stderr).toBe(0);
    const r = await dv(['data', 'stats', out, '--check']);
    expect(r.stderr).toBe('');
    for (const line of r.stdout.split('\n').filter((l) => /^(ok {2}|FAIL) /.test(l)))
      expect(line).toMatch(/^ok /);
    expect(r.code).toBe(0);
    expect(r.stdout.match(/^ok /gm)?.length).toBe(16);
    expect(r.stdout).toMatch(/FollowIR-form \(held-out wording\): \d+ topics/);
    expect(r.stdout).toMatch(/FollowIR-form \(seen wording\): \d+ topics/);
    const pMrr = Number(/BM25: p-MRR (-?[\d.]+)/.exec(r.stdout)![1]);
    // the word-matching baseline is reported with its band (issue 26)
    expect(r.stdout).toMatch(
      /word-matching rule .*: p-MRR -?[\d.]+ \([+-][\d.]+ over BM25; (within|outside) the 5-point band/,
    );
    expect(neutralTopicsOf(r.stdout)).toBeGreaterThan(0);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    const f = manifest.config.figures;
    expect(f.bm25.followir.pMrr).toBe(pMrr);
    expect(f.followir.vacuousOgShare).toBe(0);
    expect(f.reverser.leversAtLeast5pct).toBeGreaterThanOrEqual(5);
  }, 240_000);

  it('without DIR is a usage error; a folder that is not a world is a data error', async () => {
    expect((await dv(['data', 'stats'])).code).toBe(2);
    const r = await dv(['data', 'stats', mkdtempSync(join(tmpdir(), 'dv-not-world-'))]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('splits.json');
  });
});

describe('dv data fetch', () => {
  it('an unpinned registry entry without --revision is a data error (exit 1) that says so', async () => {
    const r = await dv(['data', 'fetch', 'promptriever', '--cache', mkdtempSync(join(tmpdir(), 'dv-hub-'))]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('has no pinned revision');
  });

  it('an unknown name is a usage error (exit 2)', async () => {
    const r = await dv(['data', 'fetch', 'nope']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown dataset 'nope'");
  });

  it('offline with an empty cache names what is missing (exit 1), without network', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'dv-hub-'));
    const r = await dv(['data', 'fetch', 'followir-core17', '--offline', '--cache', cache]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/offline: jhu-clsp\/core17-instructions@e39ff896\w+ is not in the cache/);
  });

  it("writes huggingface_hub's cache layout (trees/ listing, refs, .locks/) and reads it back offline", async () => {
    const hub = await startLoopbackHubServer({
      repos: [
        {
          type: 'dataset',
          repo: 'org/set',
          files: { 'README.md': '# set\n', 'data/a.jsonl': 'x'.repeat(2000) },
        },
      ],
    });
    try {
      const cache = mkdtempSync(join(tmpdir(), 'dv-hub-'));
      const commit = hub.commits.get('dataset/org/set')!;
      const online = await dv(
        ['data', 'fetch', '--repo', 'org/set', '--revision', 'main', '--cache', cache],
        {
          HF_ENDPOINT: hub.url,
        },
      );
      expect(online.stderr).not.toMatch(/error/i);
      expect(online.code).toBe(0);
      const folder = join(cache, 'datasets--org--set');
      expect(readFileSync(join(folder, 'refs', 'main'), 'utf8')).toBe(commit);
      expect(JSON.parse(readFileSync(join(folder, 'trees', `${commit}.json`), 'utf8')).format_version).toBe(
        1,
      );
      expect(existsSync(join(cache, '.locks', 'datasets--org--set'))).toBe(true);
      const seen = hub.requests.length;
      const offline = await dv([
        'data',
        'fetch',
        '--repo',
        'org/set',
        '--revision',
        'main',
        '--offline',
        '--cache',
        cache,
      ]);
      expect(offline.code).toBe(0);
      expect(offline.stdout).toContain(`org/set@${commit}: 2 files in ${join(folder, 'snapshots', commit)}`);
      expect(hub.requests.length).toBe(seen);
    } finally {
      await hub.close();
    }
  });

  it('--json prints the download as one object; the per-file progress stays on stderr', async () => {
    const hub = await startLoopbackHubServer({
      repos: [{ type: 'dataset', repo: 'dv-test/tiny', files: { 'a.jsonl': '{"x":1}\n', 'sub/b.txt': 'b' } }],
    });
    try {
      const commit = hub.commits.get('dataset/dv-test/tiny')!;
      const cache = mkdtempSync(join(tmpdir(), 'dv-hub-'));
      const r = await dv(
        ['data', 'fetch', '--repo', 'dv-test/tiny', '--revision', commit, '--cache', cache, '--json'],
        { HF_ENDPOINT: hub.url },
      );
      expect(r.code, r.stderr).toBe(0);
      const j = JSON.parse(r.stdout);
      expect(j).toMatchObject({ repo: 'dv-test/tiny', revision: commit, commit });
      // the local paths of the files, in the snapshot folder
      expect(j.files.map((f: string) => relative(j.dir, f)).sort()).toEqual(['a.jsonl', 'sub/b.txt']);
      expect(readFileSync(join(j.dir, 'a.jsonl'), 'utf8')).toBe('{"x":1}\n');
      expect(r.stderr).toContain('a.jsonl');
    } finally {
      await hub.close();
    }
  });
});

describe('dv data check', () => {
  const jsonl = (rows: unknown[]) => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;
  function followir(qrelDoc: string): string {
    const dir = mkdtempSync(join(tmpdir(), 'dv-check-'));
    mkdirSync(join(dir, 'qrels_og'));
    mkdirSync(join(dir, 'qrels_changed'));
    writeFileSync(join(dir, 'corpus.jsonl'), jsonl([{ _id: 'd1', title: '', text: 'a' }]));
    writeFileSync(
      join(dir, 'queries.jsonl'),
      jsonl([{ _id: 'q1', text: 'q', instruction_og: 'x', instruction_changed: 'y' }]),
    );
    writeFileSync(
      join(dir, 'qrels_og/test.jsonl'),
      jsonl([{ 'query-id': 'q1', 'corpus-id': qrelDoc, score: 1 }]),
    );
    writeFileSync(
      join(dir, 'qrels_changed/test.jsonl'),
      jsonl([{ 'query-id': 'q1', 'corpus-id': 'd1', score: 0 }]),
    );
    writeFileSync(join(dir, 'top_ranked.jsonl'), jsonl([{ qid: 'q1', pid: 'd1' }]));
    return dir;
  }

  it('reports a valid FollowIR v1 folder', async () => {
    const r = await dv(['data', 'check', '--layout', 'followir-v1', followir('d1')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/1 documents, 1 queries; og 1 qrels, changed 1 qrels; candidates for 1 queries/);
  });

  it('a qrel naming an unknown document: file:line and exit 1', async () => {
    const dir = followir('d9');
    const r = await dv(['data', 'check', '--layout', 'followir-v1', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${join(dir, 'qrels_og/test.jsonl')}:1: qrel names unknown document "d9"`);
  });

  it('a missing file: named, exit 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dv-check-'));
    const r = await dv(['data', 'check', '--layout', 'beir', dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('missing corpus');
  });
});
