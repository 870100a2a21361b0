/** Regression tests for issue 12 item 5 (stale, mixed output folders) and the --out half of item 6. */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeManifest } from '../manifest.js';
import { tmpDir } from '../test-utils/tmp.js';
import { OutputDirError, prepareOutputDir, RUN_CLAIM_FILE } from './prepare-output-dir.js';

describe('prepareOutputDir', () => {
  it('the same run resumes; another run is refused without --force', async () => {
    const dir = join(tmpDir(), 'out');
    expect((await prepareOutputDir(dir, { kind: 'eval-run', identity: { model: 'a' } })).resumed).toBe(false);
    writeFileSync(join(dir, 'x.json'), '{}');
    expect((await prepareOutputDir(dir, { kind: 'eval-run', identity: { model: 'a' } })).resumed).toBe(true);
    await expect(prepareOutputDir(dir, { kind: 'eval-run', identity: { model: 'b' } })).rejects.toThrow(
      `${dir}: --out already holds the outputs of another eval-run run (other settings); choose another --out, or pass --force`,
    );
  });
  it('--force removes exactly what the previous manifest listed, and empty folders it leaves', async () => {
    const dir = join(tmpDir(), 'out');
    await prepareOutputDir(dir, { kind: 'synth-mix', identity: 1 });
    mkdirSync(join(dir, 'ins-dv'));
    writeFileSync(join(dir, 'ins-dv', 'train.jsonl'), 'x\n');
    writeFileSync(join(dir, 'mixes.json'), '{}');
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    await writeManifest(dir, {
      kind: 'synth-mix',
      config: {},
      outputs: [join(dir, 'ins-dv', 'train.jsonl'), join(dir, 'mixes.json')],
    });
    const r = await prepareOutputDir(dir, { kind: 'synth-mix', identity: 2, force: true });
    expect(r.removed.sort()).toEqual(['ins-dv/train.jsonl', 'manifest.json', 'mixes.json']);
    expect(readdirSync(dir).sort()).toEqual([RUN_CLAIM_FILE, 'notes.txt']);
  });
  it('a folder with files dv did not record is refused, naming some', async () => {
    const dir = tmpDir();
    writeFileSync(join(dir, 'thesis.tex'), '');
    await expect(prepareOutputDir(dir, { kind: 'eval-run', identity: 1 })).rejects.toThrow(
      /1 files dv did not record \(thesis\.tex\)/,
    );
  });
  it('--out that is a file, or under /proc or /sys, is a clear error (no hang, no stack)', async () => {
    const f = join(tmpDir(), 'file');
    writeFileSync(f, '');
    await expect(prepareOutputDir(f, { kind: 'k', identity: 1 })).rejects.toThrow(
      `${f}: --out is a file, not a folder`,
    );
    for (const p of ['/proc/x', '/sys/y/z'])
      await expect(prepareOutputDir(p, { kind: 'k', identity: 1 })).rejects.toThrow(OutputDirError);
    expect(existsSync('/proc/x')).toBe(false);
  });
});
