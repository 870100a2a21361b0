/**
 * The one check before a command writes into an output folder (`--out`), so that a folder
 * never mixes two runs' outputs (issue 12 item 5: `synth mix` kept old mixes that mixes.json no
 * longer listed; the default `runs/eval` accumulated sets of different runs).
 *
 * `prepareOutputDir(dir, { kind, identity, force })`:
 * - first `guardOutputDir` (output-guard.ts): refuses a path that is a file, or lies under
 *   /proc, /sys or /dev (kernel file systems, where a write can block forever), naming it;
 * - creates the folder, and records in `<dir>/.dv-run.json` which run owns it: its `kind`
 *   and a hash of `identity` (the settings that make two runs the same run);
 * - the same run again resumes (returns `resumed: true`); a folder that holds another run's
 *   outputs, or files dv did not write, is refused unless `force`, which first removes the
 *   files the previous run's manifest lists (and nothing else), so the new manifest lists
 *   exactly the files in the folder that belong to it.
 */
import { existsSync, readdirSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { contentHash } from '../hash.js';
import { writeJsonAtomic } from './atomic-write.js';
import { guardOutputDir, OutputDirError } from './output-guard.js';

export { OutputDirError };

export const RUN_CLAIM_FILE = '.dv-run.json';

export interface PrepareOutputDirOptions {
  /** What writes here (`eval-run`, `synth-mix`, `mini-world`...). */
  kind: string;
  /** The settings that define the run; same identity = same run (resumed). */
  identity: unknown;
  /** Replace another run's outputs. */
  force?: boolean;
  /** The option that named the folder, for messages (default `--out`). */
  flag?: string;
}

export interface PreparedOutputDir {
  dir: string;
  /** The folder already held this same run. */
  resumed: boolean;
  /** Files of a previous run removed because of `force`. */
  removed: string[];
}

interface Claim {
  kind: string;
  identity: string;
}

function readClaim(dir: string): Claim | null {
  const p = join(dir, RUN_CLAIM_FILE);
  if (!existsSync(p)) return null;
  try {
    return JSON.parse(readFileSync(p, 'utf8')) as Claim;
  } catch {
    return { kind: 'unknown', identity: '' };
  }
}

/** Paths (relative) a manifest in `dir` says it wrote, plus the manifest itself. */
function manifestFiles(dir: string): string[] {
  const p = join(dir, 'manifest.json');
  if (!existsSync(p)) return [];
  try {
    const m = JSON.parse(readFileSync(p, 'utf8')) as { outputs?: Array<{ path?: string }> };
    return [
      ...(m.outputs ?? []).map((o) => o.path).filter((x): x is string => typeof x === 'string'),
      'manifest.json',
    ];
  } catch {
    return ['manifest.json'];
  }
}

export async function prepareOutputDir(dir: string, o: PrepareOutputDirOptions): Promise<PreparedOutputDir> {
  const flag = o.flag ?? '--out';
  // the checks every writing command makes (kernel file systems, a file, disk errors)
  const abs = guardOutputDir(dir, { flag });
  const identity = contentHash({ kind: o.kind, identity: o.identity });
  const claim = readClaim(abs);
  // the claim and the writer's lock (output-lock.ts) are not outputs
  const entries = readdirSync(abs).filter((f) => f !== RUN_CLAIM_FILE && !f.startsWith('.dv-lock'));
  const write = () => writeJsonAtomic(join(abs, RUN_CLAIM_FILE), { kind: o.kind, identity } satisfies Claim);
  if (claim && claim.kind === o.kind && claim.identity === identity)
    return { dir: abs, resumed: true, removed: [] };
  if (!claim && entries.length === 0) {
    await write();
    return { dir: abs, resumed: false, removed: [] };
  }
  if (!o.force) {
    const what = claim
      ? `the outputs of another ${claim.kind} run (other settings)`
      : `${entries.length} files dv did not record (${entries.slice(0, 3).join(', ')}${entries.length > 3 ? ', ...' : ''})`;
    throw new OutputDirError(
      `${flag} already holds ${what}; choose another ${flag}, or pass --force to replace them`,
      dir,
    );
  }
  const removed: string[] = [];
  for (const rel of manifestFiles(abs)) {
    const p = resolve(abs, rel);
    if (!p.startsWith(`${abs}${sep}`)) continue; // a manifest never sends us outside the folder
    if (existsSync(p)) {
      rmSync(p, { force: true });
      removed.push(rel);
    }
  }
  // folders those files were in, when now empty (deepest first)
  const parents = [...new Set(removed.map((r) => dirname(resolve(abs, r))))].sort(
    (a, b) => b.length - a.length,
  );
  for (const d of parents) if (d.startsWith(`${abs}${sep}`) && readdirSync(d).length === 0) rmdirSync(d);
  await write();
  return { dir: abs, resumed: false, removed };
}
