/**
 * Where the paper profile's scale-out engine is launched from (compute = scale-out), decided once
 * when the DAG is built: with a launcher, each `train/...` stage runs the engine and waits
 * (engine-train-stage.ts), and the DAG goes on to evaluation and the report; without one the
 * stages only export and the run stops with the launch lines (engine-export-stage.ts, exit 3).
 *
 * The launcher, first found wins:
 *   1. `paper.scaleOut.launcher` (a command line; its program absolute or on PATH);
 *   2. `paper.scaleOut.command` when it names torchrun: a path as given, else
 *      `$VIRTUAL_ENV/bin/torchrun`, else `torchrun` on PATH; run as
 *      `torchrun --standalone --nproc_per_node N` (a free local port, one node).
 * None with `launch: false`, and none for FlagEmbedding / Tevatron (their trainers and output
 * folders are not run or checked here: those export and stop).
 */
import { accessSync, constants } from 'node:fs';
import { basename, delimiter, isAbsolute, join, resolve } from 'node:path';
import type { PaperSection } from '@dv/core';

/** The script and its arguments appended to every launcher (run in the export folder). */
export const ENGINE_SCRIPT_ARGS = ['dv_st_train.py', '--settings', 'settings.json'] as const;

export interface ScaleOutLaunch {
  /** The command line to run (the program resolved to a path), ENGINE_SCRIPT_ARGS appended. */
  argv: string[];
  /** The command line as configured (no machine paths): what the stage key records. */
  spec: string[];
  /** Where the program was found. */
  found: 'launcher' | 'command' | 'VIRTUAL_ENV' | 'PATH';
}

function executable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `bin` as an executable path: a path (with a `/`) as given, else the first on PATH. */
export function findExecutable(bin: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (isAbsolute(bin) || bin.includes('/')) return executable(bin) ? resolve(bin) : null;
  for (const d of (env.PATH ?? '').split(delimiter)) if (d && executable(join(d, bin))) return join(d, bin);
  return null;
}

export function resolveScaleOutLaunch(
  paper: PaperSection,
  env: NodeJS.ProcessEnv = process.env,
): ScaleOutLaunch | null {
  const s = paper.scaleOut;
  if (paper.compute !== 'scale-out' || !s || !s.launch || s.engine !== 'sentence-transformers') return null;
  if (s.launcher) {
    const exe = findExecutable(s.launcher[0]!, env);
    if (!exe) return null;
    return {
      argv: [exe, ...s.launcher.slice(1), ...ENGINE_SCRIPT_ARGS],
      spec: s.launcher,
      found: 'launcher',
    };
  }
  const bin = s.command.split(/\s+/)[0]!;
  if (basename(bin) !== 'torchrun') return null;
  const spec = ['torchrun', '--standalone', '--nproc_per_node', String(s.nprocPerNode)];
  const withArgs = (exe: string, found: ScaleOutLaunch['found']): ScaleOutLaunch => ({
    argv: [exe, ...spec.slice(1), ...ENGINE_SCRIPT_ARGS],
    spec,
    found,
  });
  if (bin.includes('/')) return executable(bin) ? withArgs(resolve(bin), 'command') : null;
  const venv = env.VIRTUAL_ENV ? join(env.VIRTUAL_ENV, 'bin', 'torchrun') : null;
  if (venv && executable(venv)) return withArgs(venv, 'VIRTUAL_ENV');
  const onPath = findExecutable('torchrun', env);
  return onPath ? withArgs(onPath, 'PATH') : null;
}
