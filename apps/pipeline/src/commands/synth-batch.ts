/**
 * `dv synth batch`: synthesis through an OpenAI-style Batch API (Files + Batches endpoints),
 * end to end: export, split within the per-file limits, upload, create, poll, download and
 * import into the run's outputs (@dv/synth `runBatchJob`). Every step is recorded in
 * `<out>/batch/state.json`; rerunning the same command resumes, and once a round is imported
 * it submits the seeds still without a record (expired or failed requests) as a new round.
 * Exit codes: 0 every seed recorded, 1 bad data / refused key, 2 bad usage, 3 partial (seeds
 * still pending: rerun), 130 interrupted (rerun to resume).
 */
import { DataError, presets, SynthesisConfig } from '@dv/core';
import {
  type BatchJobEvent,
  createJudge,
  getTemplate,
  OPENAI_BATCH_LIMITS,
  runBatchJob,
  synthesisJudgeNames,
  synthesisJudges,
} from '@dv/synth';
import {
  type Command,
  type CommandContext,
  numberOption,
  requireString,
  shardOption,
  stringOption,
  UsageError,
} from '../cli-kit.js';
import { lockOutputFolder } from '../output-folder.js';

const EXIT_PARTIAL = 3;
const EXIT_INTERRUPTED = 130;

const str = stringOption;
const POSITIVE_INT = { integer: true, positive: true } as const;
const positive = (ctx: CommandContext, name: string, integer = true): number | undefined =>
  numberOption(ctx, name, integer ? POSITIVE_INT : { positive: true });

