import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type LoopbackChatServer, startLoopbackChatServer } from '@dv/synth/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '..', 'cli.ts');
const appDir = join(here, '..', '..');
const run = promisify(execFile);
const KEY = 'sk-cli-test-TOPSECRET-00112233445566';
const env = { ...process.env, npm_lifecycle_event: '', OPENAI_API_KEY: KEY, DV_PROGRESS: 'silent' };
const nodeArgs = ['--conditions=@dv/source', '--import', 'tsx', cli];

async function dv(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...nodeArgs, ...args], { cwd: appDir, env });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const tmp = () => mkdtempSync(join(tmpdir(), 'dv-synth-cli-'));

/** n seeds; with metadata on even ids (WordNet-like), plain text on odd ones (MS MARCO-like). */
function writeSeeds(n: number, dir = tmp()): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const meta = i % 2 === 0;
    lines.push(
      JSON.stringify({
        id: `seed-${String(i).padStart(4, '0')}`,
        query: 'lighthouse',
        instruction: { text: 'I am interested in the coastal tower and its keeper.' },
        positives: [
          {
            docid: `p${i}`,
            text: 'a coastal tower with a bright lamp tended by a keeper',
            ...(meta ? { metadata: { category: 'noun.artifact', hypernyms: ['tower', 'structure'] } } : {}),
          },
        ],
        instructionNegatives: [
          {
            docid: `n${i}`,
            text: `a porcelain figurine shaped like a lighthouse, collectible number ${i}`,
            ...(meta
              ? { metadata: { category: 'noun.artifact', hypernyms: ['figurine', 'decoration'] } }
              : {}),
          },
        ],
        hardNegatives: [{ docid: `h${i}`, text: 'a harbour crane lifting containers' }],
      }),
    );
  }
  const path = join(dir, 'seeds.jsonl');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

const jsonl = (p: string) =>
  readFileSync(p, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

function filesText(dir: string): string {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => statSync(join(dir, f)).isFile())
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('\n');
}

