#!/usr/bin/env node
/** Entry point of `pnpm dv <command>` (and of the `dv` binary of the built app). */
import { loadsTensorFlow, runWithFilteredStderr, watchParentAndOutput } from './tf-log-filter.js';

// `pnpm dv` runs in the workspace root; resolve the user's relative paths from where they typed it.
const viaPnpmScript = ['dv', 'reproduce'].includes(process.env.npm_lifecycle_event ?? '');
if (viaPnpmScript && process.env.INIT_CWD) process.chdir(process.env.INIT_CWD);

const argv = process.argv.slice(2);
if (argv[0] === '__stage-worker') {
  // a stage worker of `dv reproduce --jobs N` (reproduce/stage-pool.ts): its stderr is the run's
  const { stageWorkerMain } = await import('./reproduce/stage-worker.js');
  stageWorkerMain();
} else if (loadsTensorFlow(argv) && !process.env.DV_STDERR_FILTERED && !process.env.DV_TF_LOGS) {
  // TensorFlow's native load-time log lines can only be filtered from outside the process.
  process.exitCode = await runWithFilteredStderr(argv);
} else {
  // SIGTERM / SIGHUP stop like SIGINT (exit 130); as the filtered child, also the parent's end.
  watchParentAndOutput();
  // Loaded after the check: the parent of a filtered child needs none of the commands; and only
  // the command argv names is imported (command-index.ts), so `dv --help` loads none of them.
  const { runCommand, setCliEntry } = await import('./cli-kit.js');
  setCliEntry(process.argv[1]!);
  const { lazyRootCommand } = await import('./command-index.js');
  process.exitCode = await runCommand(await lazyRootCommand(argv), argv);
}
