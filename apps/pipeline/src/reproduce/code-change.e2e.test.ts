/**
 * End to end (issue 25): stage keys hold the code that made a result. In a scratch copy of this
 * checkout (hard links, so it costs seconds; every edit below replaces a file, never writes
 * through a link), `dv reproduce --quick` runs once; then
 * - a code line in `packages/train/src/loop/` changes: `--explain` calls every train stage stale
 *   ("code of @dv/train changed") and the rerun retrains exactly those (world, synthesis, mixes
 *   and the MLM backbone, whose code refs leave the fine-tuning loop out, stay cached), then
 *   what depends on their outputs;
 * - a comment in @dv/eval changes: only the evaluation stages and the report rerun (the digest
 *   is over bytes, so a comment counts as a change: a conservative rule, docs/architecture.md).
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../..');
const scratch = mkdtempSync(join(tmpdir(), 'dv-code-change-'));
const copy = join(scratch, 'repo');
const runDir = join(scratch, 'run');
const TRAIN_FILE = 'packages/train/src/loop/train-retriever.ts';
const EVAL_FILE = 'packages/eval/src/index.ts';

/** A hard-linked copy of the checkout (no .git, no run folders); symlinks stay as they are (relative). */
function linkCopy(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from)) {
    if (['.git', 'runs', '.reports', '.turbo'].includes(entry)) continue;
    const src = join(from, entry);
    const st = lstatSync(src);
    const dst = join(to, entry);
    if (st.isSymbolicLink() || !st.isDirectory())
      cpSync(src, dst, { verbatimSymlinks: true, preserveTimestamps: true });
    else {
      // `cp -al`: directories recreated, files hard-linked, symlinks copied verbatim
      const r = spawnSync('cp', ['-al', src, dst], { stdio: 'inherit' });
      if (r.status !== 0) throw new Error(`cp -al ${src} ${dst} failed (${r.status})`);
    }
  }
}

/** Replaces a file in the copy with new content (a new inode: the original is untouched). */
function editInCopy(rel: string, edit: (text: string) => string): void {
  const p = join(copy, rel);
  const text = readFileSync(p, 'utf8');
  const next = edit(text);
  if (next === text) throw new Error(`edit of ${rel} changed nothing`);
  unlinkSync(p);
  writeFileSync(p, next);
}

