/**
 * `dv synth ...`: polarity-reversal synthesis (@dv/synth). Thin over the library: flags become
 * a partial synthesis config over the preset, one `SynthesisRunConfig` parse validates it,
 * `createSynthesisRun` picks the backend and judge (its registries) and runs; this file prints
 * the events, where the outputs went, a summary, and maps the outcome to an exit code.
 *
 *   dv synth --seeds FILE --out DIR [--backend NAME] ...  (backends: @dv/synth synthesisBackends)
 *   dv synth merge --seeds FILE --out DIR SHARD_DIR...
 *   dv synth mix --from DIR --out DIR --budget N [--general FILE] [--formats ...]
 */
import { resolve } from 'node:path';
import {
  DataMix,
  DEFAULT_SEED,
  guardOutputDir,
  type PresetName,
  prepareOutputDir,
  presets,
  type SynthesisConfigInput,
  SynthesisRunConfig,
} from '@dv/core';
import {
  type BatchImportReport,
  createSynthesisRun,
  mergeShards,
  type RunSummary,
  SynthesisConfigError,
  type SynthesisRun,
  synthesisBackendNames,
  synthesisBackends,
  synthesisConfigFromPreset,
  synthesisJudgeNames,
  synthesisJudges,
  type TrainerFormat,
  trainerFormats,
  writeMixes,
} from '@dv/synth';
import {
  type Command,
  type CommandContext,
  EXIT,
  enumOption,
  listOption,
  type NumberSpec,
  numberOption,
  requireString,
  shardOption,
  stringOption,
  UsageError,
  urlListOption,
} from '../cli-kit.js';
import { lockOutputFolder } from '../output-folder.js';
import { batchCommand } from './synth-batch.js';

/** Exit code of a run the cost cap stopped: outputs are consistent but seeds remain pending. */
export const EXIT_INCOMPLETE = EXIT.partial;

/** Config fields as the user knows them (flags), for validation messages. */
const FLAG_OF: Record<string, string> = {
  model: '--model',
  baseURLs: '--base-url',
  apiKeyEnv: '--api-key-env',
  temperature: '--temperature',
  maxTokens: '--max-tokens',
  concurrency: '--concurrency',
  requestTimeoutMs: '--timeout-ms',
  maxRetries: '--max-retries',
  templateId: '--template',
  costCapUsd: '--cost-cap',
  pricing: '--price-in / --price-out',
  judge: '--judge',
  judgeThreshold: '--judge-threshold',
  batchOutputs: '--batch-output',
  seedsPath: '--seeds',
  outDir: '--out',
  shard: '--shard',
  limit: '--limit',
};

const str = stringOption;
const POSITIVE_INT: NumberSpec = { integer: true, positive: true };
/** Every numeric option of `dv synth` and `dv synth mix`, with its allowed range. */
const NUMBER_SPECS: Record<string, NumberSpec> = {
  temperature: { min: 0, max: 2 },
  'max-tokens': POSITIVE_INT,
  concurrency: POSITIVE_INT,
  'timeout-ms': POSITIVE_INT,
  'max-retries': { integer: true, min: 0 },
  'judge-threshold': {},
  'cost-cap': { positive: true },
  'price-in': { min: 0 },
  'price-out': { min: 0 },
  limit: POSITIVE_INT,
  budget: POSITIVE_INT,
  'instruction-examples': { integer: true, min: 0 },
  seed: { integer: true, min: 0 },
  'max-negatives': POSITIVE_INT,
};
const num = (ctx: CommandContext, name: string): number | undefined =>
  numberOption(ctx, name, NUMBER_SPECS[name] ?? {});
const list = listOption;
const presetNames = Object.keys(presets) as PresetName[];
const flagOf = (field: string) => FLAG_OF[field] ?? field;
/** The config key a zod issue is about: `synthesis.temperature` -> `temperature`. */
const configField = (path: PropertyKey[]) =>
  String((path[0] === 'synthesis' ? path[1] : path[0]) ?? 'config');
/** Drops the keys whose value is undefined (a flag not given), so the preset's value stays. */
function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

