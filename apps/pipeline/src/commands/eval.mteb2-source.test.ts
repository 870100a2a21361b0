// `dv eval run --source mteb2` (issue 22): FollowIR read from the copies mteb 2 evaluates
// (mteb/Core17InstructionRetrieval, mteb/News21InstructionRetrieval, jhu-clsp/robust04-instructions-mteb)
// at the revisions the registry pins, served by a loopback Hub; each result says what it read.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { HUB_DATASETS } from '@dv/data';
import { type LoopbackHubRepo, startLoopbackHubServer } from '@dv/data/testing';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));

async function dv(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--conditions=@dv/source', '--import', 'tsx', join(here, '..', 'cli.ts'), ...args],
      {
        cwd: join(here, '..', '..'),
        env: { ...process.env, npm_lifecycle_event: '', DV_PROGRESS: 'silent', ...env },
      },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const jsonl = (rows: object[]) => `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;

/**
 * One FollowIR task in the v2 layout: two topics, a candidate list each. `inQueries`: the
 * instructions in the queries' `instruction` column and the qrels in a `qrels` config, as in
 * mteb's copies; otherwise an `instruction` config and `default` qrels, as in jhu-clsp's -mteb repos.
 */
function followIrRepo(key: keyof typeof HUB_DATASETS, inQueries: boolean): LoopbackHubRepo {
  const entry = HUB_DATASETS[key];
  const docs = ['dam cost', 'dam ecology', 'river fish', 'bridge cost'].map((text, i) => ({
    _id: `d${i}`,
    title: '',
    text,
  }));
  const queries = ['1', '2'].flatMap((t) =>
    (['og', 'changed'] as const).map((m) => ({
      _id: `${t}-${m}`,
      text: t === '1' ? 'dam' : 'cost',
      instruction: m === 'og' ? 'cost or ecology' : 'cost only',
    })),
  );
  const qrels = [
    ['1-og', 'd0', 1],
    ['1-og', 'd1', 1],
    ['1-changed', 'd0', 1],
    ['1-changed', 'd1', 0],
    ['2-og', 'd0', 1],
    ['2-og', 'd3', 1],
    ['2-changed', 'd0', 1],
    ['2-changed', 'd3', 0],
  ].map(([q, d, score]) => ({ 'query-id': q, 'corpus-id': d, score }));
  const top = queries.map((q) => ({ 'query-id': q._id, 'corpus-ids': ['d0', 'd1', 'd2', 'd3'] }));
  return {
    type: 'dataset',
    repo: entry.repo,
    commit: entry.revision!,
    files: inQueries
      ? {
          'corpus.jsonl': jsonl(docs),
          'queries.jsonl': jsonl(queries),
          'qrels.jsonl': jsonl(qrels),
          'top_ranked.jsonl': jsonl(top),
        }
      : {
          'corpus.jsonl': jsonl(docs),
          'queries.jsonl': jsonl(queries.map(({ instruction: _i, ...q }) => q)),
          'instruction.jsonl': jsonl(queries.map((q) => ({ 'query-id': q._id, instruction: q.instruction }))),
          'default.jsonl': jsonl(qrels),
          'top_ranked.jsonl': jsonl(top),
        },
  };
}

describe('dv eval run --source mteb2', () => {
  it("reads mteb 2's FollowIR datasets at their pins and records the repo@commit in each result", async () => {
    const hub = await startLoopbackHubServer({
      repos: [
        followIrRepo('followir-core17-mteb2', true),
        followIrRepo('followir-news21-mteb2', true),
        followIrRepo('followir-robust04-mteb', false),
      ],
    });
    try {
      const dir = mkdtempSync(join(tmpdir(), 'dv-eval-mteb2-'));
      const env = { HF_ENDPOINT: hub.url, DV_HUB_CACHE: join(dir, 'hub'), HF_HUB_OFFLINE: '' };
      const out = join(dir, 'out');
      const args = ['eval', 'run', '--benchmark', 'followir', '--model', 'bm25', '--source', 'mteb2'];
      const r = await dv([...args, '--out', out, '--json'], env);
      expect(r.code, r.stderr).toBe(0);
      const want = {
        Core17InstructionRetrieval: `mteb/Core17InstructionRetrieval@${HUB_DATASETS['followir-core17-mteb2'].revision}`,
        News21InstructionRetrieval: `mteb/News21InstructionRetrieval@${HUB_DATASETS['followir-news21-mteb2'].revision}`,
        Robust04InstructionRetrieval: `jhu-clsp/robust04-instructions-mteb@${HUB_DATASETS['followir-robust04-mteb'].revision}`,
      };
      expect(JSON.parse(r.stdout).sources).toEqual(want);
      for (const [task, source] of Object.entries(want)) {
        const result = JSON.parse(readFileSync(join(out, `${task}.json`), 'utf8'));
        expect(result.datasetSource).toBe(source);
        expect(result.numQueries).toBe(2);
        // the mteb-layout file carries the commit that was read
        const mteb = JSON.parse(
          readFileSync(join(out, 'results', 'bm25', 'no_revision_available', `${task}.json`), 'utf8'),
        );
        expect(mteb.dataset_revision).toBe(source.split('@')[1]);
      }
      // the table names each source on stderr
      const t = await dv([...args, '--out', join(dir, 'out-table')], env);
      expect(t.code, t.stderr).toBe(0);
      expect(t.stderr).toContain(`Core17InstructionRetrieval: read from ${want.Core17InstructionRetrieval}`);
    } finally {
      await hub.close();
    }
  }, 120_000);

  it('a benchmark without an mteb2 copy, or --set with --source, is a usage error', async () => {
    const r = await dv(['eval', 'run', '--benchmark', 'infosearch', '--model', 'bm25', '--source', 'mteb2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('InfoSearch-Audience has no mteb2 copy of its data');
    const s = await dv([
      'eval',
      'run',
      '--benchmark',
      'mini',
      '--model',
      'bm25',
      '--set',
      'x.json',
      '--source',
      'mteb2',
    ]);
    expect(s.code).toBe(2);
    expect(s.stderr).toContain('--set files are read as they are');
    const bad = await dv(['eval', 'run', '--benchmark', 'followir', '--model', 'bm25', '--source', 'mteb3']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--source must be one of paper, mteb2');
  }, 60_000);
});
