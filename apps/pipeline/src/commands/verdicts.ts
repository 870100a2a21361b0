/**
 * `dv verdicts RUN RUN...`: which findings' verdicts hold across reproduction runs (a full run,
 * a second world, a fresh seed set), from each run's results.json. Thin over
 * reproduce/report/across-runs.ts.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { DataError, describeZodIssues } from '@dv/core';
import { defineCommand, UsageError } from '../cli-kit.js';
import { RunFindings, renderAcrossRuns, verdictsAcrossRuns } from '../reproduce/report/across-runs.js';

const RESULTS = join('stages', 'report', 'results.json');

/** A run folder's results.json, or the file itself. */
const resultsFile = (arg: string) =>
  existsSync(arg) && statSync(arg).isDirectory() ? join(arg, RESULTS) : arg;

/** A run's results.json, checked. */
function readRun(arg: string): RunFindings {
  const file = resultsFile(arg);
  if (!existsSync(file))
    throw new DataError(
      existsSync(arg)
        ? `no ${RESULTS}: not a finished reproduce run (its report stage has not run)`
        : 'not found',
      file === arg ? arg : file,
    );
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new DataError(`not valid JSON: ${(err as Error).message}`, file);
  }
  const parsed = RunFindings.safeParse(json);
  if (!parsed.success)
    throw new DataError(`not a reproduce results.json: ${describeZodIssues(parsed.error.issues)}`, file);
  return parsed.data;
}

export const verdictsCommand = defineCommand({
  name: 'verdicts',
  summary: 'which findings hold across reproduce runs (their results.json, side by side)',
  usage: 'RUN RUN... [--json]',
  description: `Reads the verdicts each run's report computed (RUN is a 'dv reproduce --out' folder or
its stages/report/results.json) and puts them side by side, per finding and per claim:
'reproduced in all', 'not reproduced in all', 'inconclusive in all' or 'differs' (with the
counts), and whether each claim's mean difference has the claimed sign in every run. Runs of the
same report code only (the same findings and claims). --json prints the table's data.`,
  allowPositionals: true,
  options: {
    json: { type: 'boolean', description: 'print the comparison as JSON' },
  },
  async run(ctx) {
    if (ctx.positionals.length < 2) throw new UsageError('give at least two run folders RUN RUN...');
    const runs = ctx.positionals.map(readRun);
    const profiles = new Set(runs.map((r) => `${r.profile}/${r.variant}`));
    if (profiles.size > 1)
      throw new UsageError(
        `the runs are of different profiles (${[...profiles].join(', ')}): compare like with like`,
      );
    let findings: ReturnType<typeof verdictsAcrossRuns>;
    try {
      findings = verdictsAcrossRuns(runs, ctx.positionals.map(resultsFile));
    } catch (err) {
      throw new DataError((err as Error).message);
    }
    const labels = ctx.positionals.map((p) =>
      basename(p.replace(/[/\\]stages[/\\]report[/\\]results\.json$/, '')),
    );
    if (ctx.values.json === true)
      ctx.stdout.write(`${JSON.stringify({ runs: ctx.positionals, findings }, null, 2)}\n`);
    else ctx.stdout.write(`${renderAcrossRuns(labels, findings)}\n`);
    return 0;
  },
});
