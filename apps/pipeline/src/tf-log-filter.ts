/**
 * TensorFlow's C++ load-time log lines on stderr (issue 12 item 12). Loading libtensorflow
 * prints, from native code straight to fd 2 and before TF_CPP_MIN_LOG_LEVEL is consulted:
 *   WARNING: All log messages before absl::InitializeLog() is called are written to STDERR
 *   I0000 00:00:1796... port.cc:153] oneDNN custom operations are on. ...
 *   I0000 00:00:1796... cpu_feature_guard.cc:227] This TensorFlow binary is optimized ...
 *   To enable the following instructions: AVX2 ..., rebuild TensorFlow with ...
 * TF_CPP_MIN_LOG_LEVEL=1 (set before the library loads) silences the cpu_feature_guard pair,
 * not the first two (absl logs them during static initialisation); TF_ENABLE_ONEDNN_OPTS=0
 * would, but changes the numbers. Native writes to fd 2 cannot be filtered from JavaScript in
 * the same process, so commands that load TensorFlow run as a child whose stderr the parent
 * filters line by line: only these INFO lines go; warnings and errors pass. DV_TF_LOGS=1 keeps
 * everything. (In-process alternatives were weighed for issue 25: redirecting fd 2 needs dup2,
 * which Node has no API for without a native addon, and a pipe there would need a thread to
 * drain it; TF_ENABLE_ONEDNN_OPTS=0 changes the numbers. So the re-exec stays, with signal
 * forwarding and a parent-death watch: `runWithFilteredStderr`, `watchParentAndOutput`.)
 */
import { spawn } from 'node:child_process';
import { defaultProgressMode } from '@dv/core';

const NOISE: RegExp[] = [
  /^WARNING: All log messages before absl::InitializeLog\(\) is called are written to STDERR$/,
  // absl / TF INFO lines: I<mmdd> <time> <thread> <file>.cc:<line>] ...
  /^I\d{4} \d\d:\d\d:\d+\.\d+\s+\d+ [\w./-]+\.cc:\d+\] /,
  /^To enable the following instructions: .*rebuild TensorFlow with the appropriate compiler flags\.$/,
];

/** Whether one stderr line is TensorFlow's load-time INFO noise (warnings and errors are not). */
export function isTensorFlowNoise(line: string): boolean {
  return NOISE.some((re) => re.test(line));
}

/** Could `partial` (a line without its newline yet) become a noise line? Then wait for the rest. */
function mayBeNoise(partial: string): boolean {
  return ['WARNING: All log', 'I0', 'I1', 'To enable the following'].some(
    (p) => p.startsWith(partial.slice(0, p.length)) || partial.startsWith(p),
  );
}

/** A chunk handler that forwards everything to `write` except whole noise lines. */
export function createNoiseFilter(write: (text: string) => void): { push(chunk: string): void; end(): void } {
  let pending = '';
  return {
    push(chunk) {
      pending += chunk;
      let nl = pending.indexOf('\n');
      while (nl !== -1) {
        const line = pending.slice(0, nl);
        if (!isTensorFlowNoise(line)) write(`${line}\n`);
        pending = pending.slice(nl + 1);
        nl = pending.indexOf('\n');
      }
      // progress bars redraw with \r and no newline: pass them through at once
      if (pending && !mayBeNoise(pending)) {
        write(pending);
        pending = '';
      }
    },
    end() {
      if (pending && !isTensorFlowNoise(pending)) write(pending);
      pending = '';
    },
  };
}

/** Whether `dv <argv>` loads TensorFlow (training, doctor, a tfjs: model). */
export function loadsTensorFlow(argv: readonly string[]): boolean {
  const [cmd] = argv;
  if (cmd === 'train' || cmd === 'doctor' || cmd === 'reproduce') return true;
  return (
    cmd === 'eval' &&
    argv.some((a, i) => a.startsWith('tfjs:') || (argv[i - 1] === '--model' && a.startsWith('tfjs')))
  );
}

/** The signals that ask a `dv` process to stop: each is forwarded to the child as SIGINT. */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * The parent's exit code for a child that ended with `code` or died of `signal`: the child's own
 * code; 130 (interrupted) for a stop signal (the child did not get to checkpoint, but its
 * checkpoints are atomic, so a rerun resumes); 1 (failed) for any other signal (e.g. SIGKILL).
 */
export function parentExitCode(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  return signal && (STOP_SIGNALS as readonly string[]).includes(signal) ? 130 : 1;
}

/**
 * The node flags for the child with each bare `--import` specifier (`--import tsx`) resolved to
 * an absolute URL: `pnpm dv` moves to the folder the user typed it in (INIT_CWD) before the
 * child starts, and a bare specifier would then be looked up from there, outside the workspace.
 * A specifier that cannot be resolved is kept as it is.
 */
