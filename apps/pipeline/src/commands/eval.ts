/**
 * `dv eval ...`: metrics and benchmark runs (@dv/eval).
 *   trec: trec_eval-named measures for a TREC run against TREC qrels (eval-trec.ts);
 *   pmrr: FollowIR p-MRR between an og and a changed run;
 *   run:  one model on one benchmark (result JSON, TREC runs, manifest, tables).
 * Output on stdout is stable for scripting (`--json`); progress and notes go to stderr.
 */
import { resolve } from 'node:path';
import {
  createProgress,
  DataError,
  dvCacheDir,
  guardOutputDir,
  type InstructedSet,
  prepareOutputDir,
  readQrels,
  readRun,
} from '@dv/core';
import {
  BENCHMARKS,
  benchmarkEntry,
  benchmarkNames,
  benchmarkProfiles,
  createRanker,
  describeBenchmarkEvent,
  EmbeddingCache,
  loadBenchmarkSets,
  modelFactories,
  NeedsDataError,
  paperTable,
  readInstructedSetJson,
  runBenchmark,
  TASK_SOURCES,
  UnknownTaskError,
} from '@dv/eval';
import { formatTrecFloat, MissingTopicError, pMrr, type TieBreak } from '@dv/eval/metrics';
import { type Command, enumOption, numberOption, requireString, UsageError } from '../cli-kit.js';
import { registerTfjsModel } from '../tfjs-model.js';
import { encodeCommand, precisionFrom, precisionOption, rankerWithEmbeddings } from './eval-encode.js';
import { evalTrecCommand, trecCommand } from './eval-trec.js';
import { formatterFrom, formatterOptions } from './formatter-options.js';

// `tfjs:DIR` models (@dv/eval alone knows none); `dv eval encode` is a subcommand, so it has them too.
registerTfjsModel();

const pmrrCommand: Command = {
  name: 'pmrr',
  summary: 'FollowIR p-MRR between two runs',
  usage: '--qrels-og F --qrels-changed F --run-og F --run-changed F [--json]',
  description: `p-MRR (FollowIR; mteb's evaluate_p_mrr_change): for each doc whose grade differs between the
og and changed qrels, compares its rank in the og run with its rank in the changed run
(missing docs rank at run length + 1); mean per topic, then over topics. Printed as a
fraction in [-1, 1] ("p_mrr"); papers report x100. Ties: doc id descending (mteb's fix);
--tie-break insertion reproduces the older run-order behaviour.`,
  options: {
    'qrels-og': { type: 'string', description: 'qrels under the original instruction', valueName: 'FILE' },
    'qrels-changed': {
      type: 'string',
      description: 'qrels under the changed instruction',
      valueName: 'FILE',
    },
    'run-og': { type: 'string', description: 'run with the original instruction', valueName: 'FILE' },
    'run-changed': { type: 'string', description: 'run with the changed instruction', valueName: 'FILE' },
    'tie-break': {
      type: 'string',
      description: 'docid-desc or insertion',
      valueName: 'RULE',
      default: 'docid-desc',
    },
    json: { type: 'boolean', description: 'print {"p_mrr": x, "per_query": {...}}' },
  },
  async run(ctx) {
    const paths = {
      qrelsOg: requireString(ctx, 'qrels-og'),
      qrelsChanged: requireString(ctx, 'qrels-changed'),
      runOg: requireString(ctx, 'run-og'),
      runChanged: requireString(ctx, 'run-changed'),
    };
    const tieBreak = enumOption(ctx, 'tie-break', ['docid-desc', 'insertion'] as const satisfies TieBreak[]);
    const [qrelsOg, qrelsChanged, runOg, runChanged] = await Promise.all([
      readQrels(paths.qrelsOg),
      readQrels(paths.qrelsChanged),
      readRun(paths.runOg),
      readRun(paths.runChanged),
    ]);
    let r: ReturnType<typeof pMrr>;
    try {
      r = pMrr({ qrelsOg, qrelsChanged, runOg, runChanged }, { ...(tieBreak ? { tieBreak } : {}) });
    } catch (err) {
      if (err instanceof MissingTopicError)
        throw new DataError(err.message, err.which === 'og' ? paths.runOg : paths.runChanged);
      throw err;
    }
    if (r.numQueries === 0)
      throw new DataError(`no doc changes grade between the og and changed qrels`, paths.qrelsChanged);
    if (ctx.values.json) {
      ctx.stdout.write(`${JSON.stringify({ p_mrr: r.pMrr, per_query: r.perQuery })}\n`);
      return 0;
    }
    for (const [qid, v] of Object.entries(r.perQuery))
      ctx.stdout.write(`p_mrr\t${qid}\t${formatTrecFloat(v)}\n`);
    ctx.stdout.write(`p_mrr\tall\t${formatTrecFloat(r.pMrr)}\n`);
    ctx.stderr.write(
      `p-MRR ${(r.pMrr * 100).toFixed(2)} (x100) over ${r.numQueries} topics, ${r.numChangedDocs} changed docs\n`,
    );
    return 0;
  },
};

