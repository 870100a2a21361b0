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
 *
 * Jobs: `jobs` stages may run at once (independent stages: the seeds' backbones, the mixes'
 * fine-tunes, the evaluations), each in a worker process (stage-pool.ts). Every stage is a
 * deterministic function of its key, so what runs beside it changes its wall time, never its
 * outputs.
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
  defaultProgressMode,
  formatDuration,
  gitState,
  type ProgressMode,
  RunManifest,
  writeJsonAtomic,
} from '@dv/core';
import {
  STAGE_GROUPS,
  STAGE_ID,
  type StageContext,
  type StageOutcome,
  StageRecord,
  type StageSpec,
} from './stage.js';
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
  /** How many stages run at once (default 1: one after the other, in stage order). */
  jobs?: number;
  /** What runs a stage (default `runInProcess`; stage-pool.ts runs each in a worker process). */
  executor?: StageExecutor;
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

/** One stage to run, with what an executor needs to run it here or in another process. */
export interface StageJob {
  readonly spec: StageSpec;
  /** The key the stage runs under (a worker checks that it builds the same stage). */
  readonly key: string;
  /** The records of its dependencies, by id. */
  readonly deps: Readonly<Record<string, StageRecord>>;
  /** The context for running it in this process. */
  readonly ctx: StageContext;
  /** The stage id held at its first checkpoint (fault-injection tests), if any. */
  readonly hold: string | undefined;
  /** How a worker draws its progress ('lines' when stages run side by side: bars would overwrite each other). */
  readonly progressMode: ProgressMode;
  /** Writes text as it is to the run's progress stream (a worker's progress lines). */
  write(text: string): void;
}

/** Runs one stage and returns its outcome: in this process, or in a worker (stage-pool.ts). */
export type StageExecutor = (job: StageJob) => Promise<StageOutcome>;

/** The default executor: the stage's own `run` in this process. */
export const runInProcess: StageExecutor = (job) => job.spec.run(job.ctx);

/** What the runner decided for a stage whose dependencies are all settled. */
type Decision =
  | { kind: 'settled' }
  | {
      kind: 'run';
      keyed: StageKey;
      deps: Record<string, string>;
      damaged: string | null;
      existing: StageRecord | null;
    };

