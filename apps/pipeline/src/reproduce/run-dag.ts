/**
 * The DAG runner of `pnpm reproduce`: runs stages in dependency order, each in
 * `<run>/stages/<id>/`, and skips every stage whose recorded key (stage-key.ts) still matches.
 *
 * Crash safety: a stage's `stage.json` (a RunManifest whose `config` is the StageRecord) is
 * written atomically after all its outputs, so a stage without it did not finish. Before a stage
 * starts, `.stage-key` records the key it runs under: a rerun with the same key keeps the folder
 * (stages that resume inside - synthesis journals, trainer checkpoints, evaluated benchmarks - pick
 * up there), a different key clears it. A SIGKILL therefore costs at most the unfinished part of
 * one stage.
 *
 * Selection: `from` (a group or a stage id) redoes those stages and everything downstream and
 * reuses what is upstream; `only` redoes just those stages and refuses to run when a dependency
 * has not finished.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildManifest,
  clearCodeDigestMemo,
  createProgress,
  DataError,
  formatDuration,
  gitState,
  type ProgressMode,
  RunManifest,
  writeJsonAtomic,
} from '@dv/core';
import { STAGE_GROUPS, STAGE_ID, type StageContext, StageRecord, type StageSpec } from './stage.js';
import { outputDigest, type StageKey, stageKey } from './stage-key.js';

let checkout: { commit: string | null; dirty: boolean | null } | undefined;
/** The checkout's git state, taken once per process (recorded in every stage it runs). */
function provenance(): { commit: string | null; dirty: boolean | null } {
  checkout ??= gitState(repoRootOf(import.meta.url));
  return checkout;
}

/** The folder of the checkout this code runs from (git is asked there, not in the cwd). */
function repoRootOf(url: string): string {
  return resolve(fileURLToPath(url), '..');
}

export const STAGE_FILE = 'stage.json';
const KEY_FILE = '.stage-key';
export const HOLD_ENV = 'DV_REPRODUCE_HOLD';

export class StageSelectionError extends Error {
  override readonly name = 'StageSelectionError';
}

export class InterruptedError extends Error {
  override readonly name = 'InterruptedError';
}

export interface RunDagOptions {
  runDir: string;
  stages: readonly StageSpec[];
  from?: string;
  only?: string;
  signal?: AbortSignal;
  /** Where progress goes (default stderr). */
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  progressMode?: ProgressMode;
  /** Recorded in each stage manifest. */
  command?: string[];
  /** Stage id to hold at its first checkpoint (fault-injection tests); default $DV_REPRODUCE_HOLD. */
  hold?: string;
}

export interface StageRun {
  id: string;
  status: 'ran' | 'cached' | 'skipped';
  seconds: number;
  record?: StageRecord;
}

export interface DagResult {
  runs: StageRun[];
  records: Map<string, StageRecord>;
  seconds: number;
}

/** The folder of a stage inside the run folder (ids are checked to stay inside it). */
export function stageDir(runDir: string, id: string): string {
  if (!STAGE_ID.test(id)) throw new StageSelectionError(`invalid stage id '${id}'`);
  const root = resolve(runDir, 'stages');
  const dir = resolve(root, ...id.split('/'));
  if (!dir.startsWith(root + sep)) throw new StageSelectionError(`stage id '${id}' leaves the run folder`);
  return dir;
}

/** Reads a finished stage's record, or null when it has none (never ran or did not finish). */
export function readStageRecord(dir: string): StageRecord | null {
  const path = join(dir, STAGE_FILE);
  if (!existsSync(path)) return null;
  try {
    const manifest = RunManifest.parse(JSON.parse(readFileSync(path, 'utf8')));
    return StageRecord.parse(manifest.config);
  } catch {
    return null; // an unreadable record means "not finished": the stage reruns
  }
}

