/**
 * `dv eval ...`: metrics and benchmark runs (@dv/eval).
 *   trec: trec_eval-named measures for a TREC run against TREC qrels;
 *   pmrr: FollowIR p-MRR between an og and a changed run;
 *   run:  one model on one benchmark (result JSON, TREC runs, manifest, tables).
 * Output on stdout is stable for scripting (`--json`); progress and notes go to stderr.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  createProgress,
  DataError,
  FormatterSettings,
  type InstructedSet,
  readQrels,
  readRun,
} from '@dv/core';
import {
  fetchRegisteredDataset,
  hubDatasetEntry,
  loadFollowIRv1,
  loadInfoSearch,
  loadMairTask,
  loadMiniWorld,
} from '@dv/data';
import {
  type BenchmarkProfileName,
  benchmarkProfiles,
  createRanker,
  EmbeddingCache,
  evaluateRun,
  MissingTopicError,
  modelFactories,
  paperTable,
  parseMeasures,
  pMrr,
  readInstructedSetJson,
  runBenchmark,
  type TieBreak,
} from '@dv/eval';
import { type Command, requireString, UsageError } from '../cli-kit.js';
import { encodeCommand, rankerWithEmbeddings } from './eval-encode.js';

const trecCommand: Command = {
  name: 'trec',
  summary: 'trec_eval-compatible measures for a run',
  usage: '--qrels QRELS --run RUN [--measures LIST] [--per-query] [--json]',
  description: `Reads TREC qrels ("qid 0 docid grade") and a TREC run ("qid Q0 docid rank score tag") and
prints trec_eval-named measures (trec_eval 9.0.8 semantics: score descending, ties by doc id
descending, scores rounded to float32 as pytrec_eval does; mean over topics in both files).
Measures: ndcg_cut.K, ndcg, map_cut.K, map, P.K, recall.K, recip_rank, recip_rank_cut.K (MRR@K).
Without --json the output is trec_eval's: "measure<TAB>qid|all<TAB>value" (4 decimals).`,
  options: {
    qrels: { type: 'string', description: 'TREC qrels file', valueName: 'FILE' },
    run: { type: 'string', description: 'TREC run file', valueName: 'FILE' },
    measures: {
      type: 'string',
      description: 'comma-separated measures',
      valueName: 'LIST',
      default: 'ndcg_cut.10,map,recip_rank',
    },
    'per-query': { type: 'boolean', description: 'also print each topic' },
    json: { type: 'boolean', description: 'one JSON object {measure: mean[, per_query]}' },
    float64: { type: 'boolean', description: 'rank by the scores as written (no float32 rounding)' },
  },
  async run(ctx) {
    const qrelsPath = requireString(ctx, 'qrels');
    const runPath = requireString(ctx, 'run');
    let specs: ReturnType<typeof parseMeasures>;
    try {
      specs = parseMeasures(String(ctx.values.measures));
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const [qrels, run] = await Promise.all([readQrels(qrelsPath), readRun(runPath)]);
    const e = evaluateRun(qrels, run, specs, { float32: !ctx.values.float64 });
    if (e.numQueries === 0) throw new DataError(`no topic of the run is judged in ${qrelsPath}`, runPath);
    const perQuery = Boolean(ctx.values['per-query']);
    if (ctx.values.json) {
      const out: Record<string, unknown> = { ...e.means };
      if (perQuery) out.per_query = e.perQuery;
      ctx.stdout.write(`${JSON.stringify(out)}\n`);
      return 0;
    }
    const lines: string[] = [];
    for (const s of specs) {
      if (perQuery) {
        for (const [qid, row] of Object.entries(e.perQuery)) {
          lines.push(`${s.name.padEnd(22)}\t${qid}\t${row[s.name]!.toFixed(4)}`);
        }
      }
      lines.push(`${s.name.padEnd(22)}\tall\t${e.means[s.name]!.toFixed(4)}`);
    }
    ctx.stdout.write(`${lines.join('\n')}\n`);
    ctx.stderr.write(`${e.numQueries} topics evaluated\n`);
    return 0;
  },
};

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
    const tieBreak = String(ctx.values['tie-break']);
    if (tieBreak !== 'docid-desc' && tieBreak !== 'insertion')
      throw new UsageError(`--tie-break must be docid-desc or insertion, not '${tieBreak}'`);
    const [qrelsOg, qrelsChanged, runOg, runChanged] = await Promise.all([
      readQrels(paths.qrelsOg),
      readQrels(paths.qrelsChanged),
      readRun(paths.runOg),
      readRun(paths.runChanged),
    ]);
    let r: ReturnType<typeof pMrr>;
    try {
      r = pMrr({ qrelsOg, qrelsChanged, runOg, runChanged }, { tieBreak: tieBreak as TieBreak });
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
    for (const [qid, v] of Object.entries(r.perQuery)) ctx.stdout.write(`p_mrr\t${qid}\t${v.toFixed(4)}\n`);
    ctx.stdout.write(`p_mrr\tall\t${r.pMrr.toFixed(4)}\n`);
    ctx.stderr.write(
      `p-MRR ${(r.pMrr * 100).toFixed(2)} (x100) over ${r.numQueries} topics, ${r.numChangedDocs} changed docs\n`,
    );
    return 0;
  },
};

interface LoadContext {
  /** `--data DIR`, if given. */
  data: string | undefined;
  offline: boolean;
  note: (line: string) => void;
}

