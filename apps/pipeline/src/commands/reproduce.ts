/**
 * `dv reproduce` (`pnpm reproduce`): the whole reproduction as a cached DAG of stages. Thin over
 * runReproduce (src/reproduce/): parses options, maps errors to exit codes (0 done, 1 failed or
 * prerequisites missing, 2 bad usage, 3 not built, 130 interrupted), prints where things went.
 */
import { formatDuration } from '@dv/core';
import {
  type Command,
  enumOption,
  NotBuiltError,
  numberOption,
  stringOption,
  UsageError,
} from '../cli-kit.js';
import { PrerequisitesMissing } from '../reproduce/paper-prerequisites.js';
import { InterruptedError, StageSelectionError } from '../reproduce/run-dag.js';
import { runReproduce } from '../reproduce/run-reproduce.js';
import { STAGE_GROUPS } from '../reproduce/stage.js';

export const reproduceCommand: Command = {
  name: 'reproduce',
  summary: 'run the whole reproduction end to end (cached DAG of stages) and write the report',
  usage: '[--profile mini|paper] [--quick] [--config FILE] [--out DIR] [--from STAGE | --only STAGE]',
  description: `Runs the reproduction as a DAG of cached stages (${STAGE_GROUPS.join(' -> ')}), each in
<out>/stages/<id>/ with its outputs and stage.json (key = hash of its config slice and its inputs'
digests). A rerun skips every stage whose key still matches; an interrupted run (Ctrl-C, kill -9)
resumes where it stopped. Writes <out>/stages/report/report.md, report.html (self-contained) and
results.json, and <out>/run.json (status and wall time per stage).
Profiles: mini (default: no network, no GPU; <= 20 min on 2 cores; --quick: small sizes, 1 seed,
<= 3 min) and paper (checks its prerequisites - endpoint, datasets, models, GPU or scale-out - and
lists everything missing).
STAGE for --from/--only: a group (${STAGE_GROUPS.join(', ')}), a stage id (e.g. train/mini-bert/ins-dv/seed-13)
or an id prefix (e.g. eval/mini-bert).`,
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
      description: "'all' adds the second mini backbone (mini-gte)",
      valueName: 'default|all',
    },
    seeds: { type: 'string', description: 'number of fine-tuning seeds', valueName: 'N' },
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
  },
  async run(ctx) {
    const profile = enumOption(ctx, 'profile', ['mini', 'paper'] as const) ?? 'mini';
    const backbones = enumOption(ctx, 'backbones', ['all', 'default'] as const);
    const seeds = numberOption(ctx, 'seeds', { integer: true, positive: true });
    const str = (k: string) => stringOption(ctx, k);
    const onSigint = () => {
      ctx.stderr.write('\ninterrupted: finished stages are kept; rerun the same command to resume.\n');
      process.exit(130);
    };
    process.once('SIGINT', onSigint);
    try {
      const r = await runReproduce({
        profile,
        ...(ctx.values.quick ? { quick: true } : {}),
        ...(str('config') ? { configFile: str('config') } : {}),
        ...(seeds !== undefined ? { seeds } : {}),
        ...(backbones ? { backbones } : {}),
        ...(str('out') ? { out: str('out') } : {}),
        ...(str('from') ? { from: str('from') } : {}),
        ...(str('only') ? { only: str('only') } : {}),
        stream: ctx.stderr,
        command: ['dv', 'reproduce', ...process.argv.slice(3)],
      });
      const ran = r.dag.runs.filter((s) => s.status === 'ran');
      const cached = r.dag.runs.filter((s) => s.status === 'cached');
      ctx.stdout.write(
        `reproduce (${r.config.profile}, ${r.config.variant}): ${ran.length} stages ran, ${cached.length} up to date, in ${formatDuration(r.wallSeconds)}\n`,
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
      return 0;
    } catch (err) {
      if (err instanceof StageSelectionError) throw new UsageError(err.message);
      if (err instanceof InterruptedError) {
        ctx.stderr.write('interrupted; rerun to resume\n');
        return 130;
      }
      if (err instanceof PrerequisitesMissing) {
        if (err.missing.length === 0) throw new NotBuiltError(err.message);
        ctx.stderr.write(`error: ${err.message}\n`);
        return 1;
      }
      throw err;
    } finally {
      process.removeListener('SIGINT', onSigint);
    }
  },
};