export const batchCommand: Command = {
  name: 'batch',
  summary: 'synthesize through an OpenAI-style Batch API, resumably',
  usage: '--seeds FILE --out DIR --base-url URL --model NAME [options]',
  description: `Sends every seed of the run without a record through the Batch API of --base-url (OpenAI, or
any server with the Files and Batches endpoints): the request lines are split into input files of
at most --max-requests-per-file requests and --max-bytes-per-file bytes (OpenAI: ${OPENAI_BATCH_LIMITS.maxRequests} and
${OPENAI_BATCH_LIMITS.maxBytes} bytes), uploaded, submitted (24 h window), polled, downloaded beside
the inputs under <out>/batch/, and imported into the run's outputs (records.jsonl, both views,
summary.json, manifest.json), as 'dv synth --backend openai' would write them.
Rerun the same command after any interruption: state.json says what was done, and an upload or
batch that may exist already is found on the server instead of being repeated. When a batch
expires or fails, its seeds stay pending and the next run submits them as a new round.
The API key comes from the environment (--api-key-env, default OPENAI_API_KEY), never from flags.
Exit codes: 0 all recorded, 1 bad data, 2 bad usage, 3 seeds still pending, 130 interrupted.`,
  options: {
    seeds: { type: 'string', description: 'seed examples (SeedExample JSONL)', valueName: 'FILE' },
    out: { type: 'string', description: 'run folder (resumes what is there)', valueName: 'DIR' },
    'base-url': {
      type: 'string',
      description: 'API base URL, e.g. https://api.openai.com/v1',
      valueName: 'URL',
    },
    model: { type: 'string', description: 'model name in each request', valueName: 'NAME' },
    preset: {
      type: 'string',
      description: 'synthesis defaults: mini | paper',
      valueName: 'NAME',
      default: 'paper',
    },
    'api-key-env': {
      type: 'string',
      description: 'environment variable with the API key',
      valueName: 'NAME',
    },
    template: { type: 'string', description: 'prompt template id', valueName: 'ID' },
    temperature: { type: 'string', description: 'sampling temperature', valueName: 'T' },
    'max-tokens': { type: 'string', description: 'max completion tokens', valueName: 'N' },
    judge: {
      type: 'string',
      description:
        'verification: an offline judge of the registry (lexical, lexical-text, lexical-metadata) or none',
      valueName: 'NAME',
    },
    'max-requests-per-file': {
      type: 'string',
      description: 'requests per input file',
      valueName: 'N',
      default: String(OPENAI_BATCH_LIMITS.maxRequests),
    },
    'max-bytes-per-file': {
      type: 'string',
      description: 'bytes per input file',
      valueName: 'N',
      default: String(OPENAI_BATCH_LIMITS.maxBytes),
    },
    'poll-interval': {
      type: 'string',
      description: 'seconds between status polls',
      valueName: 'S',
      default: '30',
    },
    shard: { type: 'string', description: 'seeds of shard i of n (0-based)', valueName: 'i/n' },
    limit: { type: 'string', description: 'at most N seeds', valueName: 'N' },
    'retry-failed': { type: 'boolean', description: 'resubmit seeds whose record is "failed"' },
  },
  async run(ctx) {
    const seedsPath = requireString(ctx, 'seeds');
    const outDir = requireString(ctx, 'out');
    const baseURL = requireString(ctx, 'base-url');
    const presetName = str(ctx, 'preset') ?? 'paper';
    const preset = (presets as Record<string, (typeof presets)['mini']>)[presetName];
    if (!preset) throw new UsageError(`unknown preset '${presetName}'`);
    const judgeName = str(ctx, 'judge') ?? (preset.config.synthesis.verify ? 'lexical' : 'none');
    const offlineJudges = synthesisJudgeNames.filter((n) => !synthesisJudges[n].needsEndpoint);
    if (judgeName !== 'none' && !(offlineJudges as string[]).includes(judgeName))
      throw new UsageError(
        `--judge must be ${offlineJudges.join(', ')} or none (an llm judge needs the online backend)`,
      );
    const parsed = SynthesisConfig.safeParse({
      ...preset.config.synthesis,
      backend: 'openai',
      baseURLs: [baseURL],
      ...(str(ctx, 'model') ? { model: str(ctx, 'model') } : {}),
      ...(str(ctx, 'api-key-env') ? { apiKeyEnv: str(ctx, 'api-key-env') } : {}),
      ...(str(ctx, 'template') ? { templateId: str(ctx, 'template') } : {}),
      ...(str(ctx, 'temperature') !== undefined
        ? { temperature: numberOption(ctx, 'temperature', { min: 0, max: 2 }) }
        : {}),
      ...(positive(ctx, 'max-tokens') !== undefined ? { maxTokens: positive(ctx, 'max-tokens') } : {}),
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
    const shard = shardOption(ctx);
    const limits = {
      maxRequests: positive(ctx, 'max-requests-per-file')!,
      maxBytes: positive(ctx, 'max-bytes-per-file')!,
    };
    const pollSeconds = positive(ctx, 'poll-interval', false)!;
    const limit = positive(ctx, 'limit');
    const apiKey = process.env[config.apiKeyEnv];
    const judge =
      config.verify && config.judge ? createJudge(config.judge, config.judgeThreshold) : undefined;

    // the one output-folder guard, then one writer per folder (issue 25); released below
    const lock = lockOutputFolder(outDir, `dv synth batch --out ${outDir}`);
    const abort = new AbortController();
    const onSigint = () => abort.abort(new Error('interrupted'));
    process.once('SIGINT', onSigint);
    const say = (line: string) => ctx.stderr.write(`${line}\n`);
    const started = Date.now();
    const onEvent = (e: BatchJobEvent) => {
      if (e.type === 'round')
        say(`batch round ${e.round}: ${e.requests} requests in ${e.parts} input file(s)`);
      else if (e.type === 'uploaded')
        say(`  part ${e.part}: ${e.reused ? 'found earlier upload' : 'uploaded'} ${e.fileId}`);
      else if (e.type === 'created')
        say(`  part ${e.part}: ${e.reused ? 'found earlier batch' : 'batch'} ${e.batchId}`);
      else if (e.type === 'polled') {
        const done = e.completed + e.failed;
        const secs = (Date.now() - started) / 1000;
        const eta =
          done > 0 && done < e.total ? `, ETA ${Math.round((secs / done) * (e.total - done))} s` : '';
        say(`  ${done}/${e.total} requests done (${e.failed} failed), ${e.open} batch(es) open${eta}`);
      } else if (e.type === 'downloaded')
        say(`  part ${e.part}: ${e.status}; downloaded ${e.files.join(', ') || 'nothing'}`);
      else if (e.type === 'importing') say(`importing ${e.files.length} output file(s) into ${outDir}`);
    };
    try {
      const r = await runBatchJob({
        client: { baseURL, ...(apiKey ? { apiKey } : {}) },
        seedsPath,
        outDir,
        template,
        model: config.model,
        temperature: config.temperature,
        maxTokens: config.maxTokens,
        ...(judge ? { judge } : {}),
        ...(shard ? { shard } : {}),
        ...(limit !== undefined ? { limit } : {}),
        retryFailed: ctx.values['retry-failed'] === true,
        limits,
        pollIntervalMs: pollSeconds * 1000,
        ...(apiKey ? { secrets: [apiKey] } : {}),
        formatter: preset.config.train.formatter,
        config,
        command: ['dv', 'synth', 'batch', ...process.argv.slice(4)],
        signal: abort.signal,
        onEvent,
      });
      if (!r.summary) {
        ctx.stdout.write(
          `synth batch: nothing to submit; every seed of ${seedsPath} has a record in ${outDir}\n`,
        );
        return 0;
      }
      const s = r.summary;
      const failedParts = r.state.rounds.at(-1)!.parts.filter((p) => p.status !== 'completed');
      ctx.stdout.write(
        `synth batch: ${s.seeds} seeds, ${s.recorded} recorded, ${s.pending} pending; accepted ${s.accepted}, none ${s.none}, rejected ${s.rejected}, failed ${s.failed}\n` +
          failedParts
            .map(
              (p) => `  part ${p.part}: ${p.status}${p.errors.length ? ` (${p.errors.join('; ')})` : ''}\n`,
            )
            .join('') +
          `wrote ${Object.values(s.files).join(', ')} and manifest.json in ${s.outDir}; batch state in ${r.statePath}\n`,
      );
      if (s.pending > 0) {
        ctx.stderr.write(
          `${s.pending} seeds are still pending: rerun the same command to submit them in a new round.\n`,
        );
        return EXIT_PARTIAL;
      }
      return 0;
    } catch (err) {
      if (abort.signal.aborted) {
        ctx.stderr.write(`interrupted; the batch state is saved: rerun the same command to resume.\n`);
        return EXIT_INTERRUPTED;
      }
      if (err instanceof DataError && /refused the key/.test(err.message))
        throw new DataError(`${err.message}; set $${config.apiKeyEnv} (or --api-key-env) and rerun`);
      throw err;
    } finally {
      process.off('SIGINT', onSigint);
      lock.release();
    }
  },
};
