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
 * everything.
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

/**
 * Runs this CLI again as a child with `argv`, its stderr filtered; returns the exit code
 * (128 + signal number when the child dies of a signal, e.g. 130 for SIGINT).
 */
export function runWithFilteredStderr(argv: readonly string[]): Promise<number> {
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!, ...argv], {
    stdio: ['inherit', 'inherit', 'pipe'],
    env: {
      ...process.env,
      DV_STDERR_FILTERED: '1',
      TF_CPP_MIN_LOG_LEVEL: process.env.TF_CPP_MIN_LOG_LEVEL ?? '1',
      // the child's stderr is a pipe: keep the progress display the terminal would get
      DV_PROGRESS: process.env.DV_PROGRESS ?? defaultProgressMode(process.stderr),
      ...(process.stderr.isTTY && process.stderr.columns ? { COLUMNS: String(process.stderr.columns) } : {}),
    },
  });
  const filter = createNoiseFilter((t) => process.stderr.write(t));
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (c: string) => filter.push(c));
  // Ctrl-C reaches the whole process group: the child handles it; the parent waits for it.
  const forward = (sig: NodeJS.Signals) => () => child.kill(sig);
  const onInt = () => {};
  const onTerm = forward('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      filter.end();
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      const signo = signal
        ? ({ SIGINT: 2, SIGTERM: 15, SIGKILL: 9 } as Record<string, number>)[signal]
        : undefined;
      resolve(code ?? 128 + (signo ?? 1));
    });
  });
}