describe('dv synth', () => {
  let server: LoopbackChatServer;
  beforeAll(async () => {
    // echoes the key in prose to prove that nothing the server says can leak it into a file
    server = await startLoopbackChatServer({
      latencyMs: 40,
      respond: (m) => {
        const user = m.at(-1)!.content;
        if (user.includes('<judge_request>'))
          return '<judgement><verdict id="A">relevant</verdict></judgement>';
        return `key ${KEY} ok. <answer><new_instruction>Collectible porcelain figurines only.</new_instruction></answer>`;
      },
    });
  });
  afterAll(() => server.close());

  it('offline: runs, prints a summary with examples, and writes the outputs', async () => {
    const seeds = writeSeeds(6);
    const out = tmp();
    const r = await dv(['synth', '--seeds', seeds, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/synth: 6 seeds, 6 recorded, 0 pending/);
    expect(r.stdout).toMatch(/accepted \d+ \(\d+\.\d%\)/);
    expect(r.stdout).toContain('verification (lexical)');
    expect(r.stdout).toContain("I': ");
    for (const f of [
      'records.jsonl',
      'failures.jsonl',
      'original.jsonl',
      'complement.jsonl',
      'summary.json',
      'manifest.json',
    ])
      expect(existsSync(join(out, f)), f).toBe(true);
    // --json (issue 22): the same run's summary as one object (a rerun: every seed from the journal)
    const j = await dv(['synth', '--seeds', seeds, '--out', out, '--json']);
    expect(j.code, j.stderr).toBe(0);
    const summary = JSON.parse(j.stdout);
    const written = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'));
    expect(summary).toMatchObject({ kind: 'summary', seeds: 6, recorded: 6, pending: 0 });
    expect(summary.accepted).toBe(written.accepted);
    expect(summary.run.cachedThisRun).toBe(6);
    expect(j.stderr).toMatch(/^synth: backend offline/m);
  });

  it('survives kill -9 mid-run: the rerun completes with zero duplicates and zero losses', async () => {
    const n = 160;
    const seeds = writeSeeds(n);
    const out = tmp();
    const args = [
      'synth',
      '--backend',
      'openai',
      '--base-url',
      server.url,
      '--model',
      'loopback',
      '--concurrency',
      '4',
    ];
    const child = spawn(process.execPath, [...nodeArgs, ...args, '--seeds', seeds, '--out', out], {
      cwd: appDir,
      env,
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_code, signal) => resolve(signal)),
    );
    const log = join(out, 'log.jsonl');
    const lines = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0);
    while (lines() < 20) await new Promise((r) => setTimeout(r, 20));
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const before = lines();
    expect(before).toBeLessThan(n); // it really died mid-run
    const r = await dv([...args, '--seeds', seeds, '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`synth: ${n} seeds, ${n} recorded, 0 pending`);
    const logKeys = jsonl(log).map((x) => x.key);
    expect(new Set(logKeys).size).toBe(logKeys.length); // no seed was asked twice
    const records = jsonl(join(out, 'records.jsonl'));
    expect(records.map((x) => x.seedId).sort()).toEqual(
      Array.from({ length: n }, (_, i) => `seed-${String(i).padStart(4, '0')}`),
    );
    expect(
      JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')).run.cachedThisRun,
    ).toBeGreaterThanOrEqual(before - 1);
    expect(filesText(out)).not.toContain(KEY);
    expect(filesText(out)).toContain('[REDACTED]');
  }, 120_000);

  it('the cost cap stops cleanly with exit 3 (partial) and a rerun continues', async () => {
    const seeds = writeSeeds(10);
    const out = tmp();
    const args = [
      'synth',
      '--backend',
      'openai',
      '--base-url',
      server.url,
      '--model',
      'loopback',
      '--concurrency',
      '1',
    ];
    const price = ['--price-in', '1000', '--price-out', '1000', '--judge', 'none'];
    const r = await dv([...args, ...price, '--cost-cap', '0.001', '--seeds', seeds, '--out', out]);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/stopped: cost cap \$0\.001 reached; \d+ seeds pending/);
    const r2 = await dv([...args, ...price, '--cost-cap', '100', '--seeds', seeds, '--out', out]);
    expect(r2.code, r2.stderr).toBe(0);
    expect(r2.stdout).toContain('10 recorded, 0 pending');
  });

  it('shards, merge and mix', async () => {
    const seeds = writeSeeds(24);
    const a = tmp();
    const b = tmp();
    expect((await dv(['synth', '--seeds', seeds, '--out', a, '--shard', '0/2'])).code).toBe(0);
    expect((await dv(['synth', '--seeds', seeds, '--out', b, '--shard', '1/2'])).code).toBe(0);
    const merged = tmp();
    const m = await dv(['synth', 'merge', '--seeds', seeds, '--out', merged, a, b]);
    expect(m.code, m.stderr).toBe(0);
    expect(m.stdout).toContain('synth: 24 seeds, 24 recorded, 0 pending');
    const accepted = jsonl(join(merged, 'complement.jsonl')).length;
    const budget = 2 * Math.floor(Math.min(accepted, 12) / 2);
    const mixOut = tmp();
    const mix = await dv([
      'synth',
      'mix',
      '--from',
      merged,
      '--out',
      mixOut,
      '--budget',
      String(budget),
      '--mixes',
      'ins-orig,ins-dv',
      '--formats',
      'tevatron,flagembedding',
    ]);
    expect(mix.code, mix.stderr).toBe(0);
    expect(mix.stdout).toContain(
      `ins-dv   total ${budget}: original ${budget / 2}, complement ${budget / 2}`,
    );
    expect(jsonl(join(mixOut, 'ins-dv', 'tevatron.jsonl'))).toHaveLength(budget);
    // what the mix covers, printed and in mixes.json: both views of a pair share one query
    const dvRows = jsonl(join(mixOut, 'ins-dv', 'train.jsonl'));
    const dvQueries = new Set(dvRows.map((r) => r.query)).size;
    expect(dvQueries).toBeLessThanOrEqual(budget / 2);
    expect(mix.stdout).toContain(`covers ${dvQueries} queries`);
    const summary = JSON.parse(readFileSync(join(mixOut, 'mixes.json'), 'utf8'));
    expect(summary['ins-dv'].composition.queries).toBe(dvQueries);
    expect(summary['ins-dv'].composition.views).toBe(
      new Set(dvRows.map((r) => `${r.query}\u0000${r.instruction}`)).size,
    );
    const bad = await dv(['synth', 'mix', '--from', merged, '--out', tmp(), '--budget', '2000']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/the matched mixes need N\/2 = 1000 accepted pairs \(Ins-DV/);
    // without --budget, the preset's data slice sets it (mini: 8,000 examples per mix)
    const byPreset = await dv(['synth', 'mix', '--from', merged, '--out', tmp(), '--preset', 'mini']);
    expect(byPreset.code).toBe(1);
    expect(byPreset.stderr).toMatch(/the matched mixes need N\/2 = 4000 accepted pairs/);
    expect((await dv(['synth', '--seeds', seeds, '--out', a, '--shard', '2/2'])).code).toBe(2);
  }, 120_000);

  it('batch-export then batch-import, matched by custom_id', async () => {
    const seeds = writeSeeds(4);
    const out = tmp();
    const e = await dv([
      'synth',
      '--backend',
      'batch-export',
      '--model',
      'qwen',
      '--seeds',
      seeds,
      '--out',
      out,
    ]);
    expect(e.code, e.stderr).toBe(0);
    expect(e.stdout).toContain('batch-export: 4 requests');
    const reqs = jsonl(join(out, 'batch-input.jsonl'));
    const answer =
      '<answer><new_instruction>Collectible porcelain figurines only.</new_instruction></answer>';
    const output = reqs
      .slice(0, 3)
      .reverse()
      .map((q) =>
        JSON.stringify({
          id: 'b',
          custom_id: q.custom_id,
          response: { status_code: 200, body: { choices: [{ message: { content: answer } }] } },
          error: null,
        }),
      );
    writeFileSync(join(out, 'batch-output.jsonl'), `${output.join('\n')}\n`);
    const i = await dv([
      'synth',
      '--backend',
      'batch-import',
      '--model',
      'qwen',
      '--batch-output',
      join(out, 'batch-output.jsonl'),
      '--seeds',
      seeds,
      '--out',
      out,
    ]);
    expect(i.code, i.stderr).toBe(0);
    expect(i.stdout).toContain('synth: 4 seeds, 3 recorded, 1 pending');
    expect(i.stdout).toContain('batch-import: 3/3 output lines matched a seed');
  });

  it('bad usage is exit 2 with the option named', async () => {
    const r = await dv(['synth', '--seeds', 'x.jsonl', '--out', tmp(), '--backend', 'magic']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "--backend must be one of offline, openai, batch-export, batch-import, got 'magic'",
    );
    const r2 = await dv(['synth', '--seeds', 'x.jsonl', '--out', tmp(), '--backend', 'openai']);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain('--base-url is required');
  });
});
