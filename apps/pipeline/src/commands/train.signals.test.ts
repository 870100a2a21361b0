/**
 * Stopping `dv train run` by signalling its PID alone (issue 25), with real processes: `dv`
 * re-execs itself as a child that filters TensorFlow's log lines, and supervisors signal only
 * the parent. SIGINT / SIGTERM to the parent: the child checkpoints, both exit 130, no process
 * is left, and the same command resumes from the checkpoint to exit 0. kill -9 of the parent:
 * the child notices (IPC channel closed), checkpoints and exits. A closed stderr (EPIPE): the
 * child is stopped, not left computing for no reader.
 */
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  alive,
  dv,
  dvChildPids,
  metricsSteps,
  spawnDv,
  toyTrainingFixture,
  waitFor,
} from './test-utils/dv-process.js';

const dir = mkdtempSync(join(tmpdir(), 'dv-train-signals-'));
let fixture: Awaited<ReturnType<typeof toyTrainingFixture>>;
const steps = 60;
const args = (out: string) => [
  'train',
  'run',
  '--mix',
  fixture.mix,
  '--init',
  fixture.init,
  '--out',
  out,
  '--steps',
  String(steps),
  '--batch',
  '8',
  '--checkpoint-every',
  '1000',
  '--seed',
  '5',
  '--config',
  join(dir, 'cfg.json'),
];

beforeAll(async () => {
  fixture = await toyTrainingFixture(dir);
  writeFileSync(
    join(dir, 'cfg.json'),
    JSON.stringify({ logEverySteps: 1, model: { maxQueryLength: 12, maxDocLength: 16 } }),
  );
}, 120_000);

/** Starts a run, waits for its first logged step, returns the parent and its filtered child. */
async function startAndWaitForAStep(out: string, stdio: 'pipe' | 'ignore' = 'pipe') {
  const run = spawnDv(args(out), stdio);
  const parent = run.child.pid!;
  expect(await waitFor(() => metricsSteps(out).length > 0, 90_000), run.output()).toBe(true);
  const kids = dvChildPids(parent);
  expect(kids, 'the parent has one filtered child').toHaveLength(1);
  return { ...run, parent, worker: kids[0]! };
}

function checkpoints(out: string): string[] {
  const root = join(out, 'checkpoints');
  return existsSync(root) ? readdirSync(root).filter((n) => /^step-\d+$/.test(n)) : [];
}

describe('dv train run stopped through the parent PID', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} to the parent: checkpoint, exit 130, no child left; the rerun resumes to exit 0`, async () => {
      const out = join(dir, signal);
      const run = await startAndWaitForAStep(out);
      process.kill(run.parent, signal);
      const end = await run.exited;
      expect(end, run.output()).toEqual({ code: 130, signal: null });
      expect(await waitFor(() => !alive(run.worker), 10_000), `worker ${run.worker} still running`).toBe(
        true,
      );
      expect(run.output()).toContain('interrupted: checkpoint kept in');
      const kept = checkpoints(out);
      expect(kept).toHaveLength(1);
      const at = Number(kept[0]!.slice('step-'.length));
      expect(at).toBeGreaterThan(0);
      expect(at).toBeLessThan(steps);

      const again = await dv(args(out));
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toContain(`trained ${steps} steps (resumed)`);
      expect(again.stderr).toContain(`resuming at step ${at}`);
      // the curve continues from the checkpoint: each step once, in order
      expect(metricsSteps(out).map((r) => r.step)).toEqual(Array.from({ length: steps }, (_, k) => k + 1));
    }, 240_000);
  }

  it('kill -9 of the parent: the child checkpoints and is gone within seconds', async () => {
    const out = join(dir, 'SIGKILL');
    const run = await startAndWaitForAStep(out, 'ignore');
    process.kill(run.parent, 'SIGKILL');
    expect((await run.exited).signal).toBe('SIGKILL');
    expect(await waitFor(() => !alive(run.worker), 15_000), `worker ${run.worker} orphaned`).toBe(true);
    expect(checkpoints(out)).toHaveLength(1);
    expect(existsSync(join(out, 'summary.json'))).toBe(false);
  }, 240_000);

  it('a closed stderr (EPIPE) stops the child instead of leaving it computing', async () => {
    const out = join(dir, 'EPIPE');
    const run = await startAndWaitForAStep(out);
    run.child.stdout!.destroy();
    run.child.stderr!.destroy();
    const end = await run.exited;
    expect(end.code).toBe(130);
    expect(await waitFor(() => !alive(run.worker), 15_000), `worker ${run.worker} orphaned`).toBe(true);
    expect(existsSync(join(out, 'summary.json'))).toBe(false);
    expect(checkpoints(out)).toHaveLength(1);
  }, 240_000);
});