export function absoluteImportFlags(
  execArgv: readonly string[],
  resolve: (specifier: string) => string,
): string[] {
  const bare = (s: string) => !/^(\.{1,2}\/|\/|file:|data:|node:)/.test(s);
  const abs = (s: string) => {
    if (!bare(s)) return s;
    try {
      return resolve(s);
    } catch {
      return s;
    }
  };
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const a = execArgv[i]!;
    if (a === '--import' && i + 1 < execArgv.length) out.push(a, abs(execArgv[++i]!));
    else if (a.startsWith('--import=')) out.push(`--import=${abs(a.slice('--import='.length))}`);
    else out.push(a);
  }
  return out;
}

/**
 * Runs this CLI again as a child with `argv`, its stderr filtered; returns its exit code
 * (`parentExitCode`). Stopping, for supervisors that signal one PID and for a terminal:
 *   - the child runs in its own process group (`detached`), so a terminal's Ctrl-C reaches only
 *     this parent, which forwards every SIGINT / SIGTERM / SIGHUP to the child as one SIGINT (the
 *     commands' graceful stop: checkpoint, exit 130); a second signal is forwarded again, and the
 *     child then stops at once (its checkpoints are atomic);
 *   - an IPC channel ties the child to this process: if the parent dies (even by kill -9), the
 *     channel closes and the child stops as if interrupted (`watchParentAndOutput`);
 *   - a closed stderr here (EPIPE: `dv ... 2>&1 | head -1`) stops the child too.
 */
export function runWithFilteredStderr(argv: readonly string[]): Promise<number> {
  const execArgv = absoluteImportFlags(process.execArgv, (s) => import.meta.resolve(s));
  const child = spawn(process.execPath, [...execArgv, process.argv[1]!, ...argv], {
    stdio: ['inherit', 'inherit', 'pipe', 'ipc'],
    detached: true,
    env: {
      ...process.env,
      DV_STDERR_FILTERED: '1',
      TF_CPP_MIN_LOG_LEVEL: process.env.TF_CPP_MIN_LOG_LEVEL ?? '1',
      // the child's stderr is a pipe: keep the progress display the terminal would get
      DV_PROGRESS: process.env.DV_PROGRESS ?? defaultProgressMode(process.stderr),
      ...(process.stderr.isTTY && process.stderr.columns ? { COLUMNS: String(process.stderr.columns) } : {}),
    },
  });
  let stderrOpen = true;
  let lastForward = Number.NEGATIVE_INFINITY;
  const stopChild = () => {
    // one Ctrl-C may arrive twice (from the terminal and from a wrapper such as pnpm that
    // forwards it): signals within half a second of a forwarded one are the same request
    const now = performance.now();
    if (now - lastForward < 500) return;
    lastForward = now;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
  };
  const filter = createNoiseFilter((t) => {
    if (stderrOpen) process.stderr.write(t);
  });
  const onStderrError = () => {
    // nobody reads our stderr any more: stop the work instead of computing for no one
    stderrOpen = false;
    stopChild();
  };
  process.stderr.on('error', onStderrError);
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (c: string) => filter.push(c));
  // the channel carries no messages; it only lets the child see this process end
  child.on('message', () => {});
  for (const sig of STOP_SIGNALS) process.on(sig, stopChild);
  return new Promise((resolve) => {
    child.on('error', (err) => {
      process.stderr.write(`error: cannot start the dv worker process: ${err.message}\n`);
      resolve(1);
    });
    child.on('close', (code, signal) => {
      filter.end();
      for (const sig of STOP_SIGNALS) process.off(sig, stopChild);
      process.stderr.off('error', onStderrError);
      if (code === null && signal && !(STOP_SIGNALS as readonly string[]).includes(signal) && stderrOpen)
        process.stderr.write(`error: the dv worker process (pid ${child.pid}) died of ${signal}\n`);
      resolve(parentExitCode(code, signal));
    });
  });
}

/**
 * In the filtered child (and in a `dv` run directly): SIGTERM and SIGHUP stop the command like
 * SIGINT does (a command that handles SIGINT checkpoints and exits 130; one that does not ends
 * as if by Ctrl-C), instead of killing it where it stands (exit 143). In the child also: the
 * parent's end (the IPC channel closes, e.g. the parent was killed with -9) and a stdout nobody
 * reads (EPIPE, `dv ... | head -1`) stop the command the same way, so no orphan keeps running.
 */
export function watchParentAndOutput(): void {
  const interrupt = () => process.kill(process.pid, 'SIGINT');
  process.on('SIGTERM', interrupt);
  process.on('SIGHUP', interrupt);
  // EPIPE on stdout: stop the work if a command is running (it listens for SIGINT); after it,
  // ignore (the output has nowhere to go; the exit code stays the command's).
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    if (process.listenerCount('SIGINT') > 0) interrupt();
    else if (!process.channel) throw err;
  });
  if (!process.channel) return;
  // the channel must not keep the process alive, and a parent gone means stderr is gone too
  process.channel.unref();
  process.once('disconnect', () => {
    process.stderr.on('error', () => {});
    interrupt();
  });
}
