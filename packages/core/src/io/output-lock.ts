/**
 * One writer per output folder (issue 25: two `dv train run` on one `--out` both trained and
 * wrote 31 metrics rows for 20 steps). `acquireOutputLock(dir, { command })` creates
 * `<dir>/.dv-lock` with O_EXCL (`wx`), holding `{ pid, parentPid?, hostname, command,
 * startedAt, token }`:
 * - a second writer gets an `OutputLockedError` at once (no waiting) naming the folder and the
 *   holder's PID and command (exit 1 through the CLI);
 * - a lock whose holder is gone (same host, `process.kill(pid, 0)` says ESRCH) is stale and is
 *   taken over: takers pass one at a time through `<dir>/.dv-lock.take` (O_EXCL); inside, the
 *   lock is re-read and, if still the stale one, a fresh lock file is renamed over it (atomic)
 *   and re-read to confirm the token; so two racing takers leave exactly one owner;
 * - a lock from another host is never taken over (its PID means nothing here): the message
 *   says to remove the file if that run is gone;
 * - `release()` removes the file if it is still ours; a process 'exit' hook does the same for a
 *   run that ends through `process.exit` (Ctrl-C paths), so only a kill -9 or a fatal signal
 *   leaves a lock, and that one is stale.
 * `part` locks one part of a folder (`.dv-lock.<part>`: a shard of `dv eval encode`), so
 * parallel writers of different parts share the folder and two writers of one part do not.
 * `parentPid` is recorded when this process is the stderr-filtering child of `dv`
 * (DV_STDERR_FILTERED), so the message names the PID the user started too.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { DataError } from '../errors.js';
import { withWriteErrors } from './output-guard.js';

export const LOCK_FILE = '.dv-lock';

export interface OutputLockInfo {
  pid: number;
  /** The `dv` process that started this one (the stderr-filtering parent), when there is one. */
  parentPid?: number;
  hostname: string;
  command: string;
  startedAt: string;
  /** Random per acquisition: tells two takers of a stale lock apart. */
  token: string;
}

export interface OutputLock {
  /** `<dir>/.dv-lock`. */
  readonly path: string;
  readonly info: OutputLockInfo;
  /** A stale lock (of a dead process) was taken over; its holder. */
  readonly tookOverFrom: OutputLockInfo | null;
  /** Removes the lock file if it is still ours (idempotent). */
  release(): void;
}

export interface AcquireOutputLockOptions {
  /** What holds the folder, for the other writer's message (e.g. `dv train run`). */
  command: string;
  /**
   * A part of the folder that one writer owns while others write the rest (`dv eval encode`
   * shards of one corpus into one folder): the lock file is `.dv-lock.<part>`.
   */
  part?: string;
}

/** Another live process holds the folder. A DataError (exit 1) naming folder, PID and command. */
export class OutputLockedError extends DataError {
  constructor(
    readonly dir: string,
    readonly holder: OutputLockInfo | null,
    detail: string,
  ) {
    super(detail, dir);
  }
}

function readLock(path: string): OutputLockInfo | null {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as Partial<OutputLockInfo>;
    return typeof v.pid === 'number' ? (v as OutputLockInfo) : null;
  } catch {
    return null;
  }
}

/** Whether `pid` is a live process on this host (EPERM: alive, someone else's). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function describeHolder(h: OutputLockInfo): string {
  const parent = h.parentPid ? ` (started by dv PID ${h.parentPid})` : '';
  return `PID ${h.pid}${parent} on ${h.hostname}: ${h.command}, since ${h.startedAt}`;
}

function writeNew(path: string, body: string, flags: 'wx' | 'w'): void {
  const fd = openSync(path, flags);
  try {
    writeSync(fd, body);
  } finally {
    closeSync(fd);
  }
}

const held = new Map<string, OutputLockInfo>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const [path, info] of held) removeIfOurs(path, info);
  });
}

function removeIfOurs(path: string, info: OutputLockInfo): void {
  held.delete(path);
  if (readLock(path)?.token === info.token) rmSync(path, { force: true });
}

/**
 * Takes the exclusive lock of the output folder `dir` (which must exist). Throws
 * `OutputLockedError` at once when a live process holds it.
 */
