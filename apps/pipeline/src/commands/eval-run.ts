/**
 * `dv eval run`: one model on one benchmark (@dv/eval `runBenchmark`): result JSON, TREC runs,
 * manifest and the paper-style table. The sets and the ranker come from eval/ modules; this
 * file parses, claims the output folder, runs and prints.
 */
import { resolve } from 'node:path';
import { createProgress, DataError, prepareOutputDir } from '@dv/core';
import {
  BENCHMARKS,
  benchmarkEntry,
  benchmarkNames,
  benchmarkProfiles,
  describeBenchmarkEvent,
  modelFactories,
  paperTable,
  runBenchmark,
  TASK_SOURCES,
  UnknownTaskError,
} from '@dv/eval';
import { z } from 'zod';
import { defineCommand, enumOption, requireString, schemaFlags, UsageError } from '../cli-kit.js';
import { createEvalRanker } from '../eval/create-eval-ranker.js';
import { formatterFrom, formatterOptions } from '../eval/formatter-options.js';
import { loadEvalSets } from '../eval/load-eval-sets.js';
import { precisionFrom, precisionOption } from '../eval/precision-option.js';
import { rankerWithEmbeddings } from '../eval/ranker-with-embeddings.js';

/** The run's settings: the retrieval depth (absent: the benchmark's). */
const EvalRunSettings = z.object({
  topK: z.number().int().positive().optional().describe("retrieval depth (default: the benchmark's)"),
});

