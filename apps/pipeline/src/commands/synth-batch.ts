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
  createJudge,
  getTemplate,
  OPENAI_BATCH_LIMITS,
  runBatchJob,
  synthesisJudgeNames,
  synthesisJudges,
} from '@dv/synth';
import { defineCommand, describeIssues, EXIT, requireString, shardOption, UsageError } from '../cli-kit.js';
import { lockOutputFolder } from '../output-folder.js';
import { BatchJobSettings, batchJobFlags } from '../run-configs/batch-job-settings.js';
import { renderBatchEvents } from '../synth/render-batch-events.js';

export const synthBatchCommand = defineCommand({
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
  flags: batchJobFlags,
  options: {
    seeds: { type: 'string', description: 'seed examples (SeedExample JSONL)', valueName: 'FILE' },
    out: { type: 'string', description: 'run folder (resumes what is there)', valueName: 'DIR' },
    'base-url': {
      type: 'string',
      description: 'API base URL, e.g. https://api.openai.com/v1',
      valueName: 'URL',
    },
    preset: {
      type: 'string',
      description: 'synthesis defaults: mini | paper',
      valueName: 'NAME',
      default: 'paper',
    },
    judge: {
      type: 'string',
      description:
        'verification: an offline judge of the registry (lexical, lexical-text, lexical-metadata) or none',
      valueName: 'NAME',
    },
    shard: { type: 'string', description: 'seeds of shard i of n (0-based)', valueName: 'i/n' },
    'retry-failed': { type: 'boolean', description: 'resubmit seeds whose record is "failed"' },
  },
  async run(ctx) {
    const seedsPath = requireString(ctx, 'seeds');
    const outDir = requireString(ctx, 'out');
    const baseURL = requireString(ctx, 'base-url');
    const preset = (presets as Record<string, (typeof presets)['mini']>)[ctx.values.preset];
    if (!preset) throw new UsageError(`unknown preset '${ctx.values.preset}'`);
    const judgeName = ctx.values.judge || (preset.config.synthesis.verify ? 'lexical' : 'none');
    const offlineJudges = synthesisJudgeNames.filter((n) => !synthesisJudges[n].needsEndpoint);
    if (judgeName !== 'none' && !(offlineJudges as string[]).includes(judgeName))
      throw new UsageError(
        `--judge must be ${offlineJudges.join(', ')} or none (an llm judge needs the online backend)`,
      );
    const job = BatchJobSettings.omit({ synthesis: true }).parse(ctx.settings);
    const parsed = SynthesisConfig.safeParse({
      ...preset.config.synthesis,
      backend: 'openai',
      baseURLs: [baseURL],
      ...ctx.settings.synthesis,
      verify: judgeName !== 'none',
      ...(judgeName !== 'none' ? { judge: judgeName } : {}),
    });
    if (!parsed.success)
      throw new UsageError(describeIssues(batchJobFlags, parsed.error.issues, { prefix: ['synthesis'] }));
    const config = parsed.data;
    let template: ReturnType<typeof getTemplate>;
    try {
      template = getTemplate(config.templateId);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const shard = shardOption(ctx);
    const apiKey = process.env[config.apiKeyEnv];
    const judge =
      config.verify && config.judge ? createJudge(config.judge, config.judgeThreshold) : undefined;

    // the one output-folder guard, then one writer per folder (issue 25); released below
    const lock = lockOutputFolder(outDir, `dv synth batch --out ${outDir}`);
    const abort = new AbortController();
    const onSigint = () => abort.abort(new Error('interrupted'));
    process.once('SIGINT', onSigint);
    const onEvent = renderBatchEvents(ctx.stderr, outDir);
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
        ...(job.limit !== undefined ? { limit: job.limit } : {}),
        retryFailed: ctx.values['retry-failed'] === true,
        limits: { maxRequests: job.maxRequests, maxBytes: job.maxBytes },
        pollIntervalMs: job.pollSeconds * 1000,
        ...(apiKey ? { secrets: [apiKey] } : {}),
        formatter: preset.config.train.formatter,
        config,
        command: ctx.commandLine,
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
        return EXIT.partial;
      }
      return 0;
    } catch (err) {
      if (abort.signal.aborted) {
        ctx.stderr.write(`interrupted; the batch state is saved: rerun the same command to resume.\n`);
        return EXIT.interrupted;
      }
      if (err instanceof DataError && /refused the key/.test(err.message))
        throw new DataError(`${err.message}; set $${config.apiKeyEnv} (or --api-key-env) and rerun`);
      throw err;
    } finally {
      process.off('SIGINT', onSigint);
      lock.release();
    }
  },
});