export function formatSummary(s: RunSummary): string {
  const lines: string[] = [];
  const stopped = s.run.stoppedBy ? `  (stopped early: ${s.run.stoppedBy})` : '';
  lines.push(`synth: ${s.seeds} seeds, ${s.recorded} recorded, ${s.pending} pending${stopped}`);
  lines.push(
    `  accepted ${s.accepted} (${pct(s.acceptanceRate)})  none ${s.none}  rejected ${s.rejected}  failed ${s.failed}` +
      (s.run.cachedThisRun ? `  (${s.run.cachedThisRun} from cache)` : ''),
  );
  const reasons = Object.entries(s.byReason).sort((a, b) => b[1] - a[1]);
  if (reasons.length) lines.push(`  by reason: ${reasons.map(([r, n]) => `${r} ${n}`).join(', ')}`);
  const levers = Object.entries(s.byLever).sort((a, b) => b[1] - a[1]);
  if (levers.length) lines.push(`  accepted by lever: ${levers.map(([r, n]) => `${r} ${n}`).join(', ')}`);
  const v = s.verification;
  if (v.judged)
    lines.push(
      `  verification (${v.judge}): ${v.passed}/${v.judged} passed (${pct(v.passRate ?? 0)}), mean score ${(v.meanScore ?? 0).toFixed(3)}`,
    );
  lines.push(
    `  tokens ${s.tokens.totalTokens} (prompt ${s.tokens.promptTokens}, completion ${s.tokens.completionTokens})` +
      (s.costUsd !== null ? `  cost $${s.costUsd.toFixed(4)}` : ''),
  );
  if (s.examples.length) {
    lines.push('  examples:');
    for (const e of s.examples) {
      lines.push(`    [${e.seedId}] q: ${e.query}`);
      lines.push(`      I : ${e.instruction}`);
      lines.push(
        `      I': ${e.newInstruction ?? '-'}  [${e.status}${e.reason ? `: ${e.reason}` : ''}${e.lever ? `, lever ${e.lever}` : ''}${e.verificationScore !== undefined ? `, verify ${e.verificationScore}` : ''}]`,
      );
    }
  }
  lines.push(`wrote ${Object.values(s.files).join(', ')} and manifest.json in ${s.outDir}`);
  return `${lines.join('\n')}\n`;
}

const runOptions = {
  seeds: { type: 'string', description: 'seed examples (SeedExample JSONL)', valueName: 'FILE' },
  out: { type: 'string', description: 'output folder (resumes what is already there)', valueName: 'DIR' },
  backend: {
    type: 'string',
    description: synthesisBackendNames.join(' | '),
    valueName: 'NAME',
    default: 'offline',
  },
  preset: {
    type: 'string',
    description: 'synthesis defaults from a preset: mini | paper',
    valueName: 'NAME',
    default: 'mini',
  },
  model: { type: 'string', description: 'model name sent to the endpoint', valueName: 'NAME' },
  'base-url': {
    type: 'string',
    multiple: true,
    description: 'OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (repeat for round-robin)',
    valueName: 'URL',
  },
  'api-key-env': {
    type: 'string',
    description: 'environment variable holding the API key',
    valueName: 'NAME',
  },
  temperature: { type: 'string', description: 'sampling temperature', valueName: 'T' },
  'max-tokens': { type: 'string', description: 'max completion tokens', valueName: 'N' },
  concurrency: {
    type: 'string',
    description: "requests in flight (default: the preset's; 16 for openai under mini)",
    valueName: 'N',
  },
  'timeout-ms': { type: 'string', description: 'per-request timeout', valueName: 'MS' },
  'max-retries': { type: 'string', description: 'retries on 429/5xx/timeouts', valueName: 'N' },
  template: { type: 'string', description: 'prompt template id', valueName: 'ID' },
  judge: {
    type: 'string',
    description: `verification: ${Object.entries(synthesisJudges)
      .map(([n, j]) => `${n} (${j.description}, threshold ${j.defaultThreshold})`)
      .join(' | ')} | none`,
    valueName: 'NAME',
  },
  'judge-threshold': { type: 'string', description: 'pass threshold of the judge', valueName: 'X' },
  'cost-cap': {
    type: 'string',
    description: 'stop dispatching once this many USD are spent',
    valueName: 'USD',
  },
  'price-in': { type: 'string', description: 'USD per million prompt tokens', valueName: 'USD' },
  'price-out': { type: 'string', description: 'USD per million completion tokens', valueName: 'USD' },
  shard: { type: 'string', description: 'process shard i of n (0-based), e.g. 0/4', valueName: 'i/n' },
  limit: { type: 'string', description: 'process at most N seeds (of the shard)', valueName: 'N' },
  'retry-failed': { type: 'boolean', description: 'redo seeds whose record is "failed"' },
  json: {
    type: 'boolean',
    description: 'print the run summary (summary.json) as one JSON object; notes stay on stderr',
  },
  'batch-output': {
    type: 'string',
    multiple: true,
    description: 'batch-import: output file(s) of the Batch API / vLLM run_batch',
    valueName: 'FILE',
  },
} as const;

