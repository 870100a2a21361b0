/**
 * `dv synth ...`: polarity-reversal synthesis (@dv/synth). Thin over the library: parse
 * options, pick the backend and judge, run, print where the outputs went and a summary.
 *
 *   dv synth --seeds FILE --out DIR [--backend offline|openai|batch-export|batch-import] ...
 *   dv synth merge --seeds FILE --out DIR SHARD_DIR...
 *   dv synth mix --from DIR --out DIR --budget N [--general FILE] [--formats ...]
 */
import { DataError, type DataMix, presets, SynthesisConfig } from '@dv/core';
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
import { type Command, type CommandContext, requireString, UsageError } from '../cli-kit.js';
import { batchCommand } from './synth-batch.js';

/** Exit code of a run the cost cap stopped: outputs are consistent but seeds remain pending. */
export const EXIT_INCOMPLETE = 4;

const str = (ctx: CommandContext, name: string): string | undefined => {
  const v = ctx.values[name];
  return typeof v === 'string' && v !== '' ? v : undefined;
};
const num = (ctx: CommandContext, name: string, integer = false): number | undefined => {
  const v = str(ctx, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || (integer && !Number.isInteger(n)))
    throw new UsageError(`--${name} must be a number, got '${v}'`);
  return n;
};
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
  },
  async run(ctx) {
    const budget = num(ctx, 'budget', true);
    if (budget === undefined) throw new UsageError('--budget is required');
    const formats = list(ctx, 'formats');
    for (const f of formats)
      if (!(f in trainerFormats))
        throw new UsageError(`unknown format '${f}'; one of ${Object.keys(trainerFormats).join(', ')}`);
    const mixes = list(ctx, 'mixes');
    for (const m of mixes)
      if (!['ins-orig', 'ins-dv', 'all-orig', 'all-dv'].includes(m))
        throw new UsageError(`unknown mix '${m}'`);
    const generalPath = str(ctx, 'general');
    const k = num(ctx, 'instruction-examples', true);
    const maxNegatives = num(ctx, 'max-negatives', true);
    const outDir = requireString(ctx, 'out');
    const res = await writeMixes({
      synthDir: requireString(ctx, 'from'),
      outDir,
      budget,
      ...(generalPath ? { generalPath } : {}),
      ...(k !== undefined ? { instructionExamples: k } : {}),
      ...(maxNegatives !== undefined ? { maxNegatives } : {}),
      seed: num(ctx, 'seed', true) ?? 13,
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
Exit codes: 0 done, 1 bad data or the endpoint refused the key, 2 bad usage, 4 stopped by the
cost cap (rerun to continue).`,
  options: runOptions,
  subcommands: [mergeCommand, mixCommand, batchCommand],
  async run(ctx) {
    const seedsPath = requireString(ctx, 'seeds');
    const outDir = requireString(ctx, 'out');
    const backendName = str(ctx, 'backend') ?? 'offline';
    if (!['offline', 'openai', 'batch-export', 'batch-import'].includes(backendName))
      throw new UsageError(
        `--backend must be offline, openai, batch-export or batch-import, got '${backendName}'`,
      );
    const presetName = str(ctx, 'preset') ?? 'mini';
    const preset = (presets as Record<string, (typeof presets)['mini']>)[presetName];
    if (!preset) throw new UsageError(`unknown preset '${presetName}'`);
    const judgeName = str(ctx, 'judge') ?? (preset.config.synthesis.verify ? 'lexical' : 'none');
    if (!['lexical', 'lexical-text', 'llm', 'none'].includes(judgeName))
      throw new UsageError(`--judge must be lexical, lexical-text, llm or none`);
    const priceIn = num(ctx, 'price-in');
    const priceOut = num(ctx, 'price-out');
    const baseURLs = list(ctx, 'base-url');
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
      ...(num(ctx, 'max-tokens', true) !== undefined ? { maxTokens: num(ctx, 'max-tokens', true) } : {}),
      // the mini preset's concurrency (1) is for the offline reverser; an endpoint gets 16 unless told
      ...(num(ctx, 'concurrency', true) !== undefined
        ? { concurrency: num(ctx, 'concurrency', true) }
        : backendName === 'openai' && presetName === 'mini'
          ? { concurrency: 16 }
          : {}),
      ...(num(ctx, 'timeout-ms', true) !== undefined
        ? { requestTimeoutMs: num(ctx, 'timeout-ms', true) }
        : {}),
      ...(num(ctx, 'max-retries', true) !== undefined ? { maxRetries: num(ctx, 'max-retries', true) } : {}),
      ...(str(ctx, 'template') ? { templateId: str(ctx, 'template') } : {}),
      ...(num(ctx, 'cost-cap') !== undefined ? { costCapUsd: num(ctx, 'cost-cap') } : {}),
      ...(priceIn !== undefined || priceOut !== undefined
        ? { pricing: { inputPerMTokens: priceIn ?? 0, outputPerMTokens: priceOut ?? 0 } }
        : {}),
      verify: judgeName !== 'none',
      ...(judgeName !== 'none' ? { judge: judgeName } : {}),
    });
    if (!parsed.success)
      throw new UsageError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    const config = parsed.data;
    let template: ReturnType<typeof getTemplate>;
    try {
      template = getTemplate(config.templateId);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const shard = parseShard(str(ctx, 'shard'));
    const limit = num(ctx, 'limit', true);
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
      return 1;
    }
    if (summary.pending > 0 && !batch) throw new DataError(`${summary.pending} seeds have no record`);
    return 0;
  },
};
