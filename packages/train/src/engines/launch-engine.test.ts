import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EngineLaunchAborted, EngineLaunchError, launchEngine } from './launch-engine.js';

const dir = mkdtempSync(join(tmpdir(), 'dv-launch-engine-'));

/** Whether a process still runs (a zombie or a vanished pid counts as gone). */
function running(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (existsSync('/proc/self/stat')) {
    if (!existsSync(stat)) return false;
    return !/^\d+ \(.*\) [ZX]/.test(readFileSync(stat, 'utf8'));
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('launchEngine', () => {
  it('streams lines of both streams (tqdm carriage returns end a line) and writes them to the log', async () => {
    const lines: string[] = [];
    const log = join(dir, 'ok', 'engine.log');
    const r = await launchEngine({
      argv: [
        'bash',
        '-c',
        'printf " 1/3 [a]\\r 2/3 [b]\\r"; echo "{\'loss\': 1.5}"; echo warn >&2; printf tail',
      ],
      cwd: dir,
      log,
      onLine: (l) => lines.push(l),
    });
    expect(lines.filter((l) => l !== 'warn')).toEqual([' 1/3 [a]', ' 2/3 [b]', "{'loss': 1.5}", 'tail']);
    expect(lines).toContain('warn');
    const text = readFileSync(log, 'utf8');
    expect(text).toContain(" 2/3 [b]\r{'loss': 1.5}\n");
    expect(text).toMatch(/# exit 0 after/);
    expect(r.tail.at(-1)).toBe('tail');
  });

  it('a failing launcher rejects naming the log and quoting its last lines', async () => {
    const log = join(dir, 'fail', 'engine.log');
    const err = await launchEngine({
      argv: ['bash', '-c', 'echo "RuntimeError: gloo 4096 vs 3840 bytes" >&2; exit 7'],
      cwd: dir,
      log,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngineLaunchError);
    const e = err as EngineLaunchError;
    expect(e.exitCode).toBe(7);
    expect(e.message).toContain(`engine log: ${log}`);
    expect(e.message).toMatch(/exited with code 7/);
    expect(e.message).toContain('| RuntimeError: gloo 4096 vs 3840 bytes');
    const missing = await launchEngine({ argv: [join(dir, 'no-such-launcher')], cwd: dir, log }).catch(
      (x: unknown) => x,
    );
    expect(missing).toBeInstanceOf(EngineLaunchError);
    expect((missing as Error).message).toMatch(/could not start \(.*ENOENT/);
  });

  it('an abort stops the whole process group, workers included', async () => {
    const log = join(dir, 'abort', 'engine.log');
    const ac = new AbortController();
    let worker = 0;
    const p = launchEngine({
      // the "launcher" starts a worker that ignores nothing and would run for 10 minutes
      argv: ['bash', '-c', 'sleep 600 & echo "worker $!"; wait'],
      cwd: dir,
      log,
      signal: ac.signal,
      onLine: (l) => {
        const m = /^worker (\d+)$/.exec(l);
        if (m) {
          worker = Number(m[1]);
          ac.abort();
        }
      },
    });
    await expect(p).rejects.toBeInstanceOf(EngineLaunchAborted);
    expect(worker).toBeGreaterThan(0);
    // the launcher's stdout closed once every holder of it (the worker) was exiting; a process
    // closes its files before the kernel marks it a zombie, so wait for that (bounded poll)
    for (let i = 0; i < 250 && running(worker); i++) await new Promise((r) => setTimeout(r, 20));
    expect(running(worker)).toBe(false);
    expect(readFileSync(log, 'utf8')).toMatch(/# exit SIGTERM after/);
  });
});