export const evalRunCommand = defineCommand({
  name: 'run',
  summary: 'evaluate a model on a benchmark',
  usage:
    '--benchmark NAME --model SPEC [--data DIR | --set FILE...] [--source paper|mteb2] [--out DIR] [--top-k K] [--json]',
  description: `Evaluates one model on one benchmark: ranks every set under each instruction mode (reranking
candidate lists for FollowIR, exact full-corpus search otherwise), then writes TREC runs,
result JSON (EvaluationResult + mteb layout), summary.json and manifest.json into --out, and
prints the paper-style table (x100).
Benchmarks (the task registry of @dv/eval; each task pins its dataset revision and measures):
${Object.values(BENCHMARKS)
  .map(
    (b) =>
      `  ${b.name}${b.aliases.length ? ` (or ${b.aliases.join(', ')})` : ''}: ${benchmarkProfiles[b.profile].description}; sets: ${b.source}`,
  )
  .join('\n')}
Models (dense ones rank by exact inner product; OPENAI_BASE_URL / OPENAI_API_KEY from the environment): ${Object.values(
    modelFactories,
  )
    .map((f) => f.usage)
    .join(', ')}.
tfjs:DIR runs a @dv/train model with tfjs: a Hugging Face folder (config.json, model.safetensors,
tokenizer.json; pooling from 1_Pooling) or a training checkpoint (tokenizer.json in it or its parent
folder; CLS pooling), on the backend DV_TF_BACKEND selects (default: the fastest; see dv doctor).
--set FILE (repeatable; an InstructedSet as JSON, see @dv/eval readInstructedSetJson) replaces the loader;
its name must be one of the benchmark's tasks (the mini and MAIR benchmarks take any name).
--source mteb2 reads the copy of the data that mteb 2 evaluates instead of the paper's (FollowIR:
mteb/Core17InstructionRetrieval and mteb/News21InstructionRetrieval, jhu-clsp/robust04-instructions-mteb,
at the revisions mteb's task files pin; with --data, folders in that layout). Each result records
the repo@commit or folder it read ("datasetSource"), and the table names it on stderr.`,
  flags: schemaFlags(EvalRunSettings, { 'top-k': { path: 'topK', valueName: 'K' } }),
  options: {
    benchmark: { type: 'string', description: benchmarkNames().join('|'), valueName: 'NAME' },
    model: {
      type: 'string',
      description: 'model spec: bm25, onnx:DIR, tfjs:DIR, openai:MODEL',
      valueName: 'SPEC',
    },
    set: {
      type: 'string',
      multiple: true,
      description: 'InstructedSet JSON file (repeatable)',
      valueName: 'FILE',
    },
    data: { type: 'string', description: 'local benchmark folder (see above)', valueName: 'DIR' },
    offline: { type: 'boolean', description: 'Hub sets from the local cache only' },
    source: {
      type: 'string',
      description: `which copy of the data: ${TASK_SOURCES.join(' | ')} (mteb2: what mteb 2 evaluates)`,
      valueName: 'S',
      default: 'paper',
    },
    out: { type: 'string', description: 'output folder', valueName: 'DIR', default: 'runs/eval' },
    'cache-dir': {
      type: 'string',
      description:
        'corpus-embedding cache (default: $DV_CACHE, else $XDG_CACHE_HOME/dv, else ~/.cache/dv; /embeddings)',
      valueName: 'DIR',
    },
    ...precisionOption,
    ...formatterOptions,
    'infosearch-variant': {
      type: 'string',
      description: "InfoSearch metric definitions: 'paper' or 'code' (the released implementation)",
      valueName: 'V',
      default: 'paper',
    },
    json: { type: 'boolean', description: 'print the summary as JSON instead of the table' },
    force: {
      type: 'boolean',
      description: "replace another run's outputs in --out (the same run reruns in place)",
    },
    embeddings: {
      type: 'string',
      description: "corpus embeddings from 'dv eval encode' (shards merged; --model encodes the queries)",
      valueName: 'DIR',
    },
  },
  async run(ctx) {
    const name = requireString(ctx, 'benchmark');
    const variant = enumOption(ctx, 'infosearch-variant', ['paper', 'code'] as const) ?? 'paper';
    let bench: ReturnType<typeof benchmarkEntry>;
    try {
      bench = benchmarkEntry(name);
    } catch (err) {
      if (err instanceof UnknownTaskError) throw new UsageError(err.message);
      throw err;
    }
    const spec = requireString(ctx, 'model');
    const precision = precisionFrom(ctx, spec);
    const files = ctx.values.set ?? [];
    const data = ctx.values.data !== undefined ? resolve(ctx.values.data) : undefined;
    const { topK } = EvalRunSettings.parse(ctx.settings);
    const source = enumOption(ctx, 'source', TASK_SOURCES) ?? 'paper';
    const offline = Boolean(ctx.values.offline);
    const sets = await loadEvalSets({ bench, files, data, offline, source, stderr: ctx.stderr });
    if (sets.length === 0) throw new DataError(`no ${name} sets to evaluate`, data);
    let ranker = await createEvalRanker(spec, {
      cacheDir: ctx.values['cache-dir'],
      formatter: formatterFrom(ctx),
      precision,
      stderr: ctx.stderr,
    });
    const embeddings = ctx.values.embeddings !== undefined ? resolve(ctx.values.embeddings) : undefined;
    if (embeddings) ranker = await rankerWithEmbeddings(ranker, embeddings);
    const outDir = resolve(String(ctx.values.out));
    // one run per folder: the same settings rerun in place, others need another --out or --force
    const claimed = await prepareOutputDir(outDir, {
      kind: 'eval-run',
      identity: {
        benchmark: bench.name,
        model: spec,
        ...(precision === 'int8' ? { precision } : {}),
        sets: files.map((f) => resolve(f)),
        data: data ?? null,
        ...(source !== 'paper' ? { source } : {}),
        topK: topK ?? null,
        variant,
        prefixes: [ctx.values['query-prefix'] ?? '', ctx.values['document-prefix'] ?? ''],
        instructionFirst: Boolean(ctx.values['instruction-first']),
        embeddings: embeddings ?? null,
      },
      force: ctx.values.force === true,
    });
    if (claimed.removed.length)
      ctx.stderr.write(
        `note: --force removed ${claimed.removed.length} files of the previous run in ${outDir}\n`,
      );
    const progress = createProgress({ label: `eval ${name}`, total: sets.length, unit: 'sets' });
    const summary = await runBenchmark(sets, ranker, {
      benchmark: bench,
      scoring: { infoSearchVariant: variant },
      outDir,
      topK,
      command: ctx.commandLine.slice(1),
      config: { sets: files.length > 0 ? files : sets.map((x) => x.origin ?? x.name), data, embeddings },
      onEvent: (e) => progress.tick(e.type === 'set-done' ? 1 : 0, describeBenchmarkEvent(e)),
    });
    progress.done(`${summary.results.length} sets`);
    if (ctx.values.json) {
      const datasets = Object.fromEntries(summary.results.map((r) => [r.dataset, r.scores]));
      const sources = Object.fromEntries(
        summary.results.flatMap((r) => (r.datasetSource ? [[r.dataset, r.datasetSource]] : [])),
      );
      ctx.stdout.write(
        `${JSON.stringify({ benchmark: bench.name, model: summary.model, average: summary.average, datasets, sources })}\n`,
      );
    } else {
      ctx.stdout.write(`${paperTable(summary, bench.profile)}\n`);
      for (const r of summary.results)
        if (r.datasetSource) ctx.stderr.write(`${r.dataset}: read from ${r.datasetSource}\n`);
    }
    ctx.stderr.write(`wrote TREC runs, results and ${summary.manifest} under ${outDir}\n`);
    return 0;
  },
});