const mergeCommand: Command = {
  name: 'merge',
  summary: 'merge the output folders of a sharded run by content key',
  usage: '--seeds FILE --out DIR SHARD_DIR...',
  allowPositionals: true,
  options: {
    seeds: { type: 'string', description: 'the seed file all shards read', valueName: 'FILE' },
    out: { type: 'string', description: 'merged output folder', valueName: 'DIR' },
  },
  async run(ctx) {
    if (ctx.positionals.length === 0) throw new UsageError('give the shard folders to merge');
    const seedsPath = requireString(ctx, 'seeds');
    const s = await mergeShards({
      seedsPath,
      outDir: guardOutputDir(requireString(ctx, 'out')),
      shardDirs: ctx.positionals,
      command: ['dv', 'synth', 'merge', ...process.argv.slice(4)],
    });
    ctx.stdout.write(formatSummary(s));
    if (s.pending > 0) ctx.stderr.write(`warning: ${s.pending} seeds have no record in any shard\n`);
    return 0;
  },
};

const mixCommand: Command = {
  name: 'mix',
  summary: 'build matched-budget mixes (Ins-orig, Ins-DV, All-orig, All-DV) and trainer exports',
  usage: '--from SYNTH_DIR --out DIR --budget N|--preset NAME [--general FILE]',
  description: `Builds the paper's four matched-budget mixes from a synth output folder:
Ins-orig = N original examples; Ins-DV = N/2 originals + their N/2 complements; All-orig = K
originals + (N-K) general; All-DV = K/2 pairs + the same (N-K) general (K defaults to N/2).
Counts are checked. Writes <out>/<mix>/train.jsonl and, with --formats, the Tevatron,
sentence-transformers and FlagEmbedding files.`,
  options: {
    from: { type: 'string', description: 'synth output folder', valueName: 'DIR' },
    out: { type: 'string', description: 'output folder', valueName: 'DIR' },
    budget: {
      type: 'string',
      description: 'N, examples per mix (default: the --preset data slice)',
      valueName: 'N',
    },
    preset: {
      type: 'string',
      description: `${Object.keys(presets).join(' | ')}: budget and K from the preset's mixes slice (RunConfig.mixes)`,
      valueName: 'NAME',
    },
    'instruction-examples': {
      type: 'string',
      description: 'K, instruction examples in All-* (default N/2)',
      valueName: 'K',
    },
    general: {
      type: 'string',
      description: 'general (no-instruction) TrainingExample JSONL',
      valueName: 'FILE',
    },
    mixes: {
      type: 'string',
      description: 'subset, e.g. ins-orig,ins-dv (default: all four)',
      valueName: 'LIST',
    },
    seed: { type: 'string', description: 'selection seed', valueName: 'S', default: String(DEFAULT_SEED) },
    formats: {
      type: 'string',
      description: `trainer formats: ${Object.keys(trainerFormats).join(', ')}`,
      valueName: 'LIST',
    },
    'max-negatives': {
      type: 'string',
      description: 'cap on negatives in sentence-transformers rows',
      valueName: 'N',
    },
    force: { type: 'boolean', description: "replace another mix build's outputs in --out" },
  },
  async run(ctx) {
    const presetName = str(ctx, 'preset');
    if (presetName !== undefined && !(presetName in presets))
      throw new UsageError(`unknown preset '${presetName}'; one of ${Object.keys(presets).join(', ')}`);
    const data = presetName ? presets[presetName as PresetName].config.mixes : undefined;
    const budget = num(ctx, 'budget') ?? data?.budget;
    if (budget === undefined)
      throw new UsageError('--budget is required (or --preset NAME for its data slice)');
    const formats = list(ctx, 'formats');
    for (const f of formats)
      if (!(f in trainerFormats))
        throw new UsageError(`unknown format '${f}'; one of ${Object.keys(trainerFormats).join(', ')}`);
    const mixes = list(ctx, 'mixes');
    for (const m of mixes)
      if (!(DataMix.options as readonly string[]).includes(m))
        throw new UsageError(`unknown mix '${m}'; one of ${DataMix.options.join(', ')}`);
    const generalPath = str(ctx, 'general');
    const k = num(ctx, 'instruction-examples') ?? data?.instructionExamples;
    const maxNegatives = num(ctx, 'max-negatives');
    const outDir = requireString(ctx, 'out');
    const synthDir = requireString(ctx, 'from');
    const seed = num(ctx, 'seed') ?? DEFAULT_SEED;
    // a folder holds one mix build: other settings need another --out or --force (which
    // removes the old mixes, so mixes.json and the manifest list exactly what is there)
    const claimed = await prepareOutputDir(outDir, {
      kind: 'synth-mix',
      identity: { synthDir: resolve(synthDir), budget, k, generalPath, mixes, seed, formats, maxNegatives },
      force: ctx.values.force === true,
    });
    if (claimed.removed.length)
      ctx.stderr.write(
        `note: --force removed ${claimed.removed.length} files of the previous mixes in ${outDir}\n`,
      );
    const res = await writeMixes({
      synthDir,
      outDir,
      budget,
      ...(generalPath ? { generalPath } : {}),
      ...(k !== undefined ? { instructionExamples: k } : {}),
      ...(maxNegatives !== undefined ? { maxNegatives } : {}),
      seed,
      formats: formats as TrainerFormat[],
      ...(mixes.length ? { mixes: mixes as DataMix[] } : {}),
      // the exported query/document strings use the one formatter, recorded in the manifest
      formatter: presets.mini.config.train.formatter,
      command: ['dv', 'synth', 'mix', ...process.argv.slice(4)],
    });
    for (const [name, c] of Object.entries(res))
      ctx.stdout.write(
        `${name.padEnd(8)} total ${c.total}: original ${c.original}, complement ${c.complement}, general ${c.general}, pairs ${c.pairs} -> ${Object.values(c.files).join(', ')}\n`,
      );
    ctx.stdout.write(`wrote mixes.json and manifest.json in ${outDir}\n`);
    return 0;
  },
};

