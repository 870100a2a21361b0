/** `dv eval pmrr`: FollowIR p-MRR between an og and a changed run (@dv/eval `pMrr`). */
import { DataError, readQrels, readRun } from '@dv/core';
import { formatTrecFloat, MissingTopicError, pMrr, type TieBreak } from '@dv/eval/metrics';
import { defineCommand, enumOption, requireString } from '../cli-kit.js';

export const evalPmrrCommand = defineCommand({
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
});
