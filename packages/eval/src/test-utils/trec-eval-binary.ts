/**
 * The real trec_eval 9.0.8 (C), for the tests that compare `dv eval trec` with it byte for byte
 * and for the benchmark that times both: `DV_TREC_EVAL` when set, else `trec_eval` on PATH, else
 * built with its own Makefile (as distributed: `make`, its flags) from the source folder
 * (`DV_TREC_EVAL_SRC`, else `<repo>/../shared/data-external/tools/trec_eval-9.0.8`) in a copy
 * under os.tmpdir(), kept there for later runs. Undefined, with the reason, when none of these
 * works: the callers skip rather than fail (trec_eval is not a dependency).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

export interface TrecEvalBinary {
  path?: string;
  /** Where it came from, or why there is none. */
  note: string;
}

/** Does `cmd -v` run (trec_eval prints its version and exits)? */
const runs = (cmd: string) => !spawnSync(cmd, ['-v'], { stdio: 'ignore' }).error;

export function findTrecEval(): TrecEvalBinary {
  const env = process.env.DV_TREC_EVAL;
  if (env)
    return runs(env)
      ? { path: env, note: `DV_TREC_EVAL=${env}` }
      : { note: `DV_TREC_EVAL=${env} does not run` };
  if (runs('trec_eval')) return { path: 'trec_eval', note: 'trec_eval on PATH' };
  const src =
    process.env.DV_TREC_EVAL_SRC ?? join(repo, '..', 'shared', 'data-external', 'tools', 'trec_eval-9.0.8');
  if (!existsSync(join(src, 'Makefile')))
    return { note: `not on PATH, DV_TREC_EVAL unset and no source at ${src}` };
  const home = join(tmpdir(), 'dv-trec_eval-9.0.8');
  const bin = join(home, 'trec_eval');
  if (existsSync(bin) && runs(bin)) return { path: bin, note: `built from ${src} (cached in ${home})` };
  const work = mkdtempSync(join(tmpdir(), 'dv-trec_eval-build-'));
  try {
    cpSync(src, work, { recursive: true });
    execFileSync('make', ['-s', 'trec_eval'], { cwd: work, stdio: 'pipe' });
    rmSync(home, { recursive: true, force: true });
    renameSync(work, home); // whole folder at once: a concurrent caller sees all or nothing
  } catch (err) {
    rmSync(work, { recursive: true, force: true });
    if (existsSync(bin) && runs(bin)) return { path: bin, note: `built from ${src} (cached in ${home})` };
    return { note: `building ${src} failed: ${(err as Error).message.split('\n')[0]}` };
  }
  return { path: bin, note: `built from ${src} into ${home}` };
}