function dv(...args: string[]): Promise<{ code: number | null; log: string; stdout: string }> {
  const child = spawn(
    process.execPath,
    ['--conditions=@dv/source', '--import', 'tsx', join(copy, 'apps/pipeline/src/cli.ts'), ...args],
    { cwd: copy, env: { ...process.env, DV_PROGRESS: 'lines' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  let stdout = '';
  child.stdout.on('data', (d) => {
    log += String(d);
    stdout += String(d);
  });
  child.stderr.on('data', (d) => {
    log += String(d);
  });
  return new Promise((ok) => child.on('exit', (code) => ok({ code, log, stdout })));
}

/** Stage id -> status of the last invocation (run.json). */
function statuses(): Record<string, string> {
  const run = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8')) as {
    stages: { id: string; status: string }[];
  };
  return Object.fromEntries(run.stages.map((s) => [s.id, s.status]));
}

/** The explain table's rows: stage id -> [status, action, why]. */
function explainRows(stdout: string): Record<string, string[]> {
  const rows: Record<string, string[]> = {};
  for (const line of stdout.split('\n')) {
    const m =
      /^(\S+)\s{2,}(up to date|stale|missing|pending)\s{2,}(keep|run if inputs change|run|resume)\s*(.*)$/.exec(
        line,
      );
    if (m) rows[m[1]!] = [m[2]!, m[3]!, m[4]!];
  }
  return rows;
}

const TRAIN = ['ins-orig', 'ins-dv', 'all-orig', 'all-dv'].map((m) => `train/mini-bert/${m}/seed-13`);
const UPSTREAM = ['world', 'synth', 'mixes', 'pretrain/mini-bert/seed-13'];

beforeAll(() => {
  linkCopy(repoRoot, copy);
});
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

describe('stage keys follow the code (scratch copy of the checkout)', () => {
  it('first run: every stage runs', async () => {
    const r = await dv('reproduce', '--quick', '--out', runDir);
    expect(r.code, r.log).toBe(0);
    expect(Object.values(statuses()).every((s) => s === 'ran')).toBe(true);
    const again = await dv('reproduce', '--explain', '--quick', '--out', runDir);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/\d+ kept, 0 to run, 0 to resume/);
  }, 900_000);

  it('a code line in packages/train/src/loop retrains every train stage; world, synthesis, mixes and MLM stay cached', async () => {
    const original = readFileSync(join(repoRoot, TRAIN_FILE), 'utf8');
    editInCopy(TRAIN_FILE, (t) =>
      t.replace('const started = performance.now();', 'const started = performance.now() + 0;'),
    );
    expect(readFileSync(join(repoRoot, TRAIN_FILE), 'utf8')).toBe(original); // the checkout is untouched

    const explained = explainRows((await dv('reproduce', '--explain', '--quick', '--out', runDir)).stdout);
    for (const id of UPSTREAM) expect(explained[id], id).toEqual(['up to date', 'keep', '']);
    for (const id of TRAIN)
      expect(explained[id], id).toEqual(['stale', 'run', 'code of @dv/train changed (in @dv/train)']);
    expect(explained['eval/bm25']).toEqual(['up to date', 'keep', '']);
    expect(explained['eval/mini-bert/ins-dv/seed-13']![1]).toBe('run if inputs change');

    const digestOf = (id: string) =>
      JSON.parse(readFileSync(join(runDir, 'stages', id, 'stage.json'), 'utf8')).config
        .outputDigest as string;
    const before = Object.fromEntries(TRAIN.map((id) => [id, digestOf(id)]));
    const r = await dv('reproduce', '--quick', '--out', runDir);
    expect(r.code, r.log).toBe(0);
    const s = statuses();
    for (const id of UPSTREAM) expect(s[id], id).toBe('cached');
    for (const id of TRAIN) expect(s[id], id).toBe('ran');
    expect(s['eval/bm25']).toBe('cached');
    expect(s['eval/mini-bert/untrained/seed-13']).toBe('cached');
    // dependants rerun exactly when the retrained model's outputs differ from the recorded ones
    const changed = TRAIN.filter((id) => digestOf(id) !== before[id]);
    for (const id of TRAIN)
      expect(s[id.replace(/^train\//, 'eval/')], id).toBe(changed.includes(id) ? 'ran' : 'cached');
    expect(s.report).toBe(changed.length > 0 ? 'ran' : 'cached');
    console.log(`retrained: ${changed.length} of ${TRAIN.length} train stages wrote other bytes`);
    const record = JSON.parse(readFileSync(join(runDir, 'stages', TRAIN[0]!, 'stage.json'), 'utf8')).config;
    expect(Object.keys(record.parts.code).sort()).toEqual(['@dv/pipeline:train-stage.ts', '@dv/train']);
  }, 900_000);

  it('a comment in @dv/eval reruns every evaluation stage and the report, nothing else', async () => {
    editInCopy(EVAL_FILE, (t) => `// a comment, nothing else\n${t}`);
    const r = await dv('reproduce', '--quick', '--out', runDir);
    expect(r.code, r.log).toBe(0);
    const s = statuses();
    const ran = Object.keys(s).filter((id) => s[id] === 'ran');
    expect(
      ran.every((id) => id.startsWith('eval/') || id === 'report'),
      ran.join(', '),
    ).toBe(true);
    expect(ran.filter((id) => id.startsWith('eval/'))).toEqual(
      Object.keys(s).filter((id) => id.startsWith('eval/')),
    );
    for (const id of [...UPSTREAM, ...TRAIN]) expect(s[id], id).toBe('cached');
    const results = JSON.parse(readFileSync(join(runDir, 'stages', 'report', 'results.json'), 'utf8'));
    const evalStage = results.stages.find((x: { id: string }) => x.id === 'eval/bm25');
    expect(evalStage.code['@dv/eval']).toMatch(/^[0-9a-f]{64}$/);
    expect(existsSync(join(runDir, 'stages', 'report', 'report.md'))).toBe(true);
  }, 900_000);
});
