/**
 * `dv reproduce` (`pnpm reproduce`): the whole reproduction as a cached DAG of stages. Thin over
 * runReproduce (src/reproduce/): parses options, maps errors to exit codes (0 done, 1 failed or
 * prerequisites missing, 2 bad usage, 3 partial: the paper profile stopped after the scale-out
 * engine exports, 130 interrupted), prints where things went.
 */
import { formatDuration } from '@dv/core';
import { MiniWorldOptions } from '@dv/data';
import { z } from 'zod';
import { cliEntry, defineCommand, enumOption, schemaFlags, stringOption, UsageError } from '../cli-kit.js';
import { renderExplanation } from '../reproduce/explain-dag.js';
import { defaultJobs } from '../reproduce/jobs.js';
import { PrerequisitesMissing } from '../reproduce/paper-prerequisites.js';
import { InterruptedError, StageSelectionError } from '../reproduce/run-dag.js';
import { explainReproduce, runReproduce } from '../reproduce/run-reproduce.js';
import { STAGE_GROUPS } from '../reproduce/stage.js';

/** `--seeds N` (a count) or `--seeds A,B,C` (distinct integer seeds). */
function seedsOption(value: string | undefined): number | number[] | undefined {
  if (value === undefined) return undefined;
  const parts = value.split(',').map((p) => p.trim());
  if (!parts.every((p) => /^-?\d+$/.test(p)))
    throw new UsageError(`--seeds takes a count or a comma-separated list of integers (got '${value}')`);
  const nums = parts.map(Number);
  if (parts.length === 1) {
    if (nums[0]! < 1) throw new UsageError(`--seeds N needs N >= 1 (got ${nums[0]})`);
    return nums[0]!;
  }
  if (new Set(nums).size !== nums.length) throw new UsageError(`--seeds lists a seed twice ('${value}')`);
  return nums;
}

/** `--jobs N`: a positive integer. */
function jobsOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim()) || Number(value) < 1)
    throw new UsageError(`--jobs takes a positive integer (got '${value}')`);
  return Number(value);
}

/** The world seed: the mini world's own seed setting (absent: the profile's). */
const ReproduceSettings = z.object({ worldSeed: MiniWorldOptions.shape.seed.unwrap().optional() });