/** Subfolders of `dir` (sorted), for folders holding one dataset per subfolder. */
function subfolders(dir: string): string[] {
  if (!existsSync(dir)) throw new DataError('folder not found', dir);
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/** FollowIR's three sets: Hub registry name -> mteb task name (which picks the Score measure). */
const FOLLOWIR_SETS = {
  'followir-robust04': 'Robust04InstructionRetrieval',
  'followir-news21': 'News21InstructionRetrieval',
  'followir-core17': 'Core17InstructionRetrieval',
} as const;

const INFOSEARCH_SETS = {
  'infosearch-audience': 'InfoSearch-Audience',
  'infosearch-keyword': 'InfoSearch-Keyword',
  'infosearch-format': 'InfoSearch-Format',
  'infosearch-language': 'InfoSearch-Language',
  'infosearch-length': 'InfoSearch-Length',
  'infosearch-source': 'InfoSearch-Source',
} as const;

/** Fetches registered Hub sets at their pins (from the cache when present) and loads them. */
async function fromHub(
  sets: Record<string, string>,
  load: (dir: string, opts: { name: string; origin: string; revision: string }) => Promise<InstructedSet>,
  ctx: LoadContext,
): Promise<InstructedSet[]> {
  const out: InstructedSet[] = [];
  for (const [registered, name] of Object.entries(sets)) {
    if (!hubDatasetEntry(registered).revision) {
      ctx.note(
        `skipping ${name}: ${registered} has no pinned revision yet (${hubDatasetEntry(registered).note})`,
      );
      continue;
    }
    const got = await fetchRegisteredDataset(registered, ctx.offline ? { offline: true } : {});
    out.push(await load(got.dir, { name, origin: got.repo, revision: got.commit }));
  }
  return out;
}

/**
 * Benchmarks `dv eval run` knows: how each is scored and where its sets come from (the
 * @dv/data loaders). `--set FILE` (InstructedSet JSON) replaces the loader for any of them.
 */
const benchmarks = Object.freeze({
  followir: {
    profile: 'followir',
    source: 'Hub (pinned; cache first), or --data DIR with one FollowIR v1 folder per set',
    load: (ctx: LoadContext) =>
      ctx.data
        ? Promise.all(subfolders(ctx.data).map((d) => loadFollowIRv1(join(ctx.data!, d))))
        : fromHub(FOLLOWIR_SETS, loadFollowIRv1, ctx),
  },
  infosearch: {
    profile: 'infosearch',
    source: 'Hub (pinned; cache first), or --data DIR with one InfoSearch folder per dimension',
    load: (ctx: LoadContext) =>
      ctx.data
        ? Promise.all(subfolders(ctx.data).map((d) => loadInfoSearch(join(ctx.data!, d))))
        : fromHub(INFOSEARCH_SETS, loadInfoSearch, ctx),
  },
  mair: {
    profile: 'mair',
    source: '--data DIR with <task>/queries.jsonl and <task>/docs.jsonl per task',
    load: async (ctx: LoadContext) => {
      if (!ctx.data) throw new UsageError('mair needs --data DIR (MAIR has no pinned Hub revision yet)');
      const dir = ctx.data;
      return Promise.all(
        subfolders(dir).map((t) =>
          loadMairTask(
            { queries: [join(dir, t, 'queries.jsonl')], docs: [join(dir, t, 'docs.jsonl')] },
            { name: t, origin: join(dir, t) },
          ),
        ),
      );
    },
  },
  mini: {
    profile: 'followir',
    source: "--data DIR, a mini world built by 'dv data build-mini' (its FollowIR-form benchmark)",
    load: async (ctx: LoadContext) => {
      if (!ctx.data)
        throw new UsageError("mini needs --data DIR (build one with 'dv data build-mini --out DIR')");
      return [await (await loadMiniWorld(ctx.data)).loadFollowIR()];
    },
  },
  'mini-infosearch': {
    profile: 'infosearch',
    source: '--data DIR, a mini world (its InfoSearch-style sets, one per lever with topics)',
    load: async (ctx: LoadContext) => {
      if (!ctx.data) throw new UsageError('mini-infosearch needs --data DIR (a mini world)');
      const world = await loadMiniWorld(ctx.data);
      const sets = await Promise.all(world.levers.map((l) => world.loadInfoSearch(l)));
      return sets.filter((s) => s.queries.length > 0);
    },
  },
} as const satisfies Record<
  string,
  { profile: BenchmarkProfileName; source: string; load: (ctx: LoadContext) => Promise<InstructedSet[]> }
>);

const runCommand: Command = {
  name: 'run',
  summary: 'evaluate a model on a benchmark',
  usage: '--benchmark NAME --model SPEC [--data DIR | --set FILE...] [--out DIR] [--top-k K] [--json]',
  description: `Evaluates one model on one benchmark: ranks every set under each instruction mode (reranking
candidate lists for FollowIR, exact full-corpus search otherwise), then writes TREC runs,
result JSON (EvaluationResult + mteb layout), summary.json and manifest.json into --out, and
prints the paper-style table (x100).
Benchmarks (and where their sets come from):
${Object.entries(benchmarks)
  .map(([k, v]) => `  ${k}: ${benchmarkProfiles[v.profile].description}; sets: ${v.source}`)
  .join('\n')}
Models (dense ones rank by exact inner product; OPENAI_BASE_URL / OPENAI_API_KEY from the environment): ${Object.values(
    modelFactories,
  )
    .map((f) => f.usage)
    .join(', ')}.
tfjs:DIR runs a @dv/train model with tfjs: a Hugging Face folder (config.json, model.safetensors,
tokenizer.json; pooling from 1_Pooling) or a training checkpoint (tokenizer.json in it or its parent
folder; CLS pooling), on the backend DV_TF_BACKEND selects (default: the fastest; see dv doctor).
--set FILE (repeatable; an InstructedSet as JSON, see @dv/eval readInstructedSetJson) replaces the loader.`,
  options: {
    benchmark: { type: 'string', description: Object.keys(benchmarks).join('|'), valueName: 'NAME' },
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
    out: { type: 'string', description: 'output folder', valueName: 'DIR', default: 'runs/eval' },
    'top-k': { type: 'string', description: "retrieval depth (default: the benchmark's)", valueName: 'K' },
    'cache-dir': {
      type: 'string',
      description: 'corpus-embedding cache',
      valueName: 'DIR',
      default: '.cache/embeddings',
    },
    'query-prefix': {
      type: 'string',
      description: "model prompt before each query (e.g. 'query: ')",
      valueName: 'TEXT',
    },
    'document-prefix': {
      type: 'string',
      description: 'model prompt before each document',
      valueName: 'TEXT',
    },
    'instruction-first': { type: 'boolean', description: 'put the instruction before the query' },
    'infosearch-variant': {
      type: 'string',
      description: "InfoSearch metric definitions: 'paper' or 'code' (the released implementation)",
      valueName: 'V',
      default: 'paper',
    },
    json: { type: 'boolean', description: 'print the summary as JSON instead of the table' },
    embeddings: {
      type: 'string',
      description: "corpus embeddings from 'dv eval encode' (shards merged; --model encodes the queries)",
      valueName: 'DIR',
    },
  },
  async run(ctx) {
    const name = requireString(ctx, 'benchmark');
    const variant = String(ctx.values['infosearch-variant']);
    if (variant !== 'paper' && variant !== 'code')
      throw new UsageError(`--infosearch-variant must be paper or code, not '${variant}'`);
    const bench = (benchmarks as Record<string, (typeof benchmarks)[keyof typeof benchmarks]>)[name];
    if (!bench)
      throw new UsageError(`unknown benchmark '${name}'; one of: ${Object.keys(benchmarks).join(', ')}`);
    const spec = requireString(ctx, 'model');
    const files = (ctx.values.set as string[] | undefined) ?? [];
    const data = typeof ctx.values.data === 'string' ? resolve(ctx.values.data) : undefined;
    if (files.length > 0 && data) throw new UsageError('give --data or --set, not both');
    let topK: number | undefined;
    if (ctx.values['top-k'] !== undefined) {
      topK = Number(ctx.values['top-k']);
      if (!Number.isInteger(topK) || topK < 1) throw new UsageError('--top-k must be a positive integer');
    }
    const sets: InstructedSet[] =
      files.length > 0
        ? files.map((f) => readInstructedSetJson(f))
        : await bench.load({
            data,
            offline: Boolean(ctx.values.offline),
            note: (line) => ctx.stderr.write(`note: ${line}\n`),
          });
    if (sets.length === 0) throw new DataError(`no ${name} sets to evaluate`, data);
    let encoding: ReturnType<typeof createProgress> | null = null;
    let encodingTotal = 0;
    let encodingDone = 0;
    let ranker: Awaited<ReturnType<typeof createRanker>>;
    try {
      ranker = await createRanker(spec, {
        cache: new EmbeddingCache(resolve(String(ctx.values['cache-dir']))),
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
        formatter: FormatterSettings.parse({
          queryPrefix: ctx.values['query-prefix'] ?? '',
          documentPrefix: ctx.values['document-prefix'] ?? '',
          instructionFirst: Boolean(ctx.values['instruction-first']),
        }),
      });
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const embeddings = typeof ctx.values.embeddings === 'string' ? resolve(ctx.values.embeddings) : undefined;
    if (embeddings) ranker = await rankerWithEmbeddings(ranker, embeddings);
    const outDir = resolve(String(ctx.values.out));
    const progress = createProgress({ label: `eval ${name}`, total: sets.length, unit: 'sets' });
    const summary = await runBenchmark(sets, ranker, {
      benchmark: name,
      profile: bench.profile,
      scoring: { infoSearchVariant: variant },
      outDir,
      topK,
      command: process.argv.slice(2),
      config: { sets: files.length > 0 ? files : sets.map((x) => x.origin ?? x.name), data, embeddings },
      log: (line) => {
        progress.tick(line.includes(' in ') ? 1 : 0, line);
      },
    });
    progress.done(`${summary.results.length} sets`);
    if (ctx.values.json) {
      const datasets = Object.fromEntries(summary.results.map((r) => [r.dataset, r.scores]));
      ctx.stdout.write(
        `${JSON.stringify({ benchmark: name, model: summary.model, average: summary.average, datasets })}\n`,
      );
    } else {
      ctx.stdout.write(`${paperTable(summary, bench.profile)}\n`);
    }
    ctx.stderr.write(`wrote TREC runs, results and ${summary.manifest} under ${outDir}\n`);
    return 0;
  },
};

export const evalCommand: Command = {
  name: 'eval',
  summary: 'metrics and benchmark runs',
  subcommands: [trecCommand, pmrrCommand, runCommand, encodeCommand],
};
