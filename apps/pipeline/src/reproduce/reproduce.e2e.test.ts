/**
 * End to end: `dv reproduce --quick` (the CLI entry `pnpm reproduce` runs) in a temp folder,
 * killed with a real SIGKILL in the middle of a stage, then rerun: the rerun must finish, must
 * not redo any stage that had finished (their stage.json files are byte-identical and the run
 * says "up to date"), must resume the interrupted stage from what it had on disk, and must
 * produce the report. The report's HTML is then opened in headless Chromium (skipped with a
 * message when no binary is installed; .ci/run installs one).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { dv } from '../commands/test-utils/dv-process.js';
import { checkPage, findChromium } from './internal/headless-chromium.js';
import { defaultJobs } from './jobs.js';
import { readStageRecord, stageDir } from './run-dag.js';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../..');
const cli = join(repoRoot, 'apps/pipeline/src/cli.ts');
const out = mkdtempSync(join(tmpdir(), 'dv-reproduce-e2e-'));
const HELD = 'eval/mini-bert/untrained/seed-13';
const children: ChildProcess[] = [];

function reproduce(env: Record<string, string> = {}) {
  const child = spawn(
    process.execPath,
    ['--conditions=@dv/source', '--import', 'tsx', cli, 'reproduce', '--quick', '--out', out],
    {
      cwd: repoRoot,
      env: { ...process.env, DV_PROGRESS: 'lines', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let log = '';
  child.stdout!.on('data', (d) => {
    log += String(d);
  });
  child.stderr!.on('data', (d) => {
    log += String(d);
  });
  const done = new Promise<number | null>((ok) =>
    child.on('exit', (code, signal) => ok(signal ? null : code)),
  );
  return { child, done, log: () => log };
}

async function waitFor(path: string, run: ReturnType<typeof reproduce>): Promise<void> {
  for (;;) {
    if (existsSync(path)) return;
    if (run.child.exitCode !== null)
      throw new Error(`reproduce exited early (${run.child.exitCode}):\n${run.log()}`);
    await new Promise((ok) => setTimeout(ok, 200));
  }
}

afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

describe('pnpm reproduce --quick', () => {
  let finishedBefore: Record<string, string> = {};

  it('killed with SIGKILL mid-stage, a rerun finishes without redoing finished stages', async () => {
    const first = reproduce({ DV_REPRODUCE_HOLD: HELD });
    const heldDir = stageDir(out, HELD);
    await waitFor(join(heldDir, '.held'), first);
    // mid-stage: the FollowIR part of this evaluation is on disk, the stage is not finished
    expect(existsSync(join(heldDir, 'followir', 'summary.json'))).toBe(true);
    expect(readStageRecord(heldDir)).toBeNull();
    first.child.kill('SIGKILL');
    expect(await first.done).toBeNull();

    const finished = [
      'world',
      'synth',
      'mixes',
      'pretrain/mini-bert/seed-13',
      'train/mini-bert/ins-dv/seed-13',
      'eval/bm25',
    ];
    finishedBefore = Object.fromEntries(
      finished.map((id) => [id, readFileSync(join(stageDir(out, id), 'stage.json'), 'utf8')]),
    );
    const partialMtime = statSync(join(heldDir, 'followir', 'summary.json')).mtimeMs;

    const second = reproduce();
    expect(await second.done).toBe(0);
    const log = second.log();
    for (const id of finished) {
      expect(readFileSync(join(stageDir(out, id), 'stage.json'), 'utf8')).toBe(finishedBefore[id]);
      expect(log).toMatch(new RegExp(`\\] ${id.replace(/[/.]/g, '\\$&')}: up to date`));
    }
    // the interrupted stage resumed: it kept its finished FollowIR part and completed the rest
    expect(log).toContain(`${HELD}: resuming`);
    expect(statSync(join(heldDir, 'followir', 'summary.json')).mtimeMs).toBe(partialMtime);
    expect(readStageRecord(heldDir)).not.toBeNull();
    // the default --jobs: stages ran side by side in worker processes, and said so
    const jobs = defaultJobs('mini');
    expect(JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')).jobs).toBe(jobs);
    if (jobs > 1) expect(log).toMatch(new RegExp(`stages ran \\(up to ${jobs} at once\\)`));
  }, 600_000);

  it('produced the report: Markdown, self-contained HTML, results.json tracing to result files', () => {
    const dir = stageDir(out, 'report');
    const md = readFileSync(join(dir, 'report.md'), 'utf8');
    expect(md).toMatch(/## Findings/);
    // one computed statement per finding; --quick has 1 seed, so none can be decided
    expect(md.match(/^- \*\*(REPRODUCED|NOT REPRODUCED|INCONCLUSIVE)\*\*/gm)).toHaveLength(6);
    expect(md).toContain('Ins-DV');
    expect(md).not.toContain('STAND-IN');
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html.match(/<svg/g)?.length).toBeGreaterThanOrEqual(3);
    expect(html).not.toMatch(/<(script|link|img)[^>]+(src|href)="https?:/);
    const results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8'));
    expect(results.findings).toHaveLength(6);
    for (const m of results.models) for (const s of m.sources) expect(existsSync(join(out, s)), s).toBe(true);
    expect(
      results.models.find((m: { id: string }) => m.id === 'mini-bert/ins-dv/seed-13').values[
        'mini-followir/p-MRR'
      ],
    ).toBeTypeOf('number');
  });

  it('dv verdicts reads the run back: the same run twice agrees with itself, finding by finding', async () => {
    const v = await dv(['verdicts', out, join(stageDir(out, 'report'), 'results.json'), '--json']);
    expect(v.code, v.stderr).toBe(0);
    const stdout = v.stdout;
    const results = JSON.parse(readFileSync(join(stageDir(out, 'report'), 'results.json'), 'utf8'));
    const across = JSON.parse(stdout).findings as {
      id: string;
      across: string;
      runs: string[];
      claims: { runs: { mean: number | null }[] }[];
    }[];
    expect(across.map((f) => f.id)).toEqual(results.findings.map((f: { id: string }) => f.id));
    for (const [i, f] of across.entries()) {
      expect(f.runs).toEqual([results.findings[i].verdict, results.findings[i].verdict]);
      expect(f.across).toBe(`${results.findings[i].verdict} in all`);
      // each claim's figure is the report's own mean difference over topics (x100), unscaled
      for (const [k, c] of f.claims.entries())
        expect(c.runs[0]!.mean).toBe(results.findings[i].claims[k].comparison?.perTopic.mean ?? null);
    }
  });

  const chromium = findChromium();
  it.skipIf(!chromium)(
    'the HTML report renders in headless Chromium without console errors or network',
    async () => {
      const page = await checkPage(join(stageDir(out, 'report'), 'report.html'));
      expect(page.errors).toEqual([]);
      expect(page.networkRequests).toEqual([]);
      expect(page.title).toMatch(/Reproduction report/);
      expect(page.screenshot.subarray(1, 4).toString()).toBe('PNG');
      writeFileSync(join(out, 'report-screenshot.png'), page.screenshot);
    },
    60_000,
  );
  it.skipIf(!chromium)(
    'the render check itself catches console errors, exceptions and network use',
    async () => {
      const bad = join(out, 'bad.html');
      writeFileSync(
        bad,
        '<title>b</title><script>console.error("boom"); missingFn();</script><img src="http://127.0.0.1:9/x.png">',
      );
      const page = await checkPage(bad);
      expect(page.errors.join('\n')).toMatch(/console\.error: boom[\s\S]*missingFn is not defined/);
      expect(page.networkRequests).toEqual(['http://127.0.0.1:9/x.png']);
    },
    60_000,
  );
  if (!chromium)
    console.warn(
      'skipping the Chromium render test: no chromium-headless-shell / chromium binary (set DV_CHROMIUM)',
    );
});
