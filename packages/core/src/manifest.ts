/**
 * Run manifests: written as `manifest.json` next to every result (STYLE.md, practice 10).
 * Records config, formatter settings, template version, dataset revisions, seeds, package
 * versions, git commit, timings and input/output digests. Secrets are redacted before writing.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { hashFile } from './hash.js';
import { writeJsonAtomic } from './io/atomic-write.js';
import { redactSecrets } from './redact.js';
import type { FormatterSettings } from './schemas/formatter-settings.js';
import { type FileDigest, RunManifest } from './schemas/run-manifest.js';

export interface ManifestInput {
  kind: string;
  config: unknown;
  command?: string[];
  formatter?: FormatterSettings;
  templateVersion?: string;
  datasetRevisions?: Record<string, string>;
  seeds?: number[];
  timings?: Record<string, number>;
  /** Files read; each is hashed. */
  inputs?: string[];
  /** Files written; each is hashed. */
  outputs?: string[];
  /** Package name -> version; the core version and any resolvable `@dv/*` packages are added. */
  packages?: Record<string, string>;
  notes?: string[];
  /** Where to run git from (default: cwd). */
  cwd?: string;
  /** Paths in the manifest are made relative to this folder (default: the manifest's folder). */
  relativeTo?: string;
}

export function gitState(cwd = process.cwd()): { commit: string | null; dirty: boolean | null } {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
    const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      cwd,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).toString();
    return { commit, dirty: status.trim().length > 0 };
  } catch {
    return { commit: null, dirty: null };
  }
}

const require = createRequire(import.meta.url);
const DV_PACKAGES = ['@dv/core', '@dv/data', '@dv/synth', '@dv/train', '@dv/eval', '@dv/pipeline'];

/** Versions of the `@dv/*` packages resolvable from here (and our own). */
export function dvPackageVersions(): Record<string, string> {
  const out: Record<string, string> = {};
  const own = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    name: string;
    version: string;
  };
  out[own.name] = own.version;
  for (const name of DV_PACKAGES) {
    if (out[name]) continue;
    try {
      const pj = require(`${name}/package.json`) as { version: string };
      out[name] = pj.version;
    } catch {
      // not installed next to core: fine
    }
  }
  return out;
}

async function digest(paths: string[] | undefined, base: string): Promise<FileDigest[]> {
  const out: FileDigest[] = [];
  for (const p of paths ?? []) {
    const { sha256, bytes } = await hashFile(p);
    out.push({ path: relative(base, p) || p, sha256, bytes });
  }
  return out;
}

export async function buildManifest(input: ManifestInput, base = process.cwd()): Promise<RunManifest> {
  const git = gitState(input.cwd);
  const manifest = {
    schemaVersion: 1 as const,
    kind: input.kind,
    createdAt: new Date().toISOString(),
    command: input.command,
    gitCommit: git.commit,
    gitDirty: git.dirty,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    packages: { ...dvPackageVersions(), ...input.packages },
    config: input.config,
    formatter: input.formatter,
    templateVersion: input.templateVersion,
    datasetRevisions: input.datasetRevisions ?? {},
    seeds: input.seeds ?? [],
    timings: input.timings ?? {},
    inputs: await digest(input.inputs, input.relativeTo ?? base),
    outputs: await digest(input.outputs, input.relativeTo ?? base),
    notes: input.notes ?? [],
  };
  return RunManifest.parse(redactSecrets(manifest));
}

/** Builds and atomically writes `<dir>/manifest.json` (or `fileName`); returns its path. */
export async function writeManifest(
  dir: string,
  input: ManifestInput,
  fileName = 'manifest.json',
): Promise<string> {
  const manifest = await buildManifest(input, dir);
  const path = join(dir, fileName);
  await writeJsonAtomic(path, manifest);
  return path;
}
