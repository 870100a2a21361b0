/**
 * Worker processes for `pnpm reproduce --jobs N`: each runs stages one at a time, sent by the
 * DAG runner (run-dag.ts) as a `StageJob`, and answers with the stage's outcome; the runner
 * keeps the bookkeeping (folders, keys, records). A stage runs in a process of its own because
 * tfjs and the ONNX Runtime compute synchronously: two stages in one Node process would take
 * turns, not share the cores.
 *
 * Why two at a time on 2 cores (measured on the mini profile, AMD EPYC, 2 cores): one fine-tuning
 * stage keeps 1.45 cores busy (TensorFlow's two intra-op threads wait on each other between the
 * many small ops of a config-A step) and an evaluation 1.41; two fine-tunes side by side ran at
 * 2.6 steps/s each against 3.7 alone, 1.4x the throughput, and wrote byte-identical models (the
 * thread count per process is unchanged, so every reduction keeps its order).
 *
 * A worker is this CLI started again (`dv __stage-worker`, stage-worker.ts) with an IPC channel.
 * It reads the run's config.json, builds the same stage list and checks that the stage it is
 * asked for has the key the runner computed (code or config changed mid-run: it refuses). Log
 * and progress lines come back over the channel and are written to the run's stream. Stopping:
 * when this process exits (Ctrl-C exits at once; kept checkpoints make a rerun resume) the
 * workers are killed with it; if it is killed outright, each worker sees its channel close and
 * exits. A worker that dies fails its stage, and the next stage gets a new worker.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { ProgressMode } from '@dv/core';
import { DataError } from '@dv/core';
import { absoluteImportFlags } from '../tf-log-filter.js';
import { InterruptedError, type StageExecutor, type StageJob } from './run-dag.js';
import type { StageOutcome, StageRecord } from './stage.js';

/** The argument that starts the CLI as a stage worker. */
export const STAGE_WORKER_ARG = '__stage-worker';

/** Runner -> worker: run one stage. */
export interface WorkerRequest {
  type: 'run';
  runDir: string;
  id: string;
  key: string;
  deps: Record<string, StageRecord>;
  hold: string | null;
  progressMode: ProgressMode;
}

/** An error as it crosses the channel: enough to rebuild what the CLI maps to exit codes. */
export interface WireError {
  name: string;
  message: string;
  stack?: string;
  /** System errors (ENOENT, EACCES...). */
  code?: string;
  path?: string;
  syscall?: string;
  /** DataError. */
  file?: string;
  line?: number;
}

/** Worker -> runner. */
export type WorkerMessage =
  | { type: 'log'; line: string }
  | { type: 'write'; text: string }
  | { type: 'done'; outcome: StageOutcome }
  | { type: 'failed'; error: WireError };

export function toWireError(err: unknown): WireError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err) };
  const e = err as Error & {
    code?: unknown;
    path?: unknown;
    syscall?: unknown;
    file?: unknown;
    line?: unknown;
  };
  return {
    name: e.name,
    message: e.message,
    ...(e.stack ? { stack: e.stack } : {}),
    ...(typeof e.code === 'string' ? { code: e.code } : {}),
    ...(typeof e.path === 'string' ? { path: e.path } : {}),
    ...(typeof e.syscall === 'string' ? { syscall: e.syscall } : {}),
    ...(typeof e.file === 'string' ? { file: e.file } : {}),
    ...(typeof e.line === 'number' ? { line: e.line } : {}),
  };
}

/** The error again, of the class the CLI maps (DataError, InterruptedError, system errors). */
export function fromWireError(w: WireError): Error {
  let e: Error;
  if (w.name === 'DataError') e = Object.assign(new DataError(w.message), { file: w.file, line: w.line });
  else if (w.name === 'InterruptedError') e = new InterruptedError(w.message);
  else {
    e = new Error(w.message);
    if (w.name !== 'Error') Object.defineProperty(e, 'name', { value: w.name });
  }
  if (w.stack) e.stack = w.stack;
  for (const k of ['code', 'path', 'syscall'] as const)
    if (w[k] !== undefined) Object.assign(e, { [k]: w[k] });
  return e;
}

