/**
 * Runs an engine's launcher (`torchrun ...`, `accelerate launch ...`, `srun ...`) on an export
 * folder and waits for it: the library call behind `pnpm reproduce`'s scale-out training stage.
 *
 * Contract:
 *  - the launcher runs in a process group of its own (`detached`), so aborting kills the
 *    launcher and every worker it started (SIGTERM to the group, SIGKILL after `killGraceMs`);
 *    the group is also sent SIGTERM when this process exits while it runs (a Ctrl-C that ends
 *    us with `process.exit` must not leave workers training);
 *  - stdout and stderr go, byte for byte, to `log` (appended, so a resumed stage keeps the
 *    earlier attempt), and as lines to `onLine`; carriage returns (tqdm redraws) end a line too;
 *  - a non-zero exit or a death by signal rejects with EngineLaunchError naming the log and
 *    quoting its last lines; an abort rejects with EngineLaunchAborted.
 * PYTHONUNBUFFERED=1 is set so the Python workers' lines arrive as they are printed.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DataError } from '@dv/core';

export interface EngineLaunchOptions {
  /** The whole command line: the launcher and its arguments, then the script and its. */
  argv: readonly string[];
  /** Working folder (the export folder: launch.sh runs there too). */
  cwd: string;
  /** The engine log file (created, appended to). */
  log: string;
  /** Environment (default process.env); PYTHONUNBUFFERED=1 is added. */
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** Each line of output, as it arrives (without its line ending; empty lines skipped). */
  onLine?: (line: string) => void;
  /** Between SIGTERM and SIGKILL on abort (default 10 s: torchrun forwards SIGTERM to its workers). */
  killGraceMs?: number;
  /** Lines of output kept for the error message (default 40). */
  tailLines?: number;
}

export interface EngineLaunchResult {
  seconds: number;
  log: string;
  /** The last lines of output. */
  tail: string[];
}

/** A DataError (what the CLI reports as one line, exit 1): the engine's failure is not our bug. */
export class EngineLaunchError extends DataError {
  constructor(
    readonly argv: readonly string[],
    readonly log: string,
    readonly exitCode: number | null,
    readonly exitSignal: NodeJS.Signals | null,
    readonly tail: string[],
    cause?: Error,
  ) {
    const how =
      cause !== undefined
        ? `could not start (${cause.message})`
        : exitSignal
          ? `was killed by ${exitSignal}`
          : `exited with code ${exitCode}`;
    super(
      `the engine launcher ${how}: ${argv.join(' ')}\nengine log: ${log}` +
        (tail.length ? `\nlast lines of the log:\n${tail.map((l) => `  | ${l}`).join('\n')}` : ''),
    );
    if (cause) this.cause = cause;
  }
}

export class EngineLaunchAborted extends Error {
  override readonly name = 'EngineLaunchAborted';
  constructor(readonly log: string) {
    super(`the engine launch was interrupted; its process group was stopped (engine log: ${log})`);
  }
}

export async function launchEngine(o: EngineLaunchOptions): Promise<EngineLaunchResult> {
  if (o.argv.length === 0) throw new Error('launchEngine: an empty command line');
  if (o.signal?.aborted) throw new EngineLaunchAborted(o.log);
  mkdirSync(dirname(o.log), { recursive: true });
  const log = createWriteStream(o.log, { flags: 'a' });
  const keep = o.tailLines ?? 40;
  const tail: string[] = [];
  const t0 = performance.now();
  log.write(`# ${new Date().toISOString()} ${o.argv.join(' ')} (in ${o.cwd})\n`);

  const child = spawn(o.argv[0]!, o.argv.slice(1), {
    cwd: o.cwd,
    env: { ...(o.env ?? process.env), PYTHONUNBUFFERED: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const killGroup = (sig: NodeJS.Signals) => {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid, sig);
    } catch {
      // the group is gone already
    }
  };
  const onExit = () => killGroup('SIGTERM');
  process.on('exit', onExit);
  let aborted = false;
  let forceKill: NodeJS.Timeout | undefined;
  const onAbort = () => {
    aborted = true;
    killGroup('SIGTERM');
    forceKill = setTimeout(() => killGroup('SIGKILL'), o.killGraceMs ?? 10_000);
    forceKill.unref();
  };
  o.signal?.addEventListener('abort', onAbort, { once: true });

  // Lines from both streams; a partial line waits for its end (per stream).
  const splitter = () => {
    let rest = '';
    return {
      push(chunk: Buffer) {
        log.write(chunk);
        const parts = (rest + chunk.toString('utf8')).split(/\r\n|\r|\n/);
        rest = parts.pop() ?? '';
        for (const p of parts) emit(p);
      },
      flush() {
        if (rest) emit(rest);
        rest = '';
      },
    };
  };
  const emit = (line: string) => {
    if (line.trim() === '') return;
    tail.push(line);
    if (tail.length > keep) tail.shift();
    o.onLine?.(line);
  };
  const out = splitter();
  const err = splitter();
  child.stdout.on('data', (b: Buffer) => out.push(b));
  child.stderr.on('data', (b: Buffer) => err.push(b));

  try {
    const [code, sig, spawnError] = await new Promise<
      [number | null, NodeJS.Signals | null, Error | undefined]
    >((res) => {
      child.once('error', (e) => res([null, null, e]));
      child.once('close', (c, s) => res([c, s, undefined]));
    });
    out.flush();
    err.flush();
    log.write(`# exit ${sig ?? code} after ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    if (aborted) throw new EngineLaunchAborted(o.log);
    if (spawnError || code !== 0)
      throw new EngineLaunchError(o.argv, o.log, code, sig, [...tail], spawnError);
    return { seconds: (performance.now() - t0) / 1000, log: o.log, tail: [...tail] };
  } finally {
    if (forceKill) clearTimeout(forceKill);
    o.signal?.removeEventListener('abort', onAbort);
    process.removeListener('exit', onExit);
    await new Promise<void>((res) => log.end(() => res()));
  }
}
