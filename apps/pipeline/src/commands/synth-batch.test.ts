import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type LoopbackBatchServer, startLoopbackBatchServer } from '@dv/synth/testing';
import { afterEach, describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const cli = join(here, '..', 'cli.ts');
const exec = promisify(execFile);
const KEY = 'sk-batch-cli-TOPSECRET-998877665544';

async function dv(args: string[], key = KEY): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(
      process.execPath,
      ['--conditions=@dv/source', '--import', 'tsx', cli, ...args],
      {
        cwd: join(here, '..', '..'),
        env: { ...process.env, npm_lifecycle_event: '', OPENAI_API_KEY: key, DV_PROGRESS: 'silent' },
      },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const tmp = () => mkdtempSync(join(tmpdir(), 'dv-synth-batch-cli-'));

function writeSeeds(n: number): string {
  const lines = Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      id: `seed-${i}`,
      query: 'lighthouse',
      instruction: { text: 'I am interested in the coastal tower and its keeper.' },
      positives: [{ docid: `p${i}`, text: 'a coastal tower with a bright lamp tended by a keeper' }],
      instructionNegatives: [
        { docid: `n${i}`, text: `a porcelain figurine shaped like a lighthouse, collectible number ${i}` },
      ],
      hardNegatives: [{ docid: `h${i}`, text: 'a harbour crane lifting containers' }],
    }),
  );
  const path = join(tmp(), 'seeds.jsonl');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

describe('dv synth batch', () => {
  let server: LoopbackBatchServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const seeds = writeSeeds(7);
  const args = (out: string) => [
    'synth',
    'batch',
    '--seeds',
    seeds,
    '--out',
    out,
    '--base-url',
    server!.url,
    '--model',
    'loopback',
    '--max-requests-per-file',
    '3',
    '--poll-interval',
    '0.001',
  ];

  it('runs a job end to end; an expired batch exits 3 and the rerun completes it; the key stays out of the outputs', async () => {
    server = await startLoopbackBatchServer({ requireKey: KEY, expireBatches: 1, maxRequestsPerFile: 3 });
    const out = tmp();
    const first = await dv(args(out)); // part 0 (3 requests) expires with 2 answered
    expect(first.code, first.stderr).toBe(3);
    expect(first.stderr).toMatch(/batch round 1: 7 requests in 3 input file\(s\)/);
    expect(first.stdout).toMatch(/7 seeds, 6 recorded, 1 pending/);
    expect(first.stdout).toMatch(/part 0: expired/);
    const second = await dv(args(out));
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/batch round 2: 1 requests in 1 input file/);
    expect(second.stdout).toMatch(/7 seeds, 7 recorded, 0 pending/);
    const third = await dv(args(out));
    expect(third.code).toBe(0);
    expect(third.stdout).toMatch(/nothing to submit/);
    const text = readdirSync(out, { recursive: true })
      .map(String)
      .filter((f) => statSync(join(out, f)).isFile())
      .map((f) => readFileSync(join(out, f), 'utf8'))
      .join('\n');
    expect(text).not.toContain(KEY);
    expect(readFileSync(join(out, 'records.jsonl'), 'utf8').trim().split('\n')).toHaveLength(7);
  }, 90_000);

  it('a refused key is one line and exit 1; missing --base-url is a usage error', async () => {
    server = await startLoopbackBatchServer({ requireKey: KEY });
    const r = await dv(args(tmp()), 'sk-wrong');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/refused the key \(401\).*set \$OPENAI_API_KEY/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const u = await dv(['synth', 'batch', '--seeds', seeds, '--out', tmp(), '--model', 'm']);
    expect(u.code).toBe(2);
  }, 60_000);
});
