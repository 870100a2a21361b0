/**
 * The output-folder lock (issue 25: two `dv train run` on one --out both trained), with real
 * child processes: a live holder refuses a second writer at once, naming its PID and command;
 * a lock left by a dead process is taken over; concurrent acquirers leave exactly one owner,
 * also when they race to take over one stale lock.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tmpDir } from '../test-utils/tmp.js';
import { acquireOutputLock, LOCK_FILE, OutputLockedError, processAlive } from './output-lock.js';

const here = dirname(fileURLToPath(import.meta.url));
const script = join(here, '..', 'test-utils', 'lock-holder.ts');

interface Holder {
  child: ChildProcess;
  lines: string[];
  next(): Promise<string>;
}

function startHolder(dir: string): Holder {
  const child = spawn(process.execPath, ['--conditions=@dv/source', '--import', 'tsx', script, dir], {
    cwd: join(here, '..', '..'),
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  const waiters: Array<(l: string) => void> = [];
  let buf = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (c: string) => {
    buf += c;
    for (let nl = buf.indexOf('\n'); nl !== -1; nl = buf.indexOf('\n')) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const w = waiters.shift();
      if (w) w(line);
      else lines.push(line);
    }
  });
  return {
    child,
    lines,
    next: () => {
      const l = lines.shift();
      return l !== undefined ? Promise.resolve(l) : new Promise((r) => waiters.push(r));
    },
  };
}

const exited = (c: ChildProcess) =>
  new Promise<void>((r) => (c.exitCode !== null ? r() : c.on('exit', () => r())));

/** A PID that was alive a moment ago and is not now. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  const pid = Number(r.stdout.toString());
  expect(processAlive(pid)).toBe(false);
  return pid;
}

describe('acquireOutputLock', () => {
  it('a folder held by a live process is refused at once, naming its PID and command', async () => {
    const dir = tmpDir();
    const h = startHolder(dir);
    expect(await h.next()).toBe('ready');
    h.child.stdin!.write('go\n');
    expect(await h.next()).toBe(`won ${h.child.pid}`);
    const lock = JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'));
    expect(lock).toMatchObject({ pid: h.child.pid, hostname: hostname(), command: 'lock-holder test' });
    const t0 = performance.now();
    let err: unknown;
    try {
      acquireOutputLock(dir, { command: 'second' });
    } catch (e) {
      err = e;
    }
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(err).toBeInstanceOf(OutputLockedError);
    expect((err as Error).message).toContain(dir);
    expect((err as Error).message).toContain(`PID ${h.child.pid}`);
    expect((err as Error).message).toContain('lock-holder test');
    // the holder's lock is untouched, and is gone once it releases
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid).toBe(h.child.pid);
    h.child.stdin!.end();
    await exited(h.child);
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    const mine = acquireOutputLock(dir, { command: 'third' });
    expect(mine.tookOverFrom).toBeNull();
    mine.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  }, 30_000);

  it('a lock left by a dead process is taken over, saying whose it was', () => {
    const dir = tmpDir();
    const pid = deadPid();
    writeFileSync(
      join(dir, LOCK_FILE),
      JSON.stringify({ pid, hostname: hostname(), command: 'dv train run', startedAt: 'x', token: 'old' }),
    );
    const lock = acquireOutputLock(dir, { command: 'dv train run' });
    expect(lock.tookOverFrom?.pid).toBe(pid);
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid).toBe(process.pid);
    expect(existsSync(join(dir, `${LOCK_FILE}.take`))).toBe(false);
    // held by us now: a second acquisition in this process is refused too
    expect(() => acquireOutputLock(dir, { command: 'again' })).toThrow(OutputLockedError);
    lock.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });

  it('parts of one folder lock apart (shards of one corpus into one --out)', () => {
    const dir = tmpDir();
    const a = acquireOutputLock(dir, { command: 'encode 0/2', part: 'shard-00000-of-00002' });
    const b = acquireOutputLock(dir, { command: 'encode 1/2', part: 'shard-00001-of-00002' });
    expect(existsSync(join(dir, `${LOCK_FILE}.shard-00001-of-00002`))).toBe(true);
    expect(() => acquireOutputLock(dir, { command: 'encode 1/2', part: 'shard-00001-of-00002' })).toThrow(
      /already locked by this process \(encode 1\/2\)/,
    );
    a.release();
    b.release();
    expect(existsSync(join(dir, `${LOCK_FILE}.shard-00000-of-00002`))).toBe(false);
  });

  it('a lock from another host is not taken over (its PID means nothing here)', () => {
    const dir = tmpDir();
    writeFileSync(
      join(dir, LOCK_FILE),
      JSON.stringify({
        pid: deadPid(),
        hostname: 'elsewhere',
        command: 'dv synth',
        startedAt: 'x',
        token: 't',
      }),
    );
    expect(() => acquireOutputLock(dir, { command: 'dv synth' })).toThrow(/another host.*remove/);
  });

  for (const stale of [false, true])
    it(`four concurrent acquirers${stale ? ' of a stale lock' : ''}: exactly one wins`, async () => {
      const dir = tmpDir();
      const dead = stale ? deadPid() : 0;
      if (stale)
        writeFileSync(
          join(dir, LOCK_FILE),
          JSON.stringify({ pid: dead, hostname: hostname(), command: 'gone', startedAt: 'x', token: 'old' }),
        );
      const holders = Array.from({ length: 4 }, () => startHolder(dir));
      for (const h of holders) expect(await h.next()).toBe('ready');
      for (const h of holders) h.child.stdin!.write('go\n');
      const results = await Promise.all(holders.map((h) => h.next()));
      const won = results.filter((r) => r.startsWith('won'));
      const lost = results.filter((r) => r.startsWith('lost'));
      expect(won, results.join('\n')).toHaveLength(1);
      expect(lost).toHaveLength(3);
      const winner = holders[results.findIndex((r) => r.startsWith('won'))]!;
      for (const l of lost) expect(l).toContain(`PID ${winner.child.pid}`);
      if (stale) expect(won[0]).toBe(`won ${winner.child.pid} took-over ${dead}`);
      expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid).toBe(winner.child.pid);
      for (const h of holders) h.child.stdin!.end();
      await Promise.all(holders.map((h) => exited(h.child)));
      expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    }, 60_000);
});