export function acquireOutputLock(dir: string, o: AcquireOutputLockOptions): OutputLock {
  const abs = resolve(dir);
  if (o.part !== undefined && !/^[\w.-]+$/.test(o.part)) throw new Error(`bad lock part '${o.part}'`);
  const path = join(abs, o.part ? `${LOCK_FILE}.${o.part}` : LOCK_FILE);
  const info: OutputLockInfo = {
    pid: process.pid,
    ...(process.env.DV_STDERR_FILTERED ? { parentPid: process.ppid } : {}),
    hostname: hostname(),
    command: o.command,
    startedAt: new Date().toISOString(),
    token: randomBytes(8).toString('hex'),
  };
  const body = `${JSON.stringify(info, null, 2)}\n`;
  let tookOverFrom: OutputLockInfo | null = null;
  for (let attempt = 0; ; attempt++) {
    try {
      withWriteErrors(path, () => writeNew(path, body, 'wx'));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = readLock(path);
    if (holder === null) {
      // being written this instant by another acquirer, or garbage: look again, then give up
      if (attempt < 20) {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
        continue;
      }
      throw new OutputLockedError(
        abs,
        null,
        `${LOCK_FILE} exists but is unreadable; if no dv command is writing this folder, remove ${path}`,
      );
    }
    if (holder.hostname !== info.hostname)
      throw new OutputLockedError(
        abs,
        holder,
        `is in use by ${describeHolder(holder)} (another host); if that run is gone, remove ${path}`,
      );
    if (processAlive(holder.pid) && holder.pid !== process.pid)
      throw new OutputLockedError(
        abs,
        holder,
        `is in use by ${describeHolder(holder)}; wait for it to finish or stop it (one writer per folder)`,
      );
    if (holder.pid === process.pid && held.has(path))
      throw new OutputLockedError(abs, holder, `is already locked by this process (${holder.command})`);
    // stale: its process is gone. Takers go one at a time through `<lock>.take` (O_EXCL); the
    // one inside re-reads the lock and renames a fresh one over it only if it is still stale,
    // so the second taker finds the first one's live lock and is refused.
    const take = `${path}.take`;
    try {
      withWriteErrors(take, () => writeNew(take, body, 'wx'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const taker = readLock(take);
      // a taker that died mid-take (a few ms window) leaves this file: clear it, then retry
      if (taker && !processAlive(taker.pid)) rmSync(take, { force: true });
      if (attempt < 200) {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
        continue;
      }
      throw new OutputLockedError(abs, taker, `is being taken over by another process; try again`);
    }
    try {
      const now = readLock(path);
      if (now && now.token !== holder.token) continue; // changed meanwhile: judge it afresh
      const tmp = `${path}.tmp-${process.pid}-${info.token}`;
      withWriteErrors(tmp, () => writeNew(tmp, body, 'wx'));
      renameSync(tmp, path);
    } finally {
      rmSync(take, { force: true });
    }
    if (readLock(path)?.token !== info.token) continue;
    tookOverFrom = holder;
    break;
  }
  held.set(path, info);
  installExitHook();
  return {
    path,
    info,
    tookOverFrom,
    release() {
      if (held.get(path)?.token === info.token) removeIfOurs(path, info);
    },
  };
}

/** Runs `fn` holding the lock of `dir`, released however `fn` ends. */
export async function withOutputLock<T>(
  dir: string,
  o: AcquireOutputLockOptions,
  fn: (lock: OutputLock) => Promise<T> | T,
): Promise<T> {
  const lock = acquireOutputLock(dir, o);
  try {
    return await fn(lock);
  } finally {
    lock.release();
  }
}
