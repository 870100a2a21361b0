// `dv train run` as the README shows it (issue 22): --backbone with its --corpus and a small
// --mlm-steps, and --json (one object on stdout; progress on stderr). In a fresh clone
// --backbone without --corpus failed with a message about runs/mini: now it names the flag.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { dv, toyTrainingFixture } from './test-utils/dv-process.js';

describe('dv train run --backbone --corpus --json', () => {
  it('pretrains the backbone on --corpus, trains, and prints one JSON object', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dv-train-json-'));
    const { mix, corpus } = await toyTrainingFixture(dir);
    const out = join(dir, 'run');
    const args = [
      'train',
      'run',
      '--mix',
      mix,
      '--backbone',
      'mini-bert',
      '--corpus',
      corpus,
      '--mlm-steps',
      '3',
      '--vocab-size',
      '150',
      '--layers',
      '1',
      '--hidden',
      '64',
      '--mlm-cache',
      join(dir, 'mlm'),
      '--steps',
      '3',
      '--batch',
      '4',
      '--out',
      out,
      '--json',
    ];
    const r = await dv(args);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({
      out,
      exportDir: join(out, 'export'),
      steps: 3,
      alreadyComplete: false,
      resumed: false,
      backbone: { name: 'mini-bert', cached: false, steps: 3 },
    });
    expect(j.finalLoss).toBeGreaterThan(0);
    expect(j.init).toBe(j.backbone.exportDir);
    expect(r.stderr).toContain('MLM backbone: pretrained');
    // the same command again: the MLM cache hit and the finished run, still one object
    const again = await dv(args);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ alreadyComplete: true, backbone: { cached: true } });
  }, 180_000);

  it('--backbone without --corpus and no mini world is a usage error naming --corpus', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dv-train-json-'));
    const r = await dv([
      'train',
      'run',
      '--mix',
      fileURLToPath(import.meta.url), // any file: the corpus is checked first
      '--backbone',
      'mini-bert',
      '--data-dir',
      join(dir, 'no-world'),
      '--out',
      join(dir, 'run'),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--backbone mini-bert pretrains on an MLM corpus: give --corpus FILE');
    expect(r.stderr).toContain("'dv data build-mini --out");
  }, 60_000);
});