/**
 * Runs the DAG. With `jobs` > 1 up to that many stages run at once, each started as soon as its
 * inputs are finished and a slot is free (lowest stage number first, so one job runs the stages
 * in the order a sequential run does); `executor` runs them (stage-pool.ts: worker processes,
 * since training and encoding block the event loop). A stage's outputs do not depend on what runs
 * beside it. A failed stage stops new stages from starting; the ones running are let finish (their
 * results are valid), then its error is thrown.
 */
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
  const jobs = Math.max(1, Math.floor(options.jobs ?? 1));
  const execute = options.executor ?? runInProcess;
  const workerProgress: ProgressMode =
    options.progressMode === 'silent'
      ? 'silent'
      : jobs > 1
        ? 'lines'
        : (options.progressMode ?? defaultProgressMode(stream));
  const records = new Map<string, StageRecord>();
  const runs: (StageRun | undefined)[] = [];
  const say = (line: string) => stream.write(`${line}\n`);
  const aborted = () => options.signal?.aborted === true;

  /** Stage ids that are done with (ran, up to date or skipped): their dependants may go. */
  const settled = new Set<string>();
  /** Stage numbers neither settled nor started, in order. */
  const waiting = new Set(order.keys());
  const running = new Map<number, Promise<void>>();
  const decisions = new Map<number, Decision>();
  let failure: { error: unknown } | null = null;

  // Overall ETA: remaining estimates scaled by how the finished stages compared to theirs,
  // shared among the jobs.
  let estimatedDone = 0;
  let actualDone = 0;
  const remainingEstimate = () =>
    order.reduce(
      (a, s) => a + (settled.has(s.id) || (options.only && !forced.has(s.id)) ? 0 : s.estimateSeconds),
      0,
    ) / jobs;

  const settle = (i: number, run: StageRun) => {
    runs[i] = run;
    settled.add(run.id);
    waiting.delete(i);
  };

  /** Skipped, up to date, or to run (with its key); throws on an --only stage without its inputs. */
  const decide = (i: number): Decision => {
    const spec = order[i]!;
    const tag = `[${i + 1}/${order.length}] ${spec.id}`;
    const dir = stageDir(options.runDir, spec.id);
    const skipped = options.only !== undefined && !forced.has(spec.id);
    if (skipped && spec.deps.some((d) => !records.has(d))) {
      settle(i, { id: spec.id, status: 'skipped', seconds: 0 });
      return { kind: 'settled' };
    }
    const deps: Record<string, string> = {};
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
    const existing = readStageRecord(dir);
    const damaged = existing !== null && existing.key === keyed.key ? outputsProblem(dir, existing) : null;
    const valid = existing !== null && existing.key === keyed.key && damaged === null;
    if (skipped && !(damaged && inputsOfOnly.has(spec.id))) {
      if (valid) records.set(spec.id, existing);
      settle(i, { id: spec.id, status: 'skipped', seconds: 0, ...(valid ? { record: existing } : {}) });
      return { kind: 'settled' };
    }
    if (valid && !forced.has(spec.id)) {
      records.set(spec.id, existing);
      settle(i, { id: spec.id, status: 'cached', seconds: 0, record: existing });
      say(
        `${tag}: up to date (key ${keyed.key.slice(0, 12)}, ran ${formatDuration(existing.seconds)} on ${existing.finishedAt})`,
      );
      return { kind: 'settled' };
    }
    return { kind: 'run', keyed, deps, damaged, existing };
  };

  const start = async (i: number, d: Extract<Decision, { kind: 'run' }>): Promise<void> => {
    const spec = order[i]!;
    const tag = `[${i + 1}/${order.length}] ${spec.id}`;
    const dir = stageDir(options.runDir, spec.id);
    const { key } = d.keyed;
    if (d.damaged) say(`${tag}: finished before, but ${d.damaged}; running it again`);
    // Prepare the folder: keep a same-key partial run (the stage resumes), clear anything else.
    const keyPath = join(dir, KEY_FILE);
    const previousKey = existsSync(keyPath) ? readFileSync(keyPath, 'utf8').trim() : null;
    const resume = previousKey === key && !forced.has(spec.id) && d.existing === null;
    if (existsSync(dir) && !resume) rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(keyPath, `${key}\n`);

    const scale = estimatedDone > 0 ? actualDone / estimatedDone : 1;
    say(
      `${tag}: ${resume ? 'resuming' : 'running'}${spec.standIn ? ' (STAND-IN)' : ''} - est. ${formatDuration(spec.estimateSeconds * scale)}, run ETA ${formatDuration(remainingEstimate() * scale)}`,
    );
    const t0 = performance.now();
    const startedAt = new Date().toISOString();
    const depRecords = Object.fromEntries(spec.deps.map((id) => [id, records.get(id)!]));
    const ctx = stageContext({
      spec,
      runDir: options.runDir,
      deps: depRecords,
      signal: options.signal ?? new AbortController().signal,
      log: (line) => say(`  ${spec.id}: ${line}`),
      say,
      stream,
      ...(options.progressMode ? { progressMode: options.progressMode } : {}),
      hold,
    });
    const outcome = await execute({
      spec,
      key,
      deps: depRecords,
      ctx,
      hold,
      progressMode: workerProgress,
      write: (text) => stream.write(text),
    });
    if (aborted()) throw new InterruptedError('interrupted');
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
      parts: d.keyed.parts,
      code: d.keyed.code,
      provenance: provenance(),
      slice: spec.config ?? null,
      deps: d.deps,
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
    settle(i, { id: spec.id, status: 'ran', seconds, record });
    estimatedDone += spec.estimateSeconds;
    actualDone += seconds;
    say(`${tag}: done in ${formatDuration(seconds)}`);
  };

  for (;;) {
    // Settle what needs no work and start what fits, lowest stage number first, until nothing moves.
    let moved = true;
    while (moved && failure === null && !aborted()) {
      moved = false;
      for (const i of waiting) {
        if (failure !== null || aborted()) break;
        if (!order[i]!.deps.every((id) => settled.has(id))) continue;
        let d = decisions.get(i);
        if (!d) {
          try {
            d = decide(i);
          } catch (error) {
            failure = { error };
            break;
          }
          decisions.set(i, d);
        }
        if (d.kind === 'settled') {
          moved = true;
          continue;
        }
        if (running.size >= jobs) continue;
        waiting.delete(i);
        const job = start(i, d).catch((error: unknown) => {
          failure ??= { error };
        });
        running.set(
          i,
          job.finally(() => running.delete(i)),
        );
        moved = true;
      }
    }
    if (running.size === 0) break;
    await Promise.race(running.values());
  }
  if (failure !== null) throw (failure as { error: unknown }).error;
  if (aborted()) throw new InterruptedError('interrupted');
  if (waiting.size > 0) throw new Error(`internal: ${waiting.size} stages were never started`);
  return {
    runs: runs.filter((r): r is StageRun => r !== undefined),
    records,
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * The context a stage runs with, in this process or in a worker (stage-worker.ts): its folder,
 * its declared inputs only, its log, progress lines on `stream`, and its checkpoint.
 */
export function stageContext(o: {
  spec: StageSpec;
  runDir: string;
  deps: Readonly<Record<string, StageRecord>>;
  signal: AbortSignal;
  /** One line of the stage's own (without its id). */
  log: (line: string) => void;
  /** One whole line of the run (the hold notice). */
  say: (line: string) => void;
  stream: NodeJS.WritableStream & { isTTY?: boolean };
  progressMode?: ProgressMode;
  hold: string | undefined;
}): StageContext {
  const { spec, runDir } = o;
  const dir = stageDir(runDir, spec.id);
  const declared = (id: string) => {
    if (!spec.deps.includes(id)) throw new Error(`stage '${spec.id}' reads '${id}' but does not declare it`);
  };
  return {
    dir,
    runDir,
    signal: o.signal,
    dep: (id) => {
      declared(id);
      return o.deps[id]!;
    },
    depDir: (id) => {
      declared(id);
      return stageDir(runDir, id);
    },
    log: o.log,
    progress: (label, total, unit) =>
      createProgress({
        label: `  ${spec.id}: ${label}`,
        ...(total !== undefined ? { total } : {}),
        ...(unit ? { unit } : {}),
        stream: o.stream,
        ...(o.progressMode ? { mode: o.progressMode } : {}),
      }),
    checkpoint: (label) => holdAt(o.hold, spec.id, dir, label, o.say),
  };
}

/**
 * A stage's checkpoint: where fault-injection tests hold it (`hold` = its id) to kill the
 * process; elsewhere nothing.
 */
async function holdAt(
  hold: string | undefined,
  id: string,
  dir: string,
  label: string,
  say: (line: string) => void,
): Promise<void> {
  if (hold !== id) return;
  writeFileSync(join(dir, '.held'), `${label}\n`);
  say(`  ${id}: held at '${label}' (${HOLD_ENV}); waiting to be killed`);
  await keepAlive();
}