/**
 * 0 when no seed failed; 1 when every recorded seed failed (nothing usable was produced);
 * 3 when some failed, with how many and how to retry. `none` and `rejected` are answers, not
 * failures (issue 12 item 3: `dv synth` exited 0 when every seed failed).
 */
export function synthExitCode(s: RunSummary, stderr: NodeJS.WritableStream): number {
  if (s.failed === 0) return EXIT.ok;
  const reasons = Object.entries(s.byReason)
    .filter(
      ([r]) =>
        r.startsWith('backend:') ||
        r.startsWith('unparsable:') ||
        r.startsWith('judge:') ||
        r === 'no-instruction-negative',
    )
    .sort((a, b) => b[1] - a[1])
    .map(([r, n]) => `${r} ${n}`)
    .join(', ');
  const retry = `see ${s.files.failures ?? 'failures.jsonl'} in ${s.outDir}; rerun with --retry-failed to try them again`;
  if (s.failed === s.recorded) {
    stderr.write(`failed: all ${s.failed} seeds failed (${reasons}); ${retry}.\n`);
    return EXIT.failed;
  }
  stderr.write(`partial: ${s.failed} of ${s.recorded} seeds failed (${reasons}); ${retry}.\n`);
  return EXIT.partial;
}

/**
 * The notes after a run and its exit code: the cost cap stopped it (3, rerun with a higher
 * cap), the endpoint refused the key or is unreachable (1), seeds left pending (3), else
 * `synthExitCode`'s verdict on the failures.
 */
