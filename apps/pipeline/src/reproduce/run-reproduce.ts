/**
 * `pnpm reproduce` as a library call: resolve the config (profile, --quick, --config FILE,
 * --seeds, --backbones), check the paper profile's prerequisites, build the stage DAG and run
 * it in the run folder, then write `run.json` (the resolved config, each stage's status and wall
 * time, the invocation's wall time) beside `stages/`. The run folder goes through the one
 * output-folder guard and is locked for the whole run (`.dv-lock`: one writer per folder;
 * `--explain` reads without the lock).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { RunConfig } from '@dv/core';
import { acquireOutputLock, guardOutputDir, writeJsonAtomic } from '@dv/core';
import { explainDag, type StageExplanation } from './explain-dag.js';
import { checkPaperPrerequisites, PrerequisitesMissing } from './paper-prerequisites.js';
import { configDifferences, resolveReproduceConfig } from './reproduce-config.js';
import { type DagResult, runDag, stageDir } from './run-dag.js';
import type { StageSpec } from './stage.js';
import { createStagePool } from './stage-pool.js';
import { buildMiniStages } from './stages/build-stages.js';
import { buildPaperStages } from './stages/paper/build-paper-stages.js';
import { REPORT_FILES } from './stages/report-stage.js';

export interface ReproduceOptions {
  profile?: 'mini' | 'paper';
  quick?: boolean;
  configFile?: string;
  seeds?: number | readonly number[];
  worldSeed?: number;
  backbones?: 'default' | 'all';
  out?: string;
  from?: string;
  only?: string;
  signal?: AbortSignal;
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  command?: string[];
  /**
   * Stages run at once (default 1: in this process, one after the other). Above 1 each stage runs
   * in a worker process started from `workerEntry` (stage-pool.ts); `dv reproduce` passes
   * `defaultJobs` (jobs.ts) and its own entry.
   */
  jobs?: number;
  /** The dv CLI entry script the workers start (`process.argv[1]` of `dv reproduce`). */
  workerEntry?: string;
}

export interface ReproduceResult {
  outDir: string;
  config: RunConfig;
  dag: DagResult;
  wallSeconds: number;
  report: { markdown: string; html: string; results: string } | null;
  /**
   * Paper profile with compute = scale-out and no launcher found (scale-out-launcher.ts): the DAG
   * stopped after exporting each training run for the engine; what to launch, and how to
   * continue (`instructions`, one line each). With a launcher the engine trains as a stage and
   * the run ends with the report, as the other computes do.
   */
  scaleOut?: { instructions: string[]; launchScripts: string[] };
}

export function defaultRunDir(profile: 'mini' | 'paper', quick: boolean): string {
  return join('runs', `reproduce-${profile}${quick ? '-quick' : ''}`);
}

/** The stages of a run config: the mini DAG, or the paper profile's (and whether it stops for scale-out). */
export function stagesOf(config: RunConfig): { stages: StageSpec[]; scaleOut: boolean } {
  if (config.profile === 'paper') return buildPaperStages(config);
  return { stages: buildMiniStages(config), scaleOut: false };
}

/** The config a `pnpm reproduce` invocation resolves to (profile, --quick, --config, --seeds, --backbones). */
function resolveConfigOf(o: ReproduceOptions): RunConfig {
  const profile = o.profile ?? 'mini';
  return resolveReproduceConfig({
    profile,
    ...(o.quick ? { quick: true } : {}),
    ...(o.configFile ? { configFile: o.configFile } : {}),
    ...(o.seeds !== undefined ? { seeds: o.seeds } : {}),
    ...(o.worldSeed !== undefined ? { worldSeed: o.worldSeed } : {}),
    ...(o.backbones ? { backbones: o.backbones } : {}),
  });
}

/**
 * `pnpm reproduce --explain`: per stage, up to date / stale (which key part changed) / missing /
 * pending, and what a run would do; nothing is run or written (explain-dag.ts).
 */
export function explainReproduce(o: ReproduceOptions = {}): {
  outDir: string;
  config: RunConfig;
  stages: StageExplanation[];
} {
  const profile = o.profile ?? 'mini';
  const config = resolveConfigOf(o);
  const outDir = resolve(o.out ?? defaultRunDir(profile, Boolean(o.quick)));
  const { stages } = stagesOf(config);
  return {
    outDir,
    config,
    stages: explainDag({
      runDir: outDir,
      stages,
      ...(o.from ? { from: o.from } : {}),
      ...(o.only ? { only: o.only } : {}),
    }),
  };
}

/**
 * `--out` holding a run of another config: the DAG keeps every stage whose key is unchanged and
 * reruns (replacing in place) the ones the changed fields reach, which is what an edited
 * `--config` wants; but pointed at another experiment's folder by mistake it would overwrite
 * that experiment's models and report. So it is said up front, naming the changed fields.
 */
