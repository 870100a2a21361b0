/**
 * `dv eval trec`: trec_eval's measures for a TREC run against TREC qrels. In its own module,
 * importing only @dv/core and @dv/eval/metrics, so `dv eval trec` starts without the rest of
 * `dv eval`'s imports (the benchmark registry, encoders, parquet, tfjs): command-index.ts loads
 * command-tree/eval-trec-only.ts for `dv eval trec ...` and the whole `dv eval` otherwise.
 */
import { DataError } from '@dv/core';
import { evaluateTrecFiles, parseMeasures, trecEvalText } from '@dv/eval/metrics';
import { defineCommand, requireString, UsageError } from '../cli-kit.js';

export const evalTrecCommand = defineCommand({
  name: 'trec',
  summary: 'trec_eval-compatible measures for a run',
  usage: '--qrels QRELS --run RUN [--measures LIST] [--per-query] [--json]',
  description: `Reads TREC qrels ("qid 0 docid grade") and a TREC run ("qid Q0 docid rank score tag") and
prints trec_eval-named measures (trec_eval 9.0.8 semantics: score descending, ties by doc id
descending, scores rounded to float32 as pytrec_eval does; mean over topics in both files).
Measures: ndcg_cut.K, ndcg, map_cut.K, map, P.K, recall.K, recip_rank, recip_rank_cut.K (MRR@K).
Without --json the output is trec_eval's, byte for byte: "measure<TAB>qid|all<TAB>value" (printf
%.4f: exact ties round to even); --per-query groups lines by topic as trec_eval -q does.
Inputs as trec_eval reads them: 6+ run columns (extra ignored), grades like 1.0, inf/-inf scores;
blank lines are refused (as trec_eval does); fractional grades and NaN scores are refused (see the message).`,
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
    const e = await evaluateTrecFiles(qrelsPath, runPath, specs, { float32: !ctx.values.float64 });
    if (e.numQueries === 0) throw new DataError(`no topic of the run is judged in ${qrelsPath}`, runPath);
    const perQuery = Boolean(ctx.values['per-query']);
    if (ctx.values.json) {
      const out: Record<string, unknown> = { ...e.means };
      if (perQuery) out.per_query = e.perQuery;
      ctx.stdout.write(`${JSON.stringify(out)}\n`);
      return 0;
    }
    ctx.stdout.write(trecEvalText(e, specs, { perQuery }));
    ctx.stderr.write(`${e.numQueries} topics evaluated\n`);
    return 0;
  },
});