function reportOutcome(
  summary: RunSummary,
  config: SynthesisRunConfig,
  batch: BatchImportReport | undefined,
  stdout: NodeJS.WritableStream,
  stderr: NodeJS.WritableStream,
): number {
  const { run, pending } = summary;
  const cachedFailed = run.cachedFailedThisRun ?? 0;
  if (cachedFailed > 0)
    stderr.write(
      `note: ${cachedFailed} seeds reuse failed records of an earlier run in ${config.outDir} (not asked again); pass --retry-failed to try them again.\n`,
    );
  if (run.reverifiedThisRun)
    stderr.write(
      `note: ${run.reverifiedThisRun} cached answers were judged again (the judge settings changed).\n`,
    );
  if (batch) {
    const unmatched = batch.unmatchedIds();
    stdout.write(`batch-import: ${batch.matched}/${batch.lines} output lines matched a seed\n`);
    if (unmatched.length)
      stderr.write(
        `warning: ${unmatched.length} batch output lines match no request of these seeds/settings (first: ${unmatched[0]})\n`,
      );
  }
  if (run.stoppedBy === 'cost-cap') {
    stderr.write(
      `stopped: cost cap $${config.synthesis.costCapUsd} reached; ${pending} seeds pending. Rerun with a higher --cost-cap to continue.\n`,
    );
    return EXIT_INCOMPLETE;
  }
  if (run.stoppedBy?.startsWith('auth:')) {
    stderr.write(
      `stopped: the endpoint refused the API key (${run.stoppedBy.slice(5)}); set $${config.synthesis.apiKeyEnv} (or --api-key-env) and rerun to continue.\n`,
    );
    return EXIT.failed;
  }
  if (run.stoppedBy === 'unreachable') {
    stderr.write(
      `stopped: ${run.stopDetail ?? 'the endpoint is unreachable'}. ${pending} seeds are pending (nothing recorded for them); start the server or fix --base-url and rerun to continue.\n`,
    );
    return EXIT.failed;
  }
  if (pending > 0 && !batch) {
    stderr.write(
      `partial: ${pending} seeds have no record (the endpoint could not be reached for them); rerun to continue.\n`,
    );
    return EXIT.partial;
  }
  return synthExitCode(summary, stderr);
}

