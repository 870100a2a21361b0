/**
 * `pnpm reproduce` as a library call: resolve the config (profile, --quick, --config FILE,
 * --seeds, --backbones), check the paper profile's prerequisites, build the stage DAG and run
 * it in the run folder, then write `run.json` (the resolved config, each stage's status and wall
 * time, the invocation's wall time) beside `stages/`.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writeJsonAtomic } from '@dv/core';
import { checkPaperPrerequisites, PrerequisitesMissing } from './paper-prerequisites.js';
import { type ReproduceConfig, resolveReproduceConfig } from './reproduce-config.js';
import { type DagResult, runDag, stageDir } from './run-dag.js';
import { buildMiniStages } from './stages/build-stages.js';
import { REPORT_FILES } from './stages/report-stage.js';

export interface ReproduceOptions {
  profile?: 'mini' | 'paper';
  quick?: boolean;
  configFile?: string;
  seeds?: number;
  backbones?: 'default' | 'all';
  out?: string;
  from?: string;
  only?: string;
  signal?: AbortSignal;
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  command?: string[];
}

export interface ReproduceResult {
  outDir: string;
  config: ReproduceConfig;
  dag: DagResult;
  wallSeconds: number;
  report: { markdown: string; html: string; results: string } | null;
}

export function defaultRunDir(profile: 'mini' | 'paper', quick: boolean): string {
  return join('runs', `reproduce-${profile}${quick ? '-quick' : ''}`);
}

export async function runReproduce(o: ReproduceOptions = {}): Promise<ReproduceResult> {
  const started = performance.now();
  const profile = o.profile ?? 'mini';
  const config = resolveReproduceConfig({
    profile,
    ...(o.quick ? { quick: true } : {}),
    ...(o.configFile ? { configFile: o.configFile } : {}),
    ...(o.seeds !== undefined ? { seeds: o.seeds } : {}),
    ...(o.backbones ? { backbones: o.backbones } : {}),
  });
  const outDir = resolve(o.out ?? defaultRunDir(profile, Boolean(o.quick)));
  if (profile === 'paper') {
    const missing = await checkPaperPrerequisites(config);
    if (missing.length > 0) throw new PrerequisitesMissing(missing);
    throw new PrerequisitesMissing(
      [],
      'all prerequisites of the paper profile are present, but its paper-scale stages (endpoint synthesis over the Promptriever seeds, Hub backbones, GPU or scale-out training, FollowIR / InfoSearch / MAIR evaluation) are not built into dv reproduce yet; nothing was run',
    );
  }
  mkdirSync(outDir, { recursive: true });
  const stages = buildMiniStages(config);
  await writeJsonAtomic(join(outDir, 'config.json'), config);
  const dag = await runDag({
    runDir: outDir,
    stages,
    ...(o.from ? { from: o.from } : {}),
    ...(o.only ? { only: o.only } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.stream ? { stream: o.stream } : {}),
    ...(o.command ? { command: o.command } : {}),
  });
  const wallSeconds = (performance.now() - started) / 1000;
  await writeJsonAtomic(join(outDir, 'run.json'), {
    profile,
    variant: config.variant,
    command: o.command ?? null,
    finishedAt: new Date().toISOString(),
    wallSeconds,
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
  return { outDir, config, dag, wallSeconds, report };
}
