#!/usr/bin/env node
/**
 * Diagnosis of a finished mini `pnpm reproduce` run folder (issue 26: "find why, before tuning"):
 *
 * 1. What each mix covers (mixes.json `composition` when the run has it, else computed from the
 *    mix files the same way): distinct queries (topics), query + instruction views, documents,
 *    labelled negatives per example and view.
 * 2. Truncation: token lengths with the run's own pretrained tokenizer, against the lengths the
 *    run used (training: train.model.maxQueryLength / maxDocLength; evaluation: eval.maxLength),
 *    for the training views, the training documents, the FollowIR-form queries under both
 *    instructions and its corpus. Share cut, median, 95th percentile, max.
 * 3. Per (mix, seed): the fine-tuning loss (first and last logged, min), FollowIR-form Score and
 *    p-MRR, so a collapsed seed (a Score far below its mix's other seeds) shows.
 *
 * Usage: node scripts/diagnose-run.mjs RUN_DIR [--backbone mini-bert] [--json]
 * Reads only; needs `pnpm build` (it imports @dv/train's tokenizer from its dist).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const args = process.argv.slice(2);
const run = args.find((a) => !a.startsWith('--'));
const flag = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
if (!run) {
  process.stderr.write('usage: node scripts/diagnose-run.mjs RUN_DIR [--backbone mini-bert] [--json]\n');
  process.exit(2);
}
if (!existsSync(join(run, 'stages'))) {
  process.stderr.write(
    `diagnose-run: ${run} is not a run folder (no stages/ in it; \`pnpm reproduce --out DIR\` makes one)\n`,
  );
  process.exit(1);
}
const distOf = async (path) => {
  try {
    return await import(join(root, path));
  } catch {
    process.stderr.write(`diagnose-run: ${path} is missing: run \`pnpm build\` first\n`);
    process.exit(1);
  }
};
const { HfTokenizer } = await distOf('packages/train/dist/index.js');
// the same function the mixes stage writes into mixes.json, for runs made before it did
const { mixComposition } = await distOf('packages/synth/dist/mix-composition.js');
const backbone = flag('--backbone', 'mini-bert');
const stages = join(run, 'stages');
const json = (p) => JSON.parse(readFileSync(p, 'utf8'));
const jsonl = (p) =>
  readFileSync(p, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
const stageConfig = (id) => json(join(stages, id, 'stage.json')).config.parts.slice;

// --- 1. composition -------------------------------------------------------------------------
const mixesDir = join(stages, 'mixes');
const mixNames = readdirSync(mixesDir).filter((d) => existsSync(join(mixesDir, d, 'train.jsonl')));
const summary = json(join(mixesDir, 'mixes.json'));
const composition = Object.fromEntries(
  mixNames.map((m) => [
    m,
    summary[m]?.composition ?? mixComposition(jsonl(join(mixesDir, m, 'train.jsonl'))),
  ]),
);

// --- 2. truncation --------------------------------------------------------------------------
// one pretrain stage per backbone, or with pretrain.perSeed one per seed (the first has the tokenizer
// every seed's backbone shares: the vocabulary is built before the MLM seed is used)
const pretrainRoot = join(stages, 'pretrain', backbone);
const pretrainDir = existsSync(join(pretrainRoot, 'stage.json'))
  ? pretrainRoot
  : join(
      pretrainRoot,
      readdirSync(pretrainRoot)
        .filter((d) => d.startsWith('seed-'))
        .sort()[0],
    );
const tok = HfTokenizer.fromFile(
  join(pretrainDir, json(join(pretrainDir, 'stage.json')).summary?.exportDir ?? 'export', 'tokenizer.json'),
);
const trainedMix = mixNames.find((m) => existsSync(join(stages, 'train', backbone, m)));
const trainSlice = stageConfig(
  `train/${backbone}/${trainedMix}/${readdirSync(join(stages, 'train', backbone, trainedMix))[0]}`,
);
const formatter = trainSlice.formatter;
const maxQ = trainSlice.model.maxQueryLength;
const maxD = trainSlice.model.maxDocLength;
const evalStage = [
  `eval/${backbone}/untrained`,
  `eval/${backbone}/${trainedMix}/${readdirSync(join(stages, 'train', backbone, trainedMix))[0]}`,
].find((id) => existsSync(join(stages, id, 'stage.json')));
const evalMax = stageConfig(evalStage).eval.maxLength;
const viewText = (q, ins) =>
  ins == null
    ? formatter.queryPrefix + q
    : formatter.queryPrefix +
      (formatter.instructionFirst ? `${ins}${formatter.joiner}${q}` : `${q}${formatter.joiner}${ins}`);
const docText = (d) =>
  formatter.documentPrefix + (d.title ? `${d.title}${formatter.titleJoiner}${d.text}` : d.text);
async function lengths(texts) {
  const out = [];
  for (let i = 0; i < texts.length; i += 512) {
    const b = await tok.encode(texts.slice(i, i + 512), { padding: 'none' });
    for (const ids of b.inputIds) out.push(ids.length);
  }
  return out.sort((a, b) => a - b);
}
const pct = (xs, p) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))];
async function lengthRow(name, texts, limit) {
  const xs = await lengths(texts);
  return {
    name,
    texts: xs.length,
    limit,
    cut: xs.filter((n) => n > limit).length / xs.length,
    p50: pct(xs, 0.5),
    p95: pct(xs, 0.95),
    max: xs.at(-1),
  };
}
const trainRows = jsonl(join(mixesDir, 'ins-dv', 'train.jsonl')).concat(
  mixNames.includes('all-orig')
    ? jsonl(join(mixesDir, 'all-orig', 'train.jsonl')).filter((r) => r.view === 'general')
    : [],
);
const uniq = (xs) => [...new Set(xs)];
const fir = join(stages, 'world', 'benchmark', 'followir');
const queries = jsonl(join(fir, 'queries.jsonl'));
const corpus = jsonl(join(fir, 'corpus.jsonl'));
const truncation = [
  await lengthRow(
    'training views (Ins-DV + general)',
    uniq(trainRows.map((r) => viewText(r.query, r.instruction))),
    maxQ,
  ),
  await lengthRow(
    'training documents',
    uniq(trainRows.flatMap((r) => [...r.positives, ...r.negatives].map(docText))),
    maxD,
  ),
  await lengthRow(
    'FollowIR-form queries, original instruction',
    queries.map((q) => viewText(q.text, q.instruction_og)),
    evalMax,
  ),
  await lengthRow(
    'FollowIR-form queries, changed instruction',
    queries.map((q) => viewText(q.text, q.instruction_changed)),
    evalMax,
  ),
  await lengthRow(
    'FollowIR-form corpus',
    corpus.map((d) => docText({ title: d.title, text: d.text })),
    evalMax,
  ),
];

// --- 3. per seed ----------------------------------------------------------------------------
const perSeed = [];
for (const mix of mixNames) {
  const dir = join(stages, 'train', backbone, mix);
  if (!existsSync(dir)) continue;
  for (const s of readdirSync(dir).sort()) {
    const m = existsSync(join(dir, s, 'metrics.jsonl'))
      ? jsonl(join(dir, s, 'metrics.jsonl')).filter((r) => r.loss !== undefined)
      : [];
    const ev = join(stages, 'eval', backbone, mix, s, 'followir', 'mini-followir.json');
    const scores = existsSync(ev) ? json(ev).scores : {};
    perSeed.push({
      mix,
      seed: s,
      firstLoss: m[0]?.loss,
      lastLoss: m.at(-1)?.loss,
      minLoss: Math.min(...m.map((r) => r.loss)),
      score: 100 * scores.score,
      pMrr: 100 * scores['p-MRR'],
    });
  }
}

const out = { run, backbone, composition, truncation, perSeed };
if (args.includes('--json')) {
  process.stdout.write(`${JSON.stringify(out, null, 1)}\n`);
} else {
  const table = (head, rows) =>
    [
      `| ${head.join(' | ')} |`,
      `|${head.map(() => '---').join('|')}|`,
      ...rows.map((r) => `| ${r.join(' | ')} |`),
    ].join('\n');
  const f = (x, d = 2) => (x == null || Number.isNaN(x) ? '-' : x.toFixed(d));
  process.stdout.write(`## What each mix covers (${run})\n\n`);
  process.stdout.write(
    `${table(
      [
        'mix',
        'queries',
        'repeated',
        'views',
        'documents',
        'negatives / example (original, complement, general)',
      ],
      Object.entries(composition).map(([m, c]) => [
        m,
        c.queries,
        c.repeatedQueries,
        c.views,
        c.documents,
        ['original', 'complement', 'general'].map((v) => f(c.negativesPerExample[v])).join(', '),
      ]),
    )}\n\n`,
  );
  process.stdout.write(`## Token lengths (${backbone}'s tokenizer, special tokens included)\n\n`);
  process.stdout.write(
    `${table(
      ['texts', 'n', 'limit', 'cut', 'median', 'p95', 'max'],
      truncation.map((r) => [r.name, r.texts, r.limit, `${f(100 * r.cut, 1)}%`, r.p50, r.p95, r.max]),
    )}\n\n`,
  );
  process.stdout.write('## Per seed (FollowIR-form, x100)\n\n');
  process.stdout.write(
    `${table(
      ['mix', 'seed', 'loss first', 'loss last', 'loss min', 'Score', 'p-MRR'],
      perSeed.map((r) => [r.mix, r.seed, f(r.firstLoss), f(r.lastLoss), f(r.minLoss), f(r.score), f(r.pMrr)]),
    )}\n`,
  );
}
