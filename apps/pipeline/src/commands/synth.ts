/**
 * `dv synth ...`: polarity-reversal synthesis (@dv/synth). Thin over the library: parse
 * options, pick the backend and judge, run, print where the outputs went and a summary.
 *
 *   dv synth --seeds FILE --out DIR [--backend offline|openai|batch-export|batch-import] ...
 *   dv synth merge --seeds FILE --out DIR SHARD_DIR...
 *   dv synth mix --from DIR --out DIR --budget N [--general FILE] [--formats ...]
 */
import { resolve } from 'node:path';
import { type DataMix, prepareOutputDir, presets, SynthesisConfig } from '@dv/core';
import {
  createBatchResultsBackend,
  createLexicalJudge,
  createLlmJudge,
  createOfflineReverser,
  createOpenAIChatBackend,
  exportBatch,
  getTemplate,
  type Judge,
  mergeShards,
  type RunSummary,
  runSynthesis,
  type SynthesisBackend,
  type TrainerFormat,
  trainerFormats,
  UsageLedger,
  writeMixes,
} from '@dv/synth';
import {
  type Command,
  type CommandContext,
  EXIT,
  enumOption,
  type NumberSpec,
  numberOption,
  requireString,
  UsageError,
} from '../cli-kit.js';
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
};

const str = (ctx: CommandContext, name: string): string | undefined => {
  const v = ctx.values[name];
  return typeof v === 'string' && v !== '' ? v : undefined;
};
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
const list = (ctx: CommandContext, name: string): string[] => {
  const v = ctx.values[name];
  return (Array.isArray(v) ? v : typeof v === 'string' ? [v] : [])
    .flatMap((x) => String(x).split(','))
    .filter(Boolean);
};