const runCommand: Command = {
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
    'top-k': { type: 'string', description: "retrieval depth (default: the benchmark's)", valueName: 'K' },
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
    const files = (ctx.values.set as string[] | undefined) ?? [];
    const data = typeof ctx.values.data === 'string' ? resolve(ctx.values.data) : undefined;
    if (files.length > 0 && data) throw new UsageError('give --data or --set, not both');
    const topK = numberOption(ctx, 'top-k', { integer: true, positive: true });
    const source = enumOption(ctx, 'source', TASK_SOURCES) ?? 'paper';
    if (source !== 'paper' && files.length > 0)
      throw new UsageError(
        `--source ${source} picks what the loader reads; --set files are read as they are`,
      );
    let sets: InstructedSet[];
    try {
      sets =
        files.length > 0
          ? files.map((f) => readInstructedSetJson(f))
          : await loadBenchmarkSets(bench, {
              ...(data ? { data } : {}),
              offline: Boolean(ctx.values.offline),
              note: (line) => ctx.stderr.write(`note: ${line}\n`),
              source,
            });
    } catch (err) {
      if (err instanceof NeedsDataError) throw new UsageError(err.message);
      // a benchmark without a copy from --source (InfoSearch, MAIR, the mini world)
      if (err instanceof UnknownTaskError && source !== 'paper') throw new UsageError(err.message);
      throw err;
    }
    if (sets.length === 0) throw new DataError(`no ${name} sets to evaluate`, data);
    let encoding: ReturnType<typeof createProgress> | null = null;
    let encodingTotal = 0;
    let encodingDone = 0;
    let ranker: Awaited<ReturnType<typeof createRanker>>;
    try {
      ranker = await createRanker(spec, {
        // one documented cache place, never the working directory (issue 25)
        cache: new EmbeddingCache(
          typeof ctx.values['cache-dir'] === 'string'
            ? guardOutputDir(ctx.values['cache-dir'], { flag: '--cache-dir' })
            : dvCacheDir(process.env, 'embeddings'),
          { onNote: (line) => ctx.stderr.write(`note: ${line}\n`) },
        ),
        env: process.env,
        onEncode: (kind, done, total) => {
          if (!encoding || encodingTotal !== total || done <= encodingDone) {
            encoding = createProgress({ label: `encode ${kind}`, total, unit: 'texts' });
            encodingTotal = total;
          }
          encodingDone = done;
          encoding.update(done);
          if (done === total) {
            encoding.done();
            encoding = null;
          }
        },
        formatter: formatterFrom(ctx),
        precision,
      });
    } catch (err) {
      // a spec we do not know is usage (2); a model that fails to load or answer is a failure (1)
      const message = (err as Error).message;
      if (/^unknown model|needs a model/.test(message)) throw new UsageError(message);
      if (err instanceof DataError) throw err;
      throw new DataError(`cannot load model '${spec}': ${message}`);
    }
    const embeddings = typeof ctx.values.embeddings === 'string' ? resolve(ctx.values.embeddings) : undefined;
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
      command: process.argv.slice(2),
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
};

export const evalCommand: Command = {
  name: 'eval',
  summary: evalTrecCommand.summary,
  subcommands: [trecCommand, pmrrCommand, runCommand, encodeCommand],
};
