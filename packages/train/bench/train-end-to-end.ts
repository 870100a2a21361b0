/**
 * Benchmark: end-to-end contrastive training throughput of `trainRetriever` (streamed mix ->
 * batch builder -> tokenizer -> encoder forward/backward -> InfoNCE -> AdamW, metrics) against
 * sentence-transformers' trainer (`SentenceTransformerTrainer` + MultipleNegativesRankingLoss,
 * or CachedMultipleNegativesRankingLoss against our gradient cache) on the same data, the same
 * model (one exported folder: CLS + Normalize), batch 32 queries with 1 hard negative each
 * (64 documents), in-batch negatives, scale = 1/tau (tau 0.02), the same max sequence length,
 * measured in the same run. Configs: A (2 layers, hidden 128, seq 64) and B (4, 256, 128), each
 * with MNRL against our plain step and CachedMNRL (mini-batch 16) against our gradient cache.
 *
 * Figures per side: examples (queries)/s, sequences/s (queries + documents), tokens/s (real
 * tokens), and MFU = model FLOPs/s / the machine's sgemm peak measured here (tf.matMul
 * 1024x1024, same threads). Model FLOPs per step = 3 x forward, forward per sequence of T
 * tokens = 2 T P + 4 L T^2 H (P: parameters of the layers, L layers, H hidden): the usual
 * 6 N T estimate plus attention. Steady state: the median step time after the first steps.
 *
 * Run: `pnpm -F @dv/train bench:e2e` (a few minutes; part of `pnpm -F @dv/train bench`).
 * Python from `$DV_BENCH_PYTHON` or `<repo>/.venv-ref` with sentence-transformers, datasets and
 * accelerate; without them only our side is printed. Rewrites the `bench:train-e2e:FAMILY` section
 * of docs/benchmarks.md for this CPU's family.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFormatter, createRng } from '@dv/core';
import {
  type BenchGoalRow,
  cpuInfo,
  otherProcessesCores,
  sampleCpu,
  updateBenchGoals,
  writeBenchSection,
} from '@dv/core/bench';
import {
  createMiniEncoder,
  exportHuggingFace,
  initBackend,
  tf,
  trainRetriever,
  trainWordPiece,
} from '../src/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..', '..');
const threads = Number(process.env.TF_NUM_INTRAOP_THREADS ?? cpus().length);
const python = process.env.DV_BENCH_PYTHON ?? join(repo, '.venv-ref', 'bin', 'python');

interface Config {
  name: string;
  layers: number;
  hidden: number;
  seq: number;
  steps: number;
  /** Gradient-cache chunk (ours) = CachedMNRL's mini_batch_size; plain MNRL when absent. */
  cached?: number;
}
// Each config runs both sides `rounds` times, alternating; steps per run are few (the median
// step after the warm-up ones) so that the four rows x 3 rounds stay within a few minutes.
const configs: Config[] = [
  { name: 'A', layers: 2, hidden: 128, seq: 64, steps: 10 },
  { name: 'A', layers: 2, hidden: 128, seq: 64, steps: 10, cached: 16 },
  { name: 'B', layers: 4, hidden: 256, seq: 128, steps: 6 },
  { name: 'B', layers: 4, hidden: 256, seq: 128, steps: 6, cached: 16 },
];
const rounds = 3;
const batch = 32;
const warmup = 2;
const temperature = 0.02;

