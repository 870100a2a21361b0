/**
 * One trainer per run folder (issue 25: two `dv train run --out D` both trained, 31 metrics
 * rows for 20 steps). Real processes: the first trains; the second, started while the first
 * holds D, exits 1 at once naming the first's PID; afterwards metrics.jsonl has exactly one row
 * per step and the lock is gone. (A lock left by kill -9 is stale and taken over: the resume
 * after kill -9 in train.test.ts runs through it; core's output-lock.test.ts tests the rule.)
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dv, metricsSteps, spawnDv, toyTrainingFixture, waitFor } from './test-utils/dv-process.js';

describe('dv train run holds its --out', () => {
  it('a second trainer on the same --out exits 1 at once naming the first; rows = steps', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dv-train-lock-'));
    const { mix, init } = await toyTrainingFixture(dir);
    writeFileSync(join(dir, 'cfg.json'), JSON.stringify({ logEverySteps: 1 }));
    const out = join(dir, 'run');
    const args = [
      'train',
      'run',
      '--mix',
      mix,
      '--init',
      init,
      '--out',
      out,
      '--steps',
      '200',
      '--batch',
      '8',
      '--checkpoint-every',
      '50',
      '--config',
      join(dir, 'cfg.json'),
    ];
    const first = spawnDv(args);
    const lockPath = join(out, '.dv-lock');
    // the first holds the folder once it starts training
    expect(await waitFor(() => metricsSteps(out).length >= 1, 120_000), first.output()).toBe(true);
    expect(existsSync(lockPath)).toBe(true);
    const held = JSON.parse(readFileSync(lockPath, 'utf8')) as { pid: number; parentPid?: number };
    const t0 = Date.now();
    const second = await dv(args);
    const seconds = (Date.now() - t0) / 1000;
    expect(second.code, `${second.stdout}\n${second.stderr}`).toBe(1);
    expect(second.stderr).toContain(`PID ${held.pid}`);
    // the PID the user started (the filtered child's parent, when there is one) is named too
    expect(second.stderr).toContain(String(first.child.pid));
    expect(second.stderr).toContain(out);
    expect(second.stderr).not.toMatch(/^\s+at /m);
    expect(second.stdout).not.toContain('trained');
    // "at once": no training happened (startup of a TF process is most of it)
    expect(seconds).toBeLessThan(60);
    expect((await first.exited).code, first.output()).toBe(0);
    const steps = metricsSteps(out).map((r) => r.step);
    expect(steps).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(existsSync(lockPath)).toBe(false);
  }, 300_000);
});