export interface StagePoolOptions {
  /** The dv CLI entry script (`process.argv[1]` of a dv process). */
  entry: string;
  /** Node flags for the workers (default: this process's, bare `--import` specifiers made absolute). */
  execArgv?: readonly string[];
  /** Aborted: the workers are killed and their stages end as interrupted. */
  signal?: AbortSignal;
}

export interface StagePool {
  readonly execute: StageExecutor;
  /**
   * Ends the workers: each exits when its channel closes, and is waited for (reaped), so its CPU
   * time counts as this process's children's and no worker outlives the run.
   */
  close(): Promise<void>;
}

interface Worker {
  child: ChildProcess;
  /** The stage it runs, with how to answer it. */
  current: { id: string; settle: (m: WorkerMessage | { type: 'died'; why: string }) => void } | null;
}

/** A pool of stage workers; as many are started as stages are run at once. */
export function createStagePool(options: StagePoolOptions): StagePool {
  const execArgv = options.execArgv ?? absoluteImportFlags(process.execArgv, (s) => import.meta.resolve(s));
  const idle: Worker[] = [];
  const all = new Set<Worker>();
  const killAll = () => {
    for (const w of all)
      if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
  };
  // Ctrl-C makes `dv reproduce` exit at once: its workers must not outlive it.
  process.on('exit', killAll);
  const onAbort = () => killAll();
  options.signal?.addEventListener('abort', onAbort, { once: true });

  const startWorker = (): Worker => {
    const child = spawn(process.execPath, [...execArgv, options.entry, STAGE_WORKER_ARG], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: process.env,
    });
    const w: Worker = { child, current: null };
    all.add(w);
    child.on('message', (m: WorkerMessage) => w.current?.settle(m));
    child.on('error', (err) => w.current?.settle({ type: 'died', why: `could not start: ${err.message}` }));
    child.on('exit', (code, signal) => {
      all.delete(w);
      const i = idle.indexOf(w);
      if (i >= 0) idle.splice(i, 1);
      w.current?.settle({ type: 'died', why: signal ? `died of ${signal}` : `exited with code ${code}` });
    });
    return w;
  };

  const execute: StageExecutor = (job: StageJob) =>
    new Promise<StageOutcome>((resolve, reject) => {
      if (options.signal?.aborted) {
        reject(new InterruptedError('interrupted'));
        return;
      }
      const w = idle.pop() ?? startWorker();
      const pid = w.child.pid;
      w.current = {
        id: job.spec.id,
        settle: (m) => {
          if (m.type === 'log') return job.ctx.log(m.line);
          if (m.type === 'write') return job.write(m.text);
          w.current = null;
          if (m.type === 'done') {
            idle.push(w);
            resolve(m.outcome);
          } else if (m.type === 'failed') {
            idle.push(w);
            reject(fromWireError(m.error));
          } else if (options.signal?.aborted) reject(new InterruptedError('interrupted'));
          else reject(new Error(`the stage worker (pid ${pid}) running '${job.spec.id}' ${m.why}`));
        },
      };
      const request: WorkerRequest = {
        type: 'run',
        runDir: job.ctx.runDir,
        id: job.spec.id,
        key: job.key,
        deps: { ...job.deps },
        hold: job.hold ?? null,
        progressMode: job.progressMode,
      };
      w.child.send(request);
    });

  return {
    execute,
    async close() {
      options.signal?.removeEventListener('abort', onAbort);
      const exits = [...all].map(
        (w) =>
          new Promise<void>((done) => {
            if (w.child.exitCode !== null || w.child.signalCode !== null) return done();
            w.child.once('exit', () => done());
            if (w.child.connected) w.child.disconnect();
            else w.child.kill('SIGKILL');
          }),
      );
      await Promise.all(exits);
      process.off('exit', killAll);
    },
  };
}
