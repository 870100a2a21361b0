/**
 * A stage of `pnpm reproduce`: one library call with declared inputs (other stages), a config
 * slice and a folder of its own in the run folder. The DAG runner (run-dag.ts) decides from the
 * stage key (stage-key.ts) whether a stage's outputs are still valid or must be (re)computed.
 */
import { CacheKeyParts, type CodeRef, type Progress } from '@dv/core';
import { z } from 'zod';

/**
 * Stage groups, in pipeline order; `--from` / `--only` accept a group or one stage id. The mini
 * profile has world / pretrain, the paper profile seeds / benchmarks / backbones in their place.
 */
export const STAGE_GROUPS = [
  'world',
  'seeds',
  'benchmarks',
  'synth',
  'mixes',
  'pretrain',
  'backbones',
  'train',
  'eval',
  'report',
] as const;
export type StageGroup = (typeof STAGE_GROUPS)[number];

/** Stage ids are path segments under `<run>/stages/`: letters, digits, `.`, `_`, `-`, joined by `/`. */
export const STAGE_ID = /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)*$/i;

export interface StageContext {
  /** The stage's own folder (created, empty on a fresh start, as left on a resumed one). */
  readonly dir: string;
  /** The run folder. */
  readonly runDir: string;
  /** The record of a finished dependency (only ids listed in `deps`). */
  dep(id: string): StageRecord;
  /** The folder of a dependency. */
  depDir(id: string): string;
  readonly signal: AbortSignal;
  /** One line of progress for this stage. */
  log(line: string): void;
  /** A progress bar/lines with ETA for work inside the stage. */
  progress(label: string, total?: number, unit?: string): Progress;
  /**
   * A point inside the stage where a crash must be survivable (its work so far is on disk).
   * Fault-injection tests hold the process here (DV_REPRODUCE_HOLD=<stage id>) to kill it.
   */
  checkpoint(label: string): Promise<void>;
}

export interface StageOutcome {
  /** Files the stage produced (absolute, inside its folder); hashed into its record. */
  outputs: string[];
  /** Small JSON-able facts for the report and later stages (counts, paths relative to the stage). */
  summary?: Record<string, unknown>;
  notes?: string[];
}

export interface StageSpec {
  readonly id: string;
  readonly group: StageGroup;
  readonly deps: readonly string[];
  /**
   * The code that computes the stage (its library packages, narrowed where the stage runs only a
   * part, and the stage's own file in this app): their code digests enter the key, so changed
   * code reruns the stage with no version to bump (@dv/core cache/code-digest.ts).
   */
  readonly code: readonly CodeRef[];
  /** Optional manual salt, for what no digest sees. */
  readonly salt?: string;
  /** The part of the run config this stage reads (hashed into its key). */
  readonly config: unknown;
  /** Expected seconds on a 2-core machine (for the overall ETA; calibrated as stages finish). */
  readonly estimateSeconds: number;
  /** Marked stand-ins are reported as such (they never count as a real result). */
  readonly standIn?: string;
  run(ctx: StageContext): Promise<StageOutcome>;
}

export const StageDigest = z.object({
  path: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.number().int().nonnegative(),
});

/** What the runner keeps about a finished stage (`stage.json`'s `config` member). */
export const StageRecord = z.object({
  id: z.string(),
  group: z.enum(STAGE_GROUPS),
  key: z.string(),
  /** The key's parts (kind, config slice, input digests, code digests, salt): what made it. */
  parts: CacheKeyParts.optional(),
  /** Code label -> files hashed and the scope (for `--explain` and the report). */
  code: z
    .record(
      z.string(),
      z.object({
        digest: z.string(),
        files: z.number().int(),
        scope: z.array(z.string()),
        /** Package -> digest of its own files, for it and each workspace dependency counted. */
        parts: z.record(z.string(), z.string()).optional(),
      }),
    )
    .optional(),
  /** The checkout the stage ran in (git commit and dirty flag; null outside a git checkout). */
  provenance: z.object({ commit: z.string().nullable(), dirty: z.boolean().nullable() }).optional(),
  /** Records made before code digests carried a hand-bumped version. */
  version: z.string().optional(),
  slice: z.unknown(),
  /** Dependency id -> its output digest when this stage ran. */
  deps: z.record(z.string(), z.string()),
  /** Content hash of this stage's output digests (what dependants key on). */
  outputDigest: z.string(),
  outputs: z.array(StageDigest),
  summary: z.record(z.string(), z.unknown()).default({}),
  standIn: z.string().optional(),
  startedAt: z.string(),
  finishedAt: z.string(),
  seconds: z.number().nonnegative(),
});
export type StageRecord = z.infer<typeof StageRecord>;