function noteOtherConfig(outDir: string, config: RunConfig, stream: NodeJS.WritableStream): void {
  const path = join(outDir, 'config.json');
  if (!existsSync(path)) return;
  let previous: unknown;
  try {
    previous = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return; // not ours to judge: the stage records decide what is reused
  }
  const changed = configDifferences(previous, JSON.parse(JSON.stringify(config)));
  if (changed.length === 0) return;
  const shown = changed.length > 8 ? [...changed.slice(0, 8), `${changed.length - 8} more`] : changed;
  stream.write(
    `note: ${outDir} holds a run of another config (differs in ${shown.join(', ')}); ` +
      'the stages these reach run again and replace their results there, the rest are reused ' +
      '(--explain shows which; give another --out to keep both runs)\n',
  );
}

export async function runReproduce(o: ReproduceOptions = {}): Promise<ReproduceResult> {
  const started = performance.now();
  const profile = o.profile ?? 'mini';
  const config = resolveConfigOf(o);
  const outDir = resolve(o.out ?? defaultRunDir(profile, Boolean(o.quick)));
  // the one output-folder guard (kernel file systems, a file as --out: issue 25)
  guardOutputDir(outDir);
  if (profile === 'paper') {
    const missing = await checkPaperPrerequisites(config);
    if (missing.length > 0) throw new PrerequisitesMissing(missing);
  }
  const { stages, scaleOut } = stagesOf(config);
  const jobs = o.jobs ?? 1;
  if (jobs > 1 && !o.workerEntry) throw new Error('internal: jobs > 1 needs the worker entry (workerEntry)');
  // one reproduction per run folder: a second exits 1 at once naming this PID (released below)
  const lock = acquireOutputLock(outDir, { command: `dv reproduce --out ${outDir}` });
  const pool =
    jobs > 1 ? createStagePool({ entry: o.workerEntry!, ...(o.signal ? { signal: o.signal } : {}) }) : null;
  try {
    noteOtherConfig(outDir, config, o.stream ?? process.stderr);
    await writeJsonAtomic(join(outDir, 'config.json'), config);
    const dag = await runDag({
      runDir: outDir,
      stages,
      ...(o.from ? { from: o.from } : {}),
      ...(o.only ? { only: o.only } : {}),
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.stream ? { stream: o.stream } : {}),
      ...(o.command ? { command: o.command } : {}),
      ...(pool ? { jobs, executor: pool.execute } : {}),
    });
    const wallSeconds = (performance.now() - started) / 1000;
    await writeJsonAtomic(join(outDir, 'run.json'), {
      profile,
      variant: config.variant,
      command: o.command ?? null,
      finishedAt: new Date().toISOString(),
      wallSeconds,
      jobs,
      stages: dag.runs.map((r) => ({
        id: r.id,
        status: r.status,
        seconds: r.record?.seconds ?? null,
        thisRun: r.seconds,
      })),
    });
    const reportDir = stageDir(outDir, 'report');
    const report = dag.records.has('report')
      ? {
          markdown: join(reportDir, REPORT_FILES.markdown),
          html: join(reportDir, REPORT_FILES.html),
          results: join(reportDir, REPORT_FILES.results),
        }
      : null;
    if (!scaleOut) return { outDir, config, dag, wallSeconds, report };
    const launchScripts = dag.runs
      .filter((r) => r.record?.group === 'train' && typeof r.record.summary.launchScript === 'string')
      .map((r) => join(stageDir(outDir, r.id), String(r.record!.summary.launchScript)));
    const engine = config.paper?.scaleOut?.engine ?? 'sentence-transformers';
    return {
      outDir,
      config,
      dag,
      wallSeconds,
      report,
      scaleOut: {
        launchScripts,
        instructions: [
          `training is handed to ${engine} (paper.compute = scale-out): ${launchScripts.length} exports, one per backbone x mix x seed`,
          ...launchScripts.map((p) => `  bash ${p}`),
          'each export folder has a README.md (what differs from dv train run) and the launch line in launch.sh;',
          'evaluate the trained models with `dv eval run --model tfjs:DIR --benchmark followir|infosearch|mair`, or set paper.compute to "gpu" to train and evaluate here',
          ...(engine === 'sentence-transformers'
            ? [
                'or let this run launch the engine and evaluate: torchrun in $VIRTUAL_ENV/bin or on PATH with paper.scaleOut.command "torchrun" (or a path to it), or a paper.scaleOut.launcher command line',
              ]
            : []),
        ],
      },
    };
  } finally {
    await pool?.close();
    lock.release();
  }
}