/**
 * Why a finished stage's recorded outputs are not all there as recorded (missing, other size,
 * other sha256), or null when they are. A same-size edit or corruption is caught by the sha256
 * (issue 25: only sizes were compared). Hashing every output costs 0.11-0.16 s on a --quick run
 * folder (15 stages, 486 outputs, 101 MB; measured on 2 cores, warm page cache), so roughly
 * 1-1.5 s/GB at paper scale. Synchronous because `explainDag` (no work done) asks it too.
 */
export function outputsProblem(dir: string, record: StageRecord): string | null {
  for (const o of record.outputs) {
    const p = join(dir, o.path);
    if (!existsSync(p)) return `${p} is missing`;
    const size = statSync(p).size;
    if (size !== o.bytes) return `${p} has ${size} bytes, ${o.bytes} when the stage finished`;
    const sha = sha256OfFileSync(p);
    if (sha !== o.sha256)
      return `${p} changed since the stage finished (sha256 ${sha.slice(0, 12)}, recorded ${o.sha256.slice(0, 12)})`;
  }
  return null;
}

/** Whether a finished stage's recorded outputs are all still there as recorded. */
export function outputsPresent(dir: string, record: StageRecord): boolean {
  return outputsProblem(dir, record) === null;
}

function sha256OfFileSync(path: string): string {
  const h = createHash('sha256');
  const buf = Buffer.allocUnsafe(1 << 20);
  const fd = openSync(path, 'r');
  try {
    for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) h.update(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return h.digest('hex');
}

/** Every stage the `selected` ones depend on, directly or not (the selected excluded). */
function upstreamOf(order: readonly StageSpec[], selected: ReadonlySet<string>): Set<string> {
  const byId = new Map(order.map((s) => [s.id, s]));
  const out = new Set<string>();
  const visit = (id: string) => {
    for (const d of byId.get(id)?.deps ?? [])
      if (!out.has(d)) {
        out.add(d);
        visit(d);
      }
  };
  for (const id of selected) visit(id);
  for (const id of selected) out.delete(id);
  return out;
}

/** Stages in dependency order (stable: among ready stages, the given order). */
export function topologicalOrder(stages: readonly StageSpec[]): StageSpec[] {
  const byId = new Map<string, StageSpec>();
  for (const s of stages) {
    if (!STAGE_ID.test(s.id)) throw new StageSelectionError(`invalid stage id '${s.id}'`);
    if (byId.has(s.id)) throw new StageSelectionError(`duplicate stage id '${s.id}'`);
    byId.set(s.id, s);
  }
  for (const s of stages)
    for (const d of s.deps)
      if (!byId.has(d)) throw new StageSelectionError(`stage '${s.id}' depends on unknown stage '${d}'`);
  const order: StageSpec[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (s: StageSpec, path: string[]) => {
    const st = state.get(s.id);
    if (st === 'done') return;
    if (st === 'visiting') throw new StageSelectionError(`dependency cycle: ${[...path, s.id].join(' -> ')}`);
    state.set(s.id, 'visiting');
    for (const d of s.deps) visit(byId.get(d)!, [...path, s.id]);
    state.set(s.id, 'done');
    order.push(s);
  };
  for (const s of stages) visit(s, []);
  return order;
}

/** Stages a selector names: a group, a stage id, or an id prefix (`train/mini-bert`). */
export function matchStages(stages: readonly StageSpec[], selector: string): Set<string> {
  const hit = new Set(
    stages
      .filter((s) => s.group === selector || s.id === selector || s.id.startsWith(`${selector}/`))
      .map((s) => s.id),
  );
  if (hit.size === 0)
    throw new StageSelectionError(
      `no stage matches '${selector}'; groups: ${STAGE_GROUPS.join(', ')}; ids: ${stages.map((s) => s.id).join(', ')}`,
    );
  return hit;
}

export function downstreamOf(stages: readonly StageSpec[], roots: Set<string>): Set<string> {
  const out = new Set(roots);
  let grew = true;
  while (grew) {
    grew = false;
    for (const s of stages)
      if (!out.has(s.id) && s.deps.some((d) => out.has(d))) {
        out.add(s.id);
        grew = true;
      }
  }
  return out;
}

function keepAlive(): Promise<never> {
  return new Promise<never>(() => {
    setInterval(() => {}, 1 << 30);
  });
}

/** The stages `--from` (a stage and all downstream) or `--only` force to run; none without either. */
export function forcedStages(order: readonly StageSpec[], from?: string, only?: string): Set<string> {
  if (from && only) throw new StageSelectionError('give --from or --only, not both');
  if (only) return matchStages(order, only);
  return from ? downstreamOf(order, matchStages(order, from)) : new Set<string>();
}

/** A stage's key from its spec and its dependencies' output digests (stage-key.ts). */
export function keyOfStage(spec: StageSpec, deps: Readonly<Record<string, string>>): StageKey {
  return stageKey({
    id: spec.id,
    config: spec.config,
    deps,
    code: spec.code,
    ...(spec.salt !== undefined ? { salt: spec.salt } : {}),
  });
}

export async function runDag(options: RunDagOptions): Promise<DagResult> {
  const started = performance.now();
  clearCodeDigestMemo(); // code digests are taken fresh for each run (the files may have changed)
  const stream = options.stream ?? process.stderr;
  const order = topologicalOrder(options.stages);
  const forced = forcedStages(order, options.from, options.only);
  // --only: the finished inputs of the selected stages; one whose outputs were damaged since it
  // finished is run again (same key, so the same results) rather than refused
  const inputsOfOnly = options.only ? upstreamOf(order, forced) : new Set<string>();
  const hold = options.hold ?? process.env[HOLD_ENV];
  const records = new Map<string, StageRecord>();
  const runs: StageRun[] = [];
  const say = (line: string) => stream.write(`${line}\n`);

  // Overall ETA: remaining estimates scaled by how the finished stages compared to theirs.
  let estimatedDone = 0;
  let actualDone = 0;
  const remainingEstimate = (from: number) =>
    order.slice(from).reduce((a, s) => a + (options.only && !forced.has(s.id) ? 0 : s.estimateSeconds), 0);

  for (const [i, spec] of order.entries()) {
    if (options.signal?.aborted) throw new InterruptedError('interrupted');
    const tag = `[${i + 1}/${order.length}] ${spec.id}`;
    const dir = stageDir(options.runDir, spec.id);
    const deps: Record<string, string> = {};
    const skipped = options.only !== undefined && !forced.has(spec.id);
    if (skipped && spec.deps.some((d) => !records.has(d))) {
      runs.push({ id: spec.id, status: 'skipped', seconds: 0 });
      continue;
    }
    for (const d of spec.deps) {
      const r = records.get(d);
      if (!r) {
        if (options.only)
          throw new StageSelectionError(
            `--only ${options.only}: '${spec.id}' needs '${d}', which has not finished; run without --only first`,
          );
        throw new Error(`internal: dependency '${d}' of '${spec.id}' has no record`);
      }
      deps[d] = r.outputDigest;
    }
    const keyed = keyOfStage(spec, deps);
    const key = keyed.key;
    const existing = readStageRecord(dir);
    const damaged = existing !== null && existing.key === key ? outputsProblem(dir, existing) : null;
    const valid = existing !== null && existing.key === key && damaged === null;
    if (skipped && !(damaged && inputsOfOnly.has(spec.id))) {
      if (valid) records.set(spec.id, existing);
      runs.push({ id: spec.id, status: 'skipped', seconds: 0, ...(valid ? { record: existing } : {}) });
      continue;
    }
    if (valid && !forced.has(spec.id)) {
      records.set(spec.id, existing);
      runs.push({ id: spec.id, status: 'cached', seconds: 0, record: existing });
      say(
        `${tag}: up to date (key ${key.slice(0, 12)}, ran ${formatDuration(existing.seconds)} on ${existing.finishedAt})`,
      );
      continue;
    }

    if (damaged) say(`${tag}: finished before, but ${damaged}; running it again`);
    // Prepare the folder: keep a same-key partial run (the stage resumes), clear anything else.
    const keyPath = join(dir, KEY_FILE);
    const previousKey = existsSync(keyPath) ? readFileSync(keyPath, 'utf8').trim() : null;
    const resume = previousKey === key && !forced.has(spec.id) && existing === null;
    if (existsSync(dir) && !resume) rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(keyPath, `${key}\n`);

    const scale = estimatedDone > 0 ? actualDone / estimatedDone : 1;
    say(
      `${tag}: ${resume ? 'resuming' : 'running'}${spec.standIn ? ' (STAND-IN)' : ''} - est. ${formatDuration(spec.estimateSeconds * scale)}, run ETA ${formatDuration(remainingEstimate(i) * scale)}`,
    );
    const t0 = performance.now();
    const startedAt = new Date().toISOString();
    const ctx: StageContext = {
      dir,
      runDir: options.runDir,
      signal: options.signal ?? new AbortController().signal,
      dep: (id) => {
        if (!spec.deps.includes(id))
          throw new Error(`stage '${spec.id}' reads '${id}' but does not declare it`);
        return records.get(id)!;
      },
      depDir: (id) => {
        if (!spec.deps.includes(id))
          throw new Error(`stage '${spec.id}' reads '${id}' but does not declare it`);
        return stageDir(options.runDir, id);
      },
      log: (line) => say(`  ${spec.id}: ${line}`),
      progress: (label, total, unit) =>
        createProgress({
          label: `  ${spec.id}: ${label}`,
          ...(total !== undefined ? { total } : {}),
          ...(unit ? { unit } : {}),
          stream,
          ...(options.progressMode ? { mode: options.progressMode } : {}),
        }),
      checkpoint: async (label) => {
        if (hold === spec.id) {
          writeFileSync(join(dir, '.held'), `${label}\n`);
          say(`  ${spec.id}: held at '${label}' (${HOLD_ENV}); waiting to be killed`);
          await keepAlive();
        }
      },
    };
    const outcome = await spec.run(ctx);
    if (options.signal?.aborted) throw new InterruptedError('interrupted');
    const seconds = (performance.now() - t0) / 1000;
    for (const p of outcome.outputs) {
      const rel = relative(dir, p);
      if (rel.startsWith('..') || resolve(p) !== resolve(dir, rel))
        throw new Error(`stage '${spec.id}' reported an output outside its folder: ${p}`);
      if (!existsSync(p)) throw new DataError(`stage '${spec.id}' reported a missing output`, p);
    }
    const base = await buildManifest(
      {
        kind: 'reproduce-stage',
        config: {},
        outputs: outcome.outputs,
        timings: { seconds },
        notes: outcome.notes ?? [],
      },
      dir,
    );
    const record = StageRecord.parse({
      id: spec.id,
      group: spec.group,
      key,
      parts: keyed.parts,
      code: keyed.code,
      provenance: provenance(),
      slice: spec.config ?? null,
      deps,
      outputDigest: outputDigest(base.outputs),
      outputs: base.outputs,
      summary: outcome.summary ?? {},
      ...(spec.standIn ? { standIn: spec.standIn } : {}),
      startedAt,
      finishedAt: new Date().toISOString(),
      seconds,
    });
    await writeJsonAtomic(join(dir, STAGE_FILE), {
      ...base,
      command: options.command,
      config: record,
    });
    records.set(spec.id, record);
    runs.push({ id: spec.id, status: 'ran', seconds, record });
    estimatedDone += spec.estimateSeconds;
    actualDone += seconds;
    say(`${tag}: done in ${formatDuration(seconds)}`);
  }
  return { runs, records, seconds: (performance.now() - started) / 1000 };
}