export const synthCommand: Command = {
  name: 'synth',
  summary: 'synthesize complementary instructions (polarity reversal)',
  usage: `--seeds FILE --out DIR [--backend ${synthesisBackendNames.join('|')}] [--json] [options]`,
  description: `Writes, for each seed (q, I, D+, D-), a complementary instruction I' under which D- is
relevant and D+ is not, checks it (guardrails, then verification), and assembles both views.
Outputs in --out: log.jsonl (append-only journal; reruns resume from it), records.jsonl,
failures.jsonl, original.jsonl, complement.jsonl, summary.json, manifest.json.
Backends: ${Object.entries(synthesisBackends)
    .map(([n, b]) => `${n} (${b.description})`)
    .join(', ')}.
Exit codes: 0 done; 1 every seed failed, bad data, the endpoint refused the key or cannot be
reached (3 connection failures in a row stop the run); 2 bad usage; 3 partial: some seeds failed
(rerun with --retry-failed) or the cost cap stopped the run (rerun with a higher --cost-cap).`,
  options: runOptions,
  subcommands: [mergeCommand, mixCommand, batchCommand],
  async run(ctx) {
    const presetName = enumOption(ctx, 'preset', presetNames) ?? 'mini';
    const judge = enumOption(ctx, 'judge', [...synthesisJudgeNames, 'none'] as const);
    const priceIn = num(ctx, 'price-in');
    const priceOut = num(ctx, 'price-out');
    const baseURLs = urlListOption(ctx, 'base-url');
    // flags -> a partial config over the preset; one parse validates the whole run config
    const overrides: Partial<SynthesisConfigInput> = {
      backend: enumOption(ctx, 'backend', synthesisBackendNames) ?? 'offline',
      model: str(ctx, 'model'),
      ...(baseURLs.length ? { baseURLs } : {}),
      apiKeyEnv: str(ctx, 'api-key-env'),
      temperature: num(ctx, 'temperature'),
      maxTokens: num(ctx, 'max-tokens'),
      concurrency: num(ctx, 'concurrency'),
      requestTimeoutMs: num(ctx, 'timeout-ms'),
      maxRetries: num(ctx, 'max-retries'),
      templateId: str(ctx, 'template'),
      costCapUsd: num(ctx, 'cost-cap'),
      ...(priceIn !== undefined || priceOut !== undefined
        ? { pricing: { inputPerMTokens: priceIn ?? 0, outputPerMTokens: priceOut ?? 0 } }
        : {}),
      ...(judge === 'none' ? { verify: false } : judge ? { verify: true, judge } : {}),
      judgeThreshold: num(ctx, 'judge-threshold'),
    };
    const parsed = SynthesisRunConfig.safeParse({
      seedsPath: requireString(ctx, 'seeds'),
      outDir: requireString(ctx, 'out'),
      synthesis: synthesisConfigFromPreset(presetName, definedOnly(overrides)),
      formatter: presets[presetName].config.train.formatter,
      shard: shardOption(ctx),
      limit: num(ctx, 'limit'),
      retryFailed: ctx.values['retry-failed'] === true,
      batchOutputs: listOption(ctx, 'batch-output'),
    });
    if (!parsed.success)
      throw new UsageError(
        parsed.error.issues.map((i) => `${flagOf(configField(i.path))}: ${i.message}`).join('; '),
      );
    const config = parsed.data;
    // the one output-folder guard, then one writer per folder (issue 25); released below
    const lock = lockOutputFolder(config.outDir, `dv synth --out ${config.outDir}`);
    try {
      const verbose = Boolean(process.env.DV_SYNTH_VERBOSE);
      let run: SynthesisRun;
      try {
        run = await createSynthesisRun(config, {
          onEvent: (e) => {
            if (e.type === 'start')
              ctx.stderr.write(
                `synth: backend ${e.backend}, model ${e.model}, template ${e.template.id}@${e.template.version}, judge ${e.judge ?? 'none'}${e.shard ? `, shard ${e.shard.index}/${e.shard.count}` : ''}\n`,
              );
            else if (verbose)
              ctx.stderr.write(
                `retry ${e.attempt} (${e.reason}) in ${Math.round(e.delayMs)} ms via ${e.endpoint}\n`,
              );
          },
          command: ['dv', 'synth', ...process.argv.slice(3)],
        });
      } catch (err) {
        if (err instanceof SynthesisConfigError) throw new UsageError(err.describe(flagOf));
        throw err;
      }
      const result = await run.run();
      if (ctx.values.json === true) {
        ctx.stdout.write(
          `${JSON.stringify(
            result.kind === 'exported'
              ? {
                  kind: 'batch-export',
                  requests: result.requests,
                  skipped: result.skipped,
                  files: result.files,
                }
              : {
                  kind: 'summary',
                  ...result.summary,
                  ...(result.batch
                    ? { batchImport: { matched: result.batch.matched, lines: result.batch.lines } }
                    : {}),
                },
          )}\n`,
        );
        if (result.kind === 'exported') return 0;
        // the notes and the exit code as without --json, the batch-import line on stderr
        return reportOutcome(result.summary, config, result.batch, ctx.stderr, ctx.stderr);
      }
      if (result.kind === 'exported') {
        ctx.stdout.write(
          `batch-export: ${result.requests} requests (${result.skipped} seeds already recorded or without a negative) -> ${result.files.join(', ')}\n` +
            `Run them with the OpenAI Batch API or vLLM's run_batch, then: dv synth --backend batch-import --batch-output OUTPUT.jsonl --seeds ${config.seedsPath} --out ${config.outDir} --model ${config.synthesis.model}\n`,
        );
        return 0;
      }
      ctx.stdout.write(formatSummary(result.summary));
      return reportOutcome(result.summary, config, result.batch, ctx.stdout, ctx.stderr);
    } finally {
      lock.release();
    }
  },
};
