import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const run = promisify(execFile);

async function dv(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--conditions=@dv/source', '--import', 'tsx', join(here, '..', 'cli.ts'), ...args],
      { cwd: join(here, '..', '..'), env: { ...process.env, npm_lifecycle_event: '' } },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('dv train', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dv-train-cli-'));
  const corpus = join(dir, 'glosses.txt');
  const senses = [
    'freshwater fish',
    'lowest adult male singing voice',
    'guitar with four strings',
    'deep sound',
  ];
  writeFileSync(
    corpus,
    Array.from({ length: 200 }, (_, i) => `bass: ${senses[i % 4]} number ${i % 17}`).join('\n'),
  );

  it('vocab then init write a loadable mini backbone; run is not built (exit 3)', async () => {
    const v = await dv(['train', 'vocab', '--out', join(dir, 'tok'), '--vocab-size', '120', corpus]);
    expect(v.stderr + v.stdout).not.toContain('error');
    expect(v.code).toBe(0);
    const pieces = Number(/wrote .*tokenizer\.json: (\d+) pieces learned from 200 texts/.exec(v.stdout)?.[1]);
    expect(pieces).toBeGreaterThan(40);
    expect(pieces).toBeLessThanOrEqual(120);
    const tokenizer = JSON.parse(readFileSync(join(dir, 'tok', 'tokenizer.json'), 'utf8'));
    expect(tokenizer.model.type).toBe('WordPiece');
    expect(Object.keys(tokenizer.model.vocab)).toHaveLength(pieces);

    const out = join(dir, 'mini-gte');
    const i = await dv([
      'train',
      'init',
      '--backbone',
      'mini-gte',
      '--tokenizer',
      join(dir, 'tok', 'tokenizer.json'),
      '--out',
      out,
      '--layers',
      '3',
    ]);
    expect(i.code, i.stderr).toBe(0);
    expect(i.stdout).toMatch(
      new RegExp(
        `wrote .*mini-gte: mini-gte, 3 layers, hidden 128, vocabulary ${pieces}, [\\d.]+M parameters`,
      ),
    );
    for (const f of ['config.json', 'model.safetensors', 'tokenizer.json', 'trainer_state.json'])
      expect(existsSync(join(out, f)), f).toBe(true);
    const config = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8'));
    expect(config).toMatchObject({
      model_type: 'new',
      vocab_size: pieces,
      num_hidden_layers: 3,
      pad_token_id: 0,
    });

    const again = await dv([
      'train',
      'init',
      '--backbone',
      'mini-gte',
      '--tokenizer',
      join(dir, 'tok', 'tokenizer.json'),
      '--out',
      out,
    ]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('exists and is not empty');

    const r = await dv(['train', 'run']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('not built yet');
  }, 120_000);

  it('usage errors exit 2 with the option named', async () => {
    const a = await dv([
      'train',
      'init',
      '--backbone',
      'mini-xl',
      '--tokenizer',
      corpus,
      '--out',
      join(dir, 'x'),
    ]);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain("unknown backbone 'mini-xl'");
    const b = await dv(['train', 'vocab', '--out', join(dir, 'y'), '--vocab-size', 'many', corpus]);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('--vocab-size must be a positive integer');
  });
});
