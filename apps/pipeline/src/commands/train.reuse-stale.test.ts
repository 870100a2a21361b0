/**
 * `dv train run --reuse-stale` (issue 25): a run folder whose run.json records another code
 * digest of @dv/train is refused (exit 1) naming what changed and the flag; with the flag the
 * finished run is kept (exit 0) and manifest.json records `staleReuse`. The folder is made stale
 * by rewriting its recorded key parts (no source edited). In-process (`runCommand`): one
 * TensorFlow load for the whole file.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { type CacheKeyParts, keyOfParts } from '@dv/core';
import { tmpDir } from '@dv/core/test-utils';
import { describe, expect, it } from 'vitest';
import { runCommand } from '../cli-kit.js';
import { lazyRootCommand } from '../command-index.js';

async function dvIn(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = { stdout: '', stderr: '' };
  const sink = (k: 'stdout' | 'stderr') =>
    new Writable({
      write(chunk, _enc, done) {
        out[k] += String(chunk);
        done();
      },
    });
  const code = await runCommand(await lazyRootCommand(argv), argv, {
    stdout: sink('stdout'),
    stderr: sink('stderr'),
  });
  return { code, ...out };
}

function toyMix(path: string): string[] {
  const texts: string[] = [];
  const rows: string[] = [];
  for (let l = 0; l < 12; l++) {
    const doc = (k: string) => ({
      docid: `w${l}.${k}`,
      title: `w${l}`,
      text: `w${l}: a ${k} thing ${l % 5}`,
    });
    const base = { query: `w${l}`, pairId: `w${l}` };
    rows.push(
      JSON.stringify({
        id: `w${l}-o`,
        ...base,
        instruction: 'Only a.',
        positives: [doc('a')],
        negatives: [doc('b')],
        view: 'original',
      }),
      JSON.stringify({
        id: `w${l}-c`,
        ...base,
        instruction: 'Not a.',
        positives: [doc('b')],
        negatives: [doc('a')],
        view: 'complement',
        originalId: `w${l}-o`,
        synthesisKey: `k${l}`,
      }),
    );
    texts.push(doc('a').text, doc('b').text, 'Only a.', 'Not a.');
  }
  writeFileSync(path, `${rows.join('\n')}\n`);
  return texts;
}

describe('dv train run --reuse-stale', () => {
  it('a folder made by other trainer code: exit 1 naming it without the flag; exit 0 and recorded with it', async () => {
    const dir = tmpDir('dv-reuse-stale-');
    const mix = join(dir, 'mix.jsonl');
    writeFileSync(join(dir, 'texts.txt'), toyMix(mix).join('\n'));
    expect(
      (
        await dvIn([
          'train',
          'vocab',
          '--out',
          join(dir, 'tok'),
          '--vocab-size',
          '120',
          join(dir, 'texts.txt'),
        ])
      ).code,
    ).toBe(0);
    const init = join(dir, 'init');
    const i = await dvIn([
      'train',
      'init',
      '--backbone',
      'mini-bert',
      '--tokenizer',
      join(dir, 'tok', 'tokenizer.json'),
      '--out',
      init,
    ]);
    expect(i.code, i.stderr).toBe(0);
    const out = join(dir, 'run');
    const args = ['train', 'run', '--mix', mix, '--init', init, '--out', out, '--steps', '3', '--batch', '4'];
    const first = await dvIn(args);
    expect(first.code, first.stderr).toBe(0);
    expect((await dvIn(args)).stdout).toContain('is a finished run');

    // the folder as another version of @dv/train left it
    const runPath = join(out, 'run.json');
    const rec = JSON.parse(readFileSync(runPath, 'utf8')) as { digest: string; keyParts: CacheKeyParts };
    rec.keyParts.code = { '@dv/train': '0'.repeat(64) };
    rec.digest = keyOfParts(rec.keyParts);
    writeFileSync(runPath, JSON.stringify(rec));

    const refused = await dvIn(args);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(out);
    expect(refused.stderr).toMatch(/made by other trainer code \(code of @dv\/train changed\)/);
    expect(refused.stderr).toContain('--reuse-stale');
    expect(refused.stderr).not.toMatch(/^\s+at /m);

    const reused = await dvIn([...args, '--reuse-stale']);
    expect(reused.code, reused.stderr).toBe(0);
    expect(reused.stdout).toContain('is a finished run');
    expect(reused.stderr).toContain(
      'reused a run folder made by other trainer code (code of @dv/train changed)',
    );
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
    expect(manifest.config.staleReuse).toMatchObject({
      reusedStale: true,
      reasons: ['code of @dv/train changed'],
    });
    expect(JSON.parse(readFileSync(runPath, 'utf8')).staleReuse.previousKey).toBe(rec.digest);
  }, 60_000);
});