await initBackend();
const dir = mkdtempSync(join(tmpdir(), 'dv-bench-e2e-'));
const rng = createRng(1);
const syllables = ['ka', 'lo', 'mi', 'ru', 'te', 'sa', 'no', 'pi', 'de', 'vu'];
const words = syllables.flatMap((a) => syllables.flatMap((b) => syllables.map((c) => a + b + c)));
const sentence = (n: number) => Array.from({ length: n }, () => rng.choice(words)).join(' ');
const n = batch * 60;
const examples = Array.from({ length: n }, (_, i) => ({
  id: `e${i}`,
  query: sentence(14),
  instruction: `Only ${sentence(6)}.`,
  positives: [{ docid: `p${i}`, title: '', text: sentence(140) }],
  negatives: [{ docid: `n${i}`, title: '', text: sentence(140) }],
  view: 'original',
}));
const mix = join(dir, 'mix.jsonl');
writeFileSync(mix, `${examples.map((e) => JSON.stringify(e)).join('\n')}\n`);
const f = createFormatter();
const stData = join(dir, 'st.jsonl');
writeFileSync(
  stData,
  `${examples
    .map((e) =>
      JSON.stringify({
        anchor: f.query(e.query, e.instruction),
        positive: f.document(e.positives[0]!),
        negative: f.document(e.negatives[0]!),
      }),
    )
    .join('\n')}\n`,
);
const tok = await trainWordPiece(
  examples.flatMap((e) => [e.query, e.instruction, e.positives[0]!.text]),
  { vocabSize: 2000 },
);
const tokPath = join(dir, 'tokenizer.json');
writeFileSync(tokPath, tok.json);

/** sgemm peak of this machine through the same backend (GFLOP/s). */
function sgemmPeak(): number {
  const a = tf.randomNormal([1024, 1024]);
  const b = tf.randomNormal([1024, 1024]);
  for (let i = 0; i < 3; i++) tf.matMul(a, b).dataSync();
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < 5; r++) {
    const t = performance.now();
    const outs = Array.from({ length: 8 }, () => tf.matMul(a, b));
    for (const o of outs) o.dataSync();
    best = Math.min(best, (performance.now() - t) / 8);
    tf.dispose(outs);
  }
  tf.dispose([a, b]);
  return (2 * 1024 ** 3) / (best / 1000) / 1e9;
}

