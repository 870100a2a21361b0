import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const appDir = join(here, '..');
const run = promisify(execFile);

// The built `dv` bin (scripts/build-bin.mjs: esbuild bundle of the sources, third-party packages
// external) must behave as the sources do under tsx: same output, same exit codes.
describe('built dv bin', () => {
  it('builds, and answers like the sources for --help, eval trec and a usage error', async () => {
    const out = mkdtempSync(join(tmpdir(), 'dv-bin-'));
    const built = await run(process.execPath, [join(appDir, 'scripts', 'build-bin.mjs')], {
      env: { ...process.env, DV_BIN_OUTDIR: out },
    });
    expect(built.stdout).toMatch(/dv bin: built/);
    const qrels = join(out, 'qrels.txt');
    const runFile = join(out, 'run.txt');
    const corpus = join(out, 'corpus.jsonl');
    writeFileSync(corpus, '{"id":"d1","text":"a b"}\n');
    writeFileSync(qrels, 'q1 0 a 1\nq1 0 b 0\nq2 0 c 2\n');
    writeFileSync(runFile, 'q1 Q0 b 1 2.0 t\nq1 Q0 a 2 1.0 t\nq2 Q0 c 1 3.0 t\nq2 Q0 d 2 1.0 t\n');
    const both = async (args: string[]) => {
      const go = async (argv: string[]) => {
        try {
          const r = await run(process.execPath, argv, { env: { ...process.env, npm_lifecycle_event: '' } });
          return { code: 0, stdout: r.stdout, stderr: r.stderr };
        } catch (err) {
          const e = err as { code: number; stdout: string; stderr: string };
          return { code: e.code, stdout: e.stdout, stderr: e.stderr };
        }
      };
      const bin = await go([join(out, 'dv.js'), ...args]);
      const src = await go(['--conditions=@dv/source', '--import', 'tsx', join(here, 'cli.ts'), ...args]);
      return { bin, src };
    };
    // a model kind registered by the CLI itself (tfjs:DIR): the bundle must keep the registration
    const encodeTfjs = [
      'eval',
      'encode',
      '--model',
      `tfjs:${join(out, 'no-model')}`,
      '--corpus',
      corpus,
      '--out',
      join(out, 'enc'),
    ];
    for (const args of [
      ['--help'],
      ['eval', 'trec', '--qrels', qrels, '--run', runFile, '--measures', 'ndcg_cut.10,map,recip_rank'],
      ['eval', 'trec', '--no-such-option'],
      encodeTfjs,
    ]) {
      const { bin, src } = await both(args);
      expect(bin).toEqual(src);
    }
    const noModel = await both(encodeTfjs);
    expect(noModel.bin.stderr).toMatch(/model folder not found/);
    const { bin } = await both(['eval', 'trec', '--qrels', qrels, '--run', runFile, '--measures', 'map']);
    expect(bin.code).toBe(0);
    expect(bin.stdout).toMatch(/^map\s+all\s+0\.\d{4}/m);
  }, 60_000);
});