export const reproduceCommand = defineCommand({
  name: 'reproduce',
  summary: 'run the whole reproduction end to end (cached DAG of stages) and write the report',
  usage:
    '[--profile mini|paper] [--quick] [--config FILE] [--out DIR] [--from STAGE | --only STAGE] [--explain]',
  description: `Runs the reproduction as a DAG of cached stages
(mini: world -> synth -> mixes -> pretrain -> train -> eval -> report; paper: seeds, benchmarks
and backbones in place of world and pretrain), each in
<out>/stages/<id>/ with its outputs and stage.json (key = hash of its config slice, its inputs'
digests and the code digests of the packages that compute it: changed code reruns it). A rerun
skips every stage whose key still matches; an interrupted run (Ctrl-C, kill -9) resumes where it
stopped. --explain runs nothing: it says per stage whether it is up to date, stale (and which
part of its key changed) or missing, and what a run would do. Writes <out>/stages/report/report.md, report.html (self-contained) and
results.json, and <out>/run.json (status and wall time per stage). 'dv verdicts RUN RUN...'
compares the verdicts of several runs.
Profiles: mini (default: no network, no GPU; <= 25 min on 2 cores; --quick: small sizes, 1 seed,
<= 3 min) and paper (checks its prerequisites - endpoint, datasets, models, GPU or scale-out - and
lists everything missing; then Promptriever seeds -> endpoint synthesis -> mixes -> Hub backbones
-> training, or the scale-out engine export and a stop (exit 3) -> FollowIR / InfoSearch / MAIR
-> the report; see src/reproduce/paper-config.ts).
STAGE for --from/--only: a group (${STAGE_GROUPS.join(', ')}), a stage id (e.g. train/mini-bert/ins-dv/seed-13)
or an id prefix (e.g. eval/mini-bert).`,
  flags: schemaFlags(ReproduceSettings, {
    'world-seed': {
      path: 'worldSeed',
      valueName: 'S',
      help: 'seed of the mini world (a second world of the same sizes)',
    },
  }),
  options: {
    profile: { type: 'string', description: 'mini | paper', valueName: 'NAME', default: 'mini' },
    quick: { type: 'boolean', description: 'small sizes and 1 seed (smoke test, CI)' },
    config: {
      type: 'string',
      description: 'JSON merged over the profile (see src/reproduce/reproduce-config.ts)',
      valueName: 'FILE',
    },
    backbones: {
      type: 'string',
      description: "'all' adds the second mini backbone (mini-gte); paper: every paper.models entry",
      valueName: 'default|all',
    },
    seeds: {
      type: 'string',
      description: "fine-tuning seeds: a count N (the profile's first N) or a list A,B,C",
      valueName: 'N|LIST',
    },
    out: {
      type: 'string',
      description: 'run folder (default runs/reproduce-<profile>[-quick])',
      valueName: 'DIR',
    },
    from: { type: 'string', description: 'redo STAGE and everything after it', valueName: 'STAGE' },
    only: {
      type: 'string',
      description: 'redo only STAGE (its inputs must be finished)',
      valueName: 'STAGE',
    },
    jobs: {
      type: 'string',
      description:
        'stages run at once, each in a worker process (default: 2 on mini with 2+ cores, 1 on paper)',
      valueName: 'N',
    },
    explain: {
      type: 'boolean',
      description: 'run nothing: per stage up to date / stale (why) / missing, and what a run would do',
    },
  },
  async run(ctx) {
    const profile = enumOption(ctx, 'profile', ['mini', 'paper'] as const) ?? 'mini';
    const backbones = enumOption(ctx, 'backbones', ['all', 'default'] as const);
    const seeds = seedsOption(stringOption(ctx, 'seeds'));
    // workers are this CLI started again: inside another program (runCommand as a library) the
    // stages run in this process
    const entry = cliEntry();
    const asked = jobsOption(stringOption(ctx, 'jobs'));
    const jobs = entry === undefined ? 1 : (asked ?? defaultJobs(profile));
    const { worldSeed } = ReproduceSettings.parse(ctx.settings);
    const str = (k: 'config' | 'out' | 'from' | 'only') => stringOption(ctx, k);
    // what to run: the profile, its sizes, the folder and the stage selection (run and --explain alike)
    const selection = {
      profile,
      ...(ctx.values.quick ? { quick: true } : {}),
      ...(str('config') ? { configFile: str('config') } : {}),
      ...(seeds !== undefined ? { seeds } : {}),
      ...(worldSeed !== undefined ? { worldSeed } : {}),
      ...(backbones ? { backbones } : {}),
      ...(str('out') ? { out: str('out') } : {}),
      ...(str('from') ? { from: str('from') } : {}),
      ...(str('only') ? { only: str('only') } : {}),
    };
    if (ctx.values.explain) {
      try {
        const e = explainReproduce(selection);
        ctx.stdout.write(`run folder: ${e.outDir} (${e.config.profile}, ${e.config.variant})\n`);
        ctx.stdout.write(`${renderExplanation(e.stages)}\n`);
        return 0;
      } catch (err) {
        if (err instanceof StageSelectionError) throw new UsageError(err.message);
        throw err;
      }
    }
    const onSigint = () => {
      ctx.stderr.write('\ninterrupted: finished stages are kept; rerun the same command to resume.\n');
      process.exit(130);
    };
    process.once('SIGINT', onSigint);
    try {
      const r = await runReproduce({
        ...selection,
        stream: ctx.stderr,
        command: ctx.commandLine,
        jobs,
        ...(entry !== undefined ? { workerEntry: entry } : {}),
      });
      const ran = r.dag.runs.filter((s) => s.status === 'ran');
      const cached = r.dag.runs.filter((s) => s.status === 'cached');
      ctx.stdout.write(
        `reproduce (${r.config.profile}, ${r.config.variant}): ${ran.length} stages ran${jobs > 1 ? ` (up to ${jobs} at once)` : ''}, ${cached.length} up to date, in ${formatDuration(r.wallSeconds)}\n`,
      );
      const verdicts = r.dag.records.get('report')?.summary.verdicts as Record<string, string> | undefined;
      if (verdicts) for (const [k, v] of Object.entries(verdicts)) ctx.stdout.write(`  ${k}: ${v}\n`);
      const standIns = [...r.dag.records.values()].filter((x) => x.standIn);
      if (standIns.length)
        ctx.stdout.write(
          `  WARNING: ${standIns.length} stages are stand-ins (${standIns[0]!.standIn}); the numbers are not results\n`,
        );
      if (r.report)
        ctx.stdout.write(`report: ${r.report.markdown}\n        ${r.report.html}\nrun folder: ${r.outDir}\n`);
      else ctx.stdout.write(`run folder: ${r.outDir}\n`);
      if (r.scaleOut) {
        // stopped by design before training: partial (3), with what to launch
        ctx.stdout.write(`${r.scaleOut.instructions.join('\n')}\n`);
        return 3;
      }
      return 0;
    } catch (err) {
      if (err instanceof StageSelectionError) throw new UsageError(err.message);
      if (err instanceof InterruptedError) {
        ctx.stderr.write('interrupted; rerun to resume\n');
        return 130;
      }
      if (err instanceof PrerequisitesMissing) {
        ctx.stderr.write(`error: ${err.message}\n`);
        return 1;
      }
      throw err;
    } finally {
      process.removeListener('SIGINT', onSigint);
    }
  },
});