const peak = sgemmPeak();
console.log(`sgemm peak ${peak.toFixed(1)} GFLOP/s (${threads} threads)`);
const load0 = loadavg()[0]!;
const rows: string[][] = [];
/** Other processes' share of the cores during each config's rounds (from /proc). */
const otherCores: number[] = [];
let versions = 'not run';
const goals: BenchGoalRow[] = [];
const inits = new Map<string, { init: string; layerParams: number }>();
/** The exported initial model of a config (shared by its MNRL and CachedMNRL rows). */
async function initModel(c: Config): Promise<{ init: string; layerParams: number }> {
  const known = inits.get(c.name);
  if (known) return known;
  const init = join(dir, `init-${c.name}`);
  const enc = createMiniEncoder('mini-bert', {
    vocabSize: tok.vocabSize,
    seed: 0,
    overrides: {
      num_hidden_layers: c.layers,
      hidden_size: c.hidden,
      num_attention_heads: c.hidden / 64,
      intermediate_size: 4 * c.hidden,
    },
  });
  const layerParams = [...enc.params]
    .filter(([k]) => k.startsWith('encoder.'))
    .reduce((s, [, v]) => s + v.size, 0);
  await exportHuggingFace(init, {
    config: enc.config,
    weights: enc.toWeights(),
    tokenizerJson: tokPath,
    pooling: 'cls',
    normalize: true,
    maxSeqLength: c.seq,
  });
  enc.dispose();
  const made = { init, layerParams };
  inits.set(c.name, made);
  return made;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
let run = 0;
/** Our side: one trainRetriever run; median step time after the warm-up steps. */
async function runOurs(c: Config, init: string) {
  const out = join(dir, `run-${run++}`);
  await trainRetriever({
    config: {
      seed: 0,
      optimizer: { lr: 1e-4, gradClipNorm: 1 },
      schedule: { name: 'constant', warmupRatio: 0 },
      loss: { temperature },
      model: { maxQueryLength: c.seq, maxDocLength: c.seq },
      batch: {
        batchSize: batch,
        hardNegatives: 1,
        steps: c.steps,
        shuffleBuffer: 256,
        ...(c.cached ? { gradCacheChunk: c.cached } : {}),
      },
      checkpoint: { everySteps: 1_000_000, keepLast: 1 },
      logEverySteps: 1,
    },
    data: mix,
    init,
    out,
  });
  const metrics = readFileSync(join(out, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map(
      (l) => JSON.parse(l) as { stepsPerSecond: number; sequencesPerSecond: number; tokensPerSecond: number },
    )
    .slice(warmup);
  return {
    stepS: median(metrics.map((m) => 1 / m.stepsPerSecond)),
    seqPerStep: median(metrics.map((m) => m.sequencesPerSecond / m.stepsPerSecond)),
    tokPerStep: median(metrics.map((m) => m.tokensPerSecond / m.stepsPerSecond)),
  };
}
/** The reference side: one sentence-transformers trainer run; its median step time. */
function runTheirs(c: Config, init: string): number | undefined {
  if (!existsSync(python)) return undefined;
  try {
    const job = {
      data: stData,
      model: init,
      seq: c.seq,
      batch,
      steps: c.steps,
      warmup,
      lr: 1e-4,
      temperature,
      threads,
      cached: Boolean(c.cached),
      chunk: c.cached ?? 0,
      out: join(dir, `st-${run++}`),
    };
    const r = JSON.parse(
      execFileSync(python, [join(here, 'st_trainer.py'), JSON.stringify(job)], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
        env: { ...process.env, HF_HUB_OFFLINE: '1', TOKENIZERS_PARALLELISM: 'false' },
      })
        .trim()
        .split('\n')
        .pop()!,
    ) as { median_step_s: number; torch: string; sentence_transformers: string };
    versions = `sentence-transformers ${r.sentence_transformers}, torch ${r.torch}`;
    return r.median_step_s;
  } catch (err) {
    console.warn(`sentence-transformers side failed: ${(err as Error).message.split('\n')[0]}`);
    return undefined;
  }
}
for (const c of configs) {
  const { init, layerParams } = await initModel(c);
  const cpuStart = sampleCpu();
  // Alternate the sides; keep each side's fastest round (a burst of others' work slows one round).
  let mine: Awaited<ReturnType<typeof runOurs>> | undefined;
  let theirs: number | undefined;
  for (let round = 0; round < rounds; round++) {
    const m = await runOurs(c, init);
    if (!mine || m.stepS < mine.stepS) mine = m;
    const t = runTheirs(c, init);
    if (t !== undefined && (theirs === undefined || t < theirs)) theirs = t;
  }
  const configOther = otherProcessesCores(cpuStart, sampleCpu());
  const { stepS, seqPerStep, tokPerStep } = mine!;
  const flops = (tokens: number, seqs: number) => {
    const t = tokens / seqs;
    return 3 * seqs * (2 * t * layerParams + 4 * c.layers * t * t * c.hidden);
  };
  const side = (s: number) => ({
    ex: batch / s,
    seq: seqPerStep / s,
    tok: tokPerStep / s,
    mfu: flops(tokPerStep, seqPerStep) / s / (peak * 1e9),
  });
  const ours = side(stepS);
  const ref = theirs === undefined ? undefined : side(theirs);
  const fmt = (x: typeof ours | undefined) =>
    x
      ? `${x.ex.toFixed(1)} ex/s, ${x.seq.toFixed(0)} seq/s, ${Math.round(x.tok).toLocaleString('en-US')} tok/s, MFU ${(100 * x.mfu).toFixed(1)}%`
      : 'not run';
  const r = ref ? ours.ex / ref.ex : undefined;
  const ratio = r === undefined ? 'n/a' : `**${r.toFixed(2)}x**`;
  const mode = c.cached ? `grad cache ${c.cached} vs CachedMNRL ${c.cached}` : 'plain vs MNRL';
  console.log(
    `config ${c.name} (${mode}): ours ${fmt(ours)} | sentence-transformers ${fmt(ref)} | ratio ${ratio} | other processes ${configOther?.toFixed(2) ?? '?'} cores`,
  );
  rows.push([
    c.name,
    `${c.layers} / ${c.hidden} / ${c.seq}`,
    mode,
    fmt(ours),
    fmt(ref),
    ratio,
    configOther === undefined ? '?' : configOther.toFixed(2),
  ]);
  if (configOther !== undefined) otherCores.push(configOther);
  if (ref && r !== undefined) {
    goals.push({
      row: `end-to-end trainRetriever vs sentence-transformers' trainer, config ${c.name}, ${c.cached ? 'CachedMNRL' : 'MNRL'}`,
      figure: `${r.toFixed(2)}x (${ours.ex.toFixed(1)} vs ${ref.ex.toFixed(1)} examples/s, ${threads} thread${threads === 1 ? '' : 's'} a side, best of ${rounds} alternated rounds; ours CLS-only last layer, the trainer's default)`,
      goal: '>= 2x',
      met: r >= 2,
      ...(configOther === undefined ? {} : { otherCores: configOther }),
    });
  }
  writeDocs(); // after every config, so an interrupted run still records what it measured
}
function writeDocs(): void {
  const load1 = loadavg()[0]!;
  const maxOther = otherCores.length === 0 ? undefined : Math.max(...otherCores);
  const cpu = cpuInfo().label;
  const table = [
    '| config | layers / hidden / seq | mode | @dv/train trainRetriever | sentence-transformers trainer | ratio (examples/s) | other processes (cores) |',
    '|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
  const section = `\`trainRetriever\` (streamed mix, batch builder, tokenizer, encoder, InfoNCE, AdamW with clipping,
metrics) against \`SentenceTransformerTrainer\` with MultipleNegativesRankingLoss (scale = 1/tau = 50)
on the same ${n} rows (query + instruction, one positive, one hard negative; 32 queries and 64
documents a batch, in-batch negatives), the same exported model folder (\`mini-bert\`, CLS +
Normalize, dropout 0.1), the same max sequence length and thread count, in the same run. Steady
state: median step time after ${warmup} steps; each side's fastest of ${rounds} alternated runs. Our side computes only position 0 of the last layer
(CLS pooling's default, same embeddings); sentence-transformers computes every position. MFU:
model FLOPs (3 x (2 T P + 4 L T^2 H) per sequence) over the sgemm peak measured in the run
(${peak.toFixed(1)} GFLOP/s, tf.matMul 1024^2, measured in the same run, so MFU is only comparable
within the run). ${versions}.

${table}

Measured ${new Date().toISOString().slice(0, 10)} on ${cpu} (${cpus().length} cores, ${threads} threads per side); load average ${load0.toFixed(1)} at the start and ${load1.toFixed(1)} at the end (the benchmark's own threads count in it); other processes kept at most ${maxOther === undefined ? '?' : maxOther.toFixed(2)} cores busy during a config's rounds (machine busy time minus the benchmark's own and its reference child's, from /proc)${(maxOther ?? 0) > 0.2 ? ', so other jobs shared the cores: absolute figures are noisy, the ratio is from the same run' : ''}.
Command: \`pnpm -F @dv/train bench:e2e\`.`;
  const docs = process.env.DV_BENCH_DOC ?? join(repo, 'docs', 'benchmarks.md');
  // One section per CPU family (bench:train-e2e:FAMILY markers), as the step benchmark.
  writeBenchSection(
    docs,
    'train-e2e',
    cpuInfo(),
    "@dv/train: end-to-end training vs sentence-transformers' trainer",
    section,
  );
  if (goals.length > 0) updateBenchGoals(docs, cpuInfo(), goals);
  console.log(`wrote ${docs}`);
}