function parseShard(s: string | undefined): { index: number; count: number } | undefined {
  if (s === undefined) return undefined;
  const m = /^(\d+)\/(\d+)$/.exec(s);
  if (!m || Number(m[1]) >= Number(m[2]) || Number(m[2]) < 1)
    throw new UsageError(`--shard must be i/n with 0 <= i < n (e.g. 0/4), got '${s}'`);
  return { index: Number(m[1]), count: Number(m[2]) };
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
    description: 'offline | openai | batch-export | batch-import',
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
    description: 'verification: lexical | lexical-text (title+text only, no metadata) | llm | none',
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
    const s = await mergeShards({
      seedsPath: requireString(ctx, 'seeds'),
      outDir: requireString(ctx, 'out'),
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
  usage: '--from SYNTH_DIR --out DIR --budget N [--general FILE]',
  description: `Builds the paper's four matched-budget mixes from a synth output folder:
Ins-orig = N original examples; Ins-DV = N/2 originals + their N/2 complements; All-orig = K
originals + (N-K) general; All-DV = K/2 pairs + the same (N-K) general (K defaults to N/2).
Counts are checked. Writes <out>/<mix>/train.jsonl and, with --formats, the Tevatron,
sentence-transformers and FlagEmbedding files.`,
  options: {
    from: { type: 'string', description: 'synth output folder', valueName: 'DIR' },
    out: { type: 'string', description: 'output folder', valueName: 'DIR' },
    budget: { type: 'string', description: 'N, examples per mix', valueName: 'N' },
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
    seed: { type: 'string', description: 'selection seed', valueName: 'S', default: '13' },
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
    const budget = num(ctx, 'budget');
    if (budget === undefined) throw new UsageError('--budget is required');
    const formats = list(ctx, 'formats');
    for (const f of formats)
      if (!(f in trainerFormats))
        throw new UsageError(`unknown format '${f}'; one of ${Object.keys(trainerFormats).join(', ')}`);
    const mixes = list(ctx, 'mixes');
    for (const m of mixes)
      if (!['ins-orig', 'ins-dv', 'all-orig', 'all-dv'].includes(m))
        throw new UsageError(`unknown mix '${m}'; one of ins-orig, ins-dv, all-orig, all-dv`);
    const generalPath = str(ctx, 'general');
    const k = num(ctx, 'instruction-examples');
    const maxNegatives = num(ctx, 'max-negatives');
    const outDir = requireString(ctx, 'out');
    const synthDir = requireString(ctx, 'from');
    const seed = num(ctx, 'seed') ?? 13;
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
      formatter: presets.mini.config.formatter,
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

export const synthCommand: Command = {
  name: 'synth',
  summary: 'synthesize complementary instructions (polarity reversal)',
  usage: '--seeds FILE --out DIR [--backend offline|openai|batch-export|batch-import] [options]',
  description: `Writes, for each seed (q, I, D+, D-), a complementary instruction I' under which D- is
relevant and D+ is not, checks it (guardrails, then verification), and assembles both views.
Outputs in --out: log.jsonl (append-only journal; reruns resume from it), records.jsonl,
failures.jsonl, original.jsonl, complement.jsonl, summary.json, manifest.json.
Backends: offline (deterministic reverser, no network), openai (any OpenAI-compatible server;
key from --api-key-env, default OPENAI_API_KEY), batch-export (writes batch-input.jsonl in the
OpenAI Batch format), batch-import (reads --batch-output files, matched by custom_id).
Exit codes: 0 done; 1 every seed failed, bad data, the endpoint refused the key or cannot be
reached (3 connection failures in a row stop the run); 2 bad usage; 3 partial: some seeds failed
(rerun with --retry-failed) or the cost cap stopped the run (rerun with a higher --cost-cap).`,
  options: runOptions,
  subcommands: [mergeCommand, mixCommand, batchCommand],
  async run(ctx) {
    const seedsPath = requireString(ctx, 'seeds');
    const outDir = requireString(ctx, 'out');
    const backendName =
      enumOption(ctx, 'backend', ['offline', 'openai', 'batch-export', 'batch-import'] as const) ?? 'offline';
    const presetName =
      enumOption(ctx, 'preset', Object.keys(presets) as Array<keyof typeof presets>) ?? 'mini';
    const preset = presets[presetName];
    const judgeName =
      enumOption(ctx, 'judge', ['lexical', 'lexical-text', 'llm', 'none'] as const) ??
      (preset.config.synthesis.verify ? 'lexical' : 'none');
    const priceIn = num(ctx, 'price-in');
    const priceOut = num(ctx, 'price-out');
    const baseURLs = list(ctx, 'base-url');
    for (const u of baseURLs) {
      let url: URL | undefined;
      try {
        url = new URL(u);
      } catch {}
      if (!url || !['http:', 'https:'].includes(url.protocol))
        throw new UsageError(
          `--base-url must be an http(s) URL such as http://127.0.0.1:8000/v1, got '${u}'`,
        );
    }
    const parsed = SynthesisConfig.safeParse({
      ...preset.config.synthesis,
      backend: backendName,
      ...(str(ctx, 'model')
        ? { model: str(ctx, 'model') }
        : backendName === 'offline'
          ? { model: 'offline-reverser' }
          : {}),
      ...(baseURLs.length ? { baseURLs } : {}),
      ...(str(ctx, 'api-key-env') ? { apiKeyEnv: str(ctx, 'api-key-env') } : {}),
      ...(num(ctx, 'temperature') !== undefined ? { temperature: num(ctx, 'temperature') } : {}),
      ...(num(ctx, 'max-tokens') !== undefined ? { maxTokens: num(ctx, 'max-tokens') } : {}),
      // the mini preset's concurrency (1) is for the offline reverser; an endpoint gets 16 unless told
      ...(num(ctx, 'concurrency') !== undefined
        ? { concurrency: num(ctx, 'concurrency') }
        : backendName === 'openai' && presetName === 'mini'
          ? { concurrency: 16 }
          : {}),
      ...(num(ctx, 'timeout-ms') !== undefined ? { requestTimeoutMs: num(ctx, 'timeout-ms') } : {}),
      ...(num(ctx, 'max-retries') !== undefined ? { maxRetries: num(ctx, 'max-retries') } : {}),
      ...(str(ctx, 'template') ? { templateId: str(ctx, 'template') } : {}),
      ...(num(ctx, 'cost-cap') !== undefined ? { costCapUsd: num(ctx, 'cost-cap') } : {}),
      ...(priceIn !== undefined || priceOut !== undefined
        ? { pricing: { inputPerMTokens: priceIn ?? 0, outputPerMTokens: priceOut ?? 0 } }
        : {}),
      verify: judgeName !== 'none',
      ...(judgeName !== 'none' ? { judge: judgeName } : {}),
    });
    if (!parsed.success)
      throw new UsageError(
        parsed.error.issues
          .map((i) => `${FLAG_OF[String(i.path[0])] ?? String(i.path[0] ?? 'config')}: ${i.message}`)
          .join('; '),
      );
    const config = parsed.data;
    let template: ReturnType<typeof getTemplate>;
    try {
      template = getTemplate(config.templateId);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const shard = parseShard(str(ctx, 'shard'));
    const limit = num(ctx, 'limit');
    const settings = {
      template,
      model: config.model,
      temperature: config.temperature,
      maxTokens: config.maxTokens,
    };
    const command = ['dv', 'synth', ...process.argv.slice(3)];

    if (backendName === 'batch-export') {
      const r = await exportBatch({
        seedsPath,
        outDir,
        ...settings,
        ...(shard ? { shard } : {}),
        ...(limit !== undefined ? { limit } : {}),
        retryFailed: ctx.values['retry-failed'] === true,
      });
      ctx.stdout.write(
        `batch-export: ${r.requests} requests (${r.skipped} seeds already recorded or without a negative) -> ${r.files.join(', ')}\n` +
          `Run them with the OpenAI Batch API or vLLM's run_batch, then: dv synth --backend batch-import --batch-output OUTPUT.jsonl --seeds ${seedsPath} --out ${outDir} --model ${config.model}\n`,
      );
      return 0;
    }

    const ledger = new UsageLedger(config.pricing, config.costCapUsd);
    const apiKey = process.env[config.apiKeyEnv];
    let chatBackend: SynthesisBackend | undefined;
    const needChat = backendName === 'openai' || judgeName === 'llm';
    if (needChat) {
      if (config.baseURLs.length === 0)
        throw new UsageError('--base-url is required for the openai backend and the llm judge');
      chatBackend = createOpenAIChatBackend({
        baseURLs: config.baseURLs,
        model: config.model,
        apiKeyEnv: config.apiKeyEnv,
        temperature: config.temperature,
        maxTokens: config.maxTokens,
        concurrency: config.concurrency,
        requestTimeoutMs: config.requestTimeoutMs,
        maxRetries: config.maxRetries,
        ledger,
        onRetry: (i) =>
          process.env.DV_SYNTH_VERBOSE
            ? ctx.stderr.write(
                `retry ${i.attempt} (${i.reason}) in ${Math.round(i.delayMs)} ms via ${i.endpoint}\n`,
              )
            : undefined,
      });
    }
    let backend: SynthesisBackend;
    let batch: Awaited<ReturnType<typeof createBatchResultsBackend>> | undefined;
    if (backendName === 'offline') backend = createOfflineReverser({ model: config.model });
    else if (backendName === 'openai') backend = chatBackend!;
    else {
      const outputs = list(ctx, 'batch-output');
      if (outputs.length === 0) throw new UsageError('--batch-output is required for batch-import');
      batch = await createBatchResultsBackend(outputs, config.model);
      backend = batch;
    }
    const threshold = num(ctx, 'judge-threshold');
    let judge: Judge | undefined;
    if (judgeName === 'lexical') judge = createLexicalJudge(threshold ?? 0.25);
    else if (judgeName === 'lexical-text')
      judge = createLexicalJudge(threshold ?? 0.25, { useMetadata: false });
    else if (judgeName === 'llm') judge = createLlmJudge(chatBackend!, threshold ?? 1);
    if (judge && judge.threshold > judge.maxScore)
      throw new UsageError(
        `--judge-threshold ${judge.threshold} is above the highest score the ${judge.name} judge gives (${judge.maxScore}): it would reject every instruction`,
      );

    ctx.stderr.write(
      `synth: backend ${backend.name}, model ${backend.model}, template ${template.id}@${template.version}, judge ${judge?.name ?? 'none'}${shard ? `, shard ${shard.index}/${shard.count}` : ''}\n`,
    );
    const summary = await runSynthesis({
      seedsPath,
      outDir,
      backend,
      ...settings,
      ...(judge ? { judge } : {}),
      concurrency: backendName === 'openai' ? config.concurrency : 1,
      ...(shard ? { shard } : {}),
      ...(limit !== undefined ? { limit } : {}),
      retryFailed: ctx.values['retry-failed'] === true,
      ledger,
      ...(apiKey ? { secrets: [apiKey] } : {}),
      formatter: preset.config.formatter,
      config,
      command,
    });
    ctx.stdout.write(formatSummary(summary));
    const cachedFailed = summary.run.cachedFailedThisRun ?? 0;
    if (cachedFailed > 0)
      ctx.stderr.write(
        `note: ${cachedFailed} seeds reuse failed records of an earlier run in ${outDir} (not asked again); pass --retry-failed to try them again.\n`,
      );
    if (summary.run.reverifiedThisRun)
      ctx.stderr.write(
        `note: ${summary.run.reverifiedThisRun} cached answers were judged again (the judge settings changed).\n`,
      );
    if (batch) {
      const unmatched = batch.unmatchedIds();
      ctx.stdout.write(`batch-import: ${batch.matched}/${batch.lines} output lines matched a seed\n`);
      if (unmatched.length)
        ctx.stderr.write(
          `warning: ${unmatched.length} batch output lines match no request of these seeds/settings (first: ${unmatched[0]})\n`,
        );
    }
    if (summary.run.stoppedBy === 'cost-cap') {
      ctx.stderr.write(
        `stopped: cost cap $${config.costCapUsd} reached; ${summary.pending} seeds pending. Rerun with a higher --cost-cap to continue.\n`,
      );
      return EXIT_INCOMPLETE;
    }
    if (summary.run.stoppedBy?.startsWith('auth:')) {
      ctx.stderr.write(
        `stopped: the endpoint refused the API key (${summary.run.stoppedBy.slice(5)}); set $${config.apiKeyEnv} (or --api-key-env) and rerun to continue.\n`,
      );
      return EXIT.failed;
    }
    if (summary.run.stoppedBy === 'unreachable') {
      ctx.stderr.write(
        `stopped: ${summary.run.stopDetail ?? 'the endpoint is unreachable'}. ${summary.pending} seeds are pending (nothing recorded for them); start the server or fix --base-url and rerun to continue.\n`,
      );
      return EXIT.failed;
    }
    if (summary.pending > 0 && !batch) {
      ctx.stderr.write(
        `partial: ${summary.pending} seeds have no record (the endpoint could not be reached for them); rerun to continue.\n`,
      );
      return EXIT.partial;
    }
    return synthExitCode(summary, ctx.stderr);
  },
};
