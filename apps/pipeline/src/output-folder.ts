/**
 * The `dv` side of the output-folder rules (issue 25), over @dv/core's guard and lock:
 * `lockOutputFolder(dir, command)` runs the one output-folder guard (`guardOutputDir`: kernel
 * file systems, a file as --out, disk errors naming the path; writers below it refuse
 * symlinks), then takes the folder's exclusive lock (`acquireOutputLock`: a second writer
 * exits 1 at once naming the holder's PID and command). Long commands that write a folder
 * (`reproduce`, `train run`, `train mlm`, `synth`, `synth batch`, `eval encode` per shard) call
 * it and release the lock in a `finally`; short writers call `guardOutputDir` alone.
 */
import { acquireOutputLock, guardOutputDir } from '@dv/core';

type OutputLock = ReturnType<typeof acquireOutputLock>;

export interface LockOutputFolderOptions {
  /** The option that named the folder (default `--out`). */
  flag?: string;
  /** Lock only this part of the folder (a shard): see @dv/core's output-lock.ts. */
  part?: string;
}

export function lockOutputFolder(dir: string, command: string, o: LockOutputFolderOptions = {}): OutputLock {
  const abs = guardOutputDir(dir, { flag: o.flag ?? '--out' });
  return acquireOutputLock(abs, { command, ...(o.part ? { part: o.part } : {}) });
}
