/**
 * `dv train mlm` resumes after a crash (issue 25), with real processes: the worker that trains
 * (the TF-filtered child of `dv`) is killed with SIGKILL once a mid-run checkpoint exists; the
 * same command again says it resumed and writes the loss curve of an uninterrupted run (1e-4).
 * SIGINT to the parent PID checkpoints and exits 130.
 */
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { alive, dv, dvChildPids, metricsSteps, spawnDv, waitFor } from './test-utils/dv-process.js';

const dir = mkdtempSync(join(tmpdir(), 'dv-mlm-resume-'));
const corpus = join(dir, 'corpus.txt');
const words = ['red', 'green', 'blue', 'cat', 'dog', 'sea', 'sky', 'tree', 'rock', 'sun'];
writeFileSync(
  corpus,
  Array.from({ length: 200 }, (_, i) => `the ${words[i % 10]} near the ${words[(i * 3) % 10]} ${i % 7}`).join(
    '\n',
  ),
);
const args = (out: string) => [
  'train',
  'mlm',
  '--corpus',
  corpus,
  '--mlm-out',
  out,
  '--mlm-steps',
  '60',
  '--layers',
  '1',
  '--hidden',
  '64',
  '--vocab-size',
  '80',
  '--mlm-checkpoint-every',
  '5',
];
const steps = (out: string) => {
  const root = join(out, 'checkpoints');
  return existsSync(root) ? readdirSync(root).filter((n) => /^step-\d+$/.test(n)) : [];
};

describe('dv train mlm resume', () => {
  it('kill -9 of the training process mid-run, rerun: says resumed, same loss curve (1e-4)', async () => {
    const full = await dv(args(join(dir, 'full')));
    expect(full.code, full.stderr).toBe(0);
    expect(full.stdout).toContain('pretrained:');
    const curve = metricsSteps(join(dir, 'full'));
    expect(curve.map((r) => r.step)).toEqual([20, 40, 60]);

    const out = join(dir, 'killed');
    const run = spawnDv(args(out), 'ignore');
    expect(await waitFor(() => steps(out).length > 0, 90_000), 'a checkpoint appears').toBe(true);
    const [worker] = dvChildPids(run.child.pid!);
    expect(worker).toBeDefined();
    process.kill(worker!, 'SIGKILL');
    expect(await run.exited).toEqual({ code: 1, signal: null });
    expect(existsSync(join(out, 'summary.json'))).toBe(false);
    const ckpt = Math.max(...steps(out).map((n) => Number(n.slice(5))));
    expect(ckpt).toBeLessThan(60);

    const again = await dv(args(out));
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`resuming at step ${ckpt}`);
    expect(again.stderr).toMatch(new RegExp(`resumed from step ${ckpt}, final loss`));
    const resumed = metricsSteps(out);
    expect(resumed.map((r) => r.step)).toEqual([20, 40, 60]);
    for (const [i, r] of resumed.entries())
      expect(Math.abs(r.loss - curve[i]!.loss), `step ${r.step}`).toBeLessThan(1e-4);
  }, 240_000);

  it('SIGINT to the parent PID: checkpoint, exit 130, no worker left', async () => {
    const out = join(dir, 'sigint');
    const run = spawnDv(args(out));
    expect(await waitFor(() => steps(out).length > 0, 90_000), run.output()).toBe(true);
    const [worker] = dvChildPids(run.child.pid!);
    process.kill(run.child.pid!, 'SIGINT');
    expect(await run.exited, run.output()).toEqual({ code: 130, signal: null });
    expect(await waitFor(() => !alive(worker!), 10_000)).toBe(true);
    expect(run.output()).toContain('interrupted: the MLM checkpoint is kept');
    expect(existsSync(join(out, 'summary.json'))).toBe(false);
  }, 240_000);
});
