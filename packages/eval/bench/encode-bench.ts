/**
 * Corpus encoding throughput of one exported model (a @dv/train HF folder with its ONNX graphs):
 * our path (`encodeCorpusShard` with `OnnxEncoder`: tokenizers + onnxruntime-node, .npy out)
 * against sentence-transformers on PyTorch loading the same folder, in the same run, with the
 * same threads, batch size and max length. Model load is untimed on both sides (ours: session +
 * tokenizer; theirs: a warm-up batch). Writes the encode section of docs/benchmarks.md.
 * Two models (DV_BENCH_MODELS, default `b,base`): `b`, config B of the training benchmark (4
 * layers, hidden 256), and `base`, the encoder stack of the paper's 305M backbone (12 layers,
 * hidden 768, 12 heads, FFN 3072) in the BERT architecture, which sentence-transformers loads
 * offline. Each model is timed as the float32 graph the encoder loads for these CLS-pooled
 * folders (the CLS embedding graph `onnx/model_cls.onnx`, whose last layer computes position 0
 * only; the default) and the int8 CLS graph (`onnx/model_qint8_cls.onnx`, `precision: 'int8'`), config
 * B also as the full float32 graph `onnx/model.onnx` (`clsGraph: false`: what the CLS graph
 * brings) and the standard-ops float32 graph (what ONNX Runtime's fused operators bring). The
 * float32 ratios also go to the goals table at the top of the document (@dv/core
 * `updateBenchGoals`, goal >= 1.3x, issue 24).
 * Python reference: DV_BENCH_PYTHON, else <repo>/.venv-ref/bin/python (pnpm setup:reference).
 * Sizes: DV_BENCH_DOCS (default 1024) documents for config B, DV_BENCH_BASE_DOCS (default 192)
 * for base, DV_BENCH_ROUNDS (default 3) rounds; the rounds alternate ours / reference so both
 * see the same machine load, and each side's fastest counts.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createRng, formatDocument } from '@dv/core';
import { cpuInfo, otherProcessesCores, sampleCpu, updateBenchGoals, writeBenchSection } from '@dv/core/bench';
import { createMiniEncoder, exportHuggingFace, exportOnnx, initBackend, trainWordPiece } from '@dv/train';
import { encodeCorpusShard, OnnxEncoder, readEmbeddingShards } from '../src/index.js';
import { parseNpyFloat32 } from '../src/shards/npy.js';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..', '..');
const python = process.env.DV_BENCH_PYTHON ?? join(repo, '.venv-ref', 'bin', 'python');
if (!existsSync(python)) {
  console.log(`skipping the encode benchmark: no ${python} (pnpm setup:reference)`);
  process.exit(0);
}
const loadAtStart = loadavg()[0]!;
const cpu = cpuInfo();
console.log(`CPU: ${cpu.label}`);
const work = mkdtempSync(join(tmpdir(), 'dv-encode-bench-'));
const THREADS = (process.env.DV_BENCH_THREADS ?? '2,1').split(',').map(Number);
const MODELS = (process.env.DV_BENCH_MODELS ?? 'b,base').split(',');
const BATCH = 64;
const MAX_LEN = 128;
const DOCS = Number(process.env.DV_BENCH_DOCS ?? 1024);
const BASE_DOCS = Number(process.env.DV_BENCH_BASE_DOCS ?? 192);
const ROUNDS = Number(process.env.DV_BENCH_ROUNDS ?? 3);

// A corpus of dictionary-like entries (~40-90 word pieces each).
const rng = createRng(3);
const vocab = Array.from({ length: 600 }, (_, i) => `w${(i * 7919) % 10007}`);
const docs = Array.from({ length: Math.max(DOCS, BASE_DOCS) }, (_, i) => ({
  docid: `d${i}`,
  title: rng.choice(vocab),
  text: Array.from({ length: 30 + rng.int(40) }, () => rng.choice(vocab)).join(' '),
}));
const texts = docs.map((d) => formatDocument({}, d));

await initBackend();
const tok = await trainWordPiece(texts.slice(0, 2000), { vocabSize: 2000 });
writeFileSync(join(work, 'tokenizer.json'), tok.json);

interface BenchModel {
  readonly key: string;
  readonly label: string;
  readonly folder: string;
  /** The float32 standard-ops graph of the same weights, when timed. */
  readonly standard?: string;
  readonly docs: number;
  readonly corpus: string;
  readonly textsPath: string;
}

const shapes = {
  b: {
    label: 'config B (4 layers, hidden 256, 4 heads, FFN 1024)',
    overrides: { num_hidden_layers: 4, hidden_size: 256, num_attention_heads: 4, intermediate_size: 1024 },
    docs: DOCS,
    standard: true,
  },
  base: {
    label: "base (12 layers, hidden 768, 12 heads, FFN 3072: the paper backbone's encoder stack)",
    overrides: { num_hidden_layers: 12, hidden_size: 768, num_attention_heads: 12, intermediate_size: 3072 },
    docs: BASE_DOCS,
    standard: false,
  },
} as const;

async function buildModel(key: keyof typeof shapes): Promise<BenchModel> {
  const s = shapes[key];
  const dir = join(work, key);
  const subset = docs.slice(0, s.docs);
  const corpus = join(work, `${key}-corpus.jsonl`);
  writeFileSync(corpus, `${subset.map((d) => JSON.stringify(d)).join('\n')}\n`);
  const textsPath = join(work, `${key}-texts.jsonl`);
  writeFileSync(
    textsPath,
    `${texts
      .slice(0, s.docs)
      .map((t) => JSON.stringify(t))
      .join('\n')}\n`,
  );
  const enc = createMiniEncoder('mini-bert', {
    vocabSize: tok.vocabSize,
    seed: 1,
    overrides: { ...s.overrides, pad_token_id: tok.padId, max_position_embeddings: 512 },
  });
  const folder = join(dir, 'model');
  await exportHuggingFace(folder, {
    config: enc.config,
    weights: enc.toWeights(),
    tokenizerJson: join(work, 'tokenizer.json'),
    pooling: 'cls',
    normalize: true,
    withOnnx: ['fp32', 'int8'],
  });
  let standard: string | undefined;
  if (s.standard) {
    // The same weights as a standard-ops graph (no ONNX Runtime contrib ops): what the fusions bring.
    standard = join(dir, 'model-standard');
    cpSync(folder, standard, { recursive: true });
    exportOnnx(join(standard, 'onnx', 'model.onnx'), {
      config: enc.config,
      weights: enc.toWeights(),
      pooling: 'cls',
      normalize: true,
      fusedOps: false,
    });
  }
  enc.dispose();
  return { key, label: s.label, folder, ...(standard ? { standard } : {}), docs: s.docs, corpus, textsPath };
}

/** A sentence-transformers child at `threads` threads (PyTorch float32, or its dynamic int8). */
async function startReference(m: BenchModel, threads: number, precision: 'fp32' | 'int8') {
  const child = spawn(
    python,
    [
      join(here, 'reference_encode.py'),
      m.folder,
      m.textsPath,
      String(threads),
      String(BATCH),
      String(MAX_LEN),
      ...(precision === 'int8' ? ['int8'] : []),
    ],
    {
      env: {
        ...process.env,
        OMP_NUM_THREADS: String(threads),
        TOKENIZERS_PARALLELISM: 'false',
        HF_HUB_OFFLINE: '1',
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const exited = new Promise((done) => child.on('close', done));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const nextJson = async () => {
    for (;;) {
      const r = await lines.next();
      if (r.done) throw new Error('the Python reference exited early');
      if (r.value.trim().startsWith('{')) return JSON.parse(r.value) as Record<string, unknown>;
    }
  };
  await nextJson(); // ready (model loaded, warmed up)
  return {
    round: async () => {
      child.stdin.write('go\n');
      return (await nextJson()) as unknown as RefRound;
    },
    close: async () => {
      child.stdin.end();
      await exited;
    },
  };
}

type RefRound = {
  seconds: number;
  rows: number;
  dim: number;
  torch: string;
  sentence_transformers: string;
  threads: number;
};

/** Largest |difference| and smallest row cosine (rows are unit length) of two matrices. */
function compare(a: Float32Array, b: Float32Array, dim: number) {
  let maxDiff = 0;
  let minCos = 1;
  for (let row = 0; row < a.length / dim; row++) {
    let dot = 0;
    for (let j = 0; j < dim; j++) {
      const x = a[row * dim + j]!;
      const y = b[row * dim + j]!;
      dot += x * y;
      maxDiff = Math.max(maxDiff, Math.abs(x - y));
    }
    minCos = Math.min(minCos, dot);
  }
  return { maxDiff, minCos };
}

interface Side {
  readonly name: string;
  readonly encoder: OnnxEncoder;
  readonly wall: number[];
  readonly cpu: number[];
}

/** Alternating rounds of ours (each graph) and the reference at `threads` threads each. */
async function measure(m: BenchModel, threads: number) {
  const open = async (
    name: string,
    dir: string,
    precision: 'fp32' | 'int8',
    clsGraph = true,
  ): Promise<Side> => {
    const encoder = await OnnxEncoder.fromDir(dir, {
      threads,
      batchSize: BATCH,
      maxLength: MAX_LEN,
      precision,
      clsGraph,
    });
    await encoder.encodeDocuments(texts.slice(0, BATCH)); // warm-up
    return { name, encoder, wall: [], cpu: [] };
  };
  const sides = [await open('fp32', m.folder, 'fp32'), await open('int8', m.folder, 'int8')];
  if (m.standard) {
    sides.push(await open('full', m.folder, 'fp32', false));
    sides.push(await open('standard', m.standard, 'fp32', false));
  }
  const reference = await startReference(m, threads, 'fp32');
  const referenceInt8 = await startReference(m, threads, 'int8');
  const cpuAtStart = sampleCpu();
  const refRounds: RefRound[] = [];
  const refInt8Rounds: RefRound[] = [];
  const out = join(work, m.key, `emb-${threads}`);
  const encodeWith = async (side: Side, round: number) => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await encodeCorpusShard({
      encoder: side.encoder,
      corpus: m.corpus,
      shard: { index: 0, count: 1 },
      out: join(out, `${side.name}-${round}`),
      batchSize: BATCH,
    });
    side.wall.push((performance.now() - t0) / 1000);
    const c = process.cpuUsage(c0);
    side.cpu.push((c.user + c.system) / 1e6);
  };
  for (let r = 0; r < ROUNDS; r++) {
    await encodeWith(sides[0]!, r);
    refRounds.push(await reference.round());
    await encodeWith(sides[1]!, r);
    refInt8Rounds.push(await referenceInt8.round());
    for (const side of sides.slice(2)) await encodeWith(side, r);
    console.log(
      `${m.key}, ${threads} thread(s), round ${r + 1}: ${sides.map((s) => `${s.name} ${s.wall.at(-1)!.toFixed(2)} s (CPU ${s.cpu.at(-1)!.toFixed(2)} s)`).join(', ')}, sentence-transformers ${refRounds.at(-1)!.seconds.toFixed(2)} s, its int8 (torch quantize_dynamic) ${refInt8Rounds.at(-1)!.seconds.toFixed(2)} s`,
    );
  }
  // Reaped, so their CPU time counts as the benchmark's own, not as other processes'.
  await reference.close();
  await referenceInt8.close();
  const others = otherProcessesCores(cpuAtStart, sampleCpu());
  for (const s of sides) await s.encoder.close();
  const best = (name: string) => Math.min(...sides.find((s) => s.name === name)!.wall);
  const bestCpu = (name: string) => Math.min(...sides.find((s) => s.name === name)!.cpu);
  const ref = { ...refRounds[0]!, seconds: Math.min(...refRounds.map((x) => x.seconds)) };
  const refInt8 = Math.min(...refInt8Rounds.map((x) => x.seconds));
  const refM = parseNpyFloat32(readFileSync(`${m.textsPath}.ref.npy`), 'ref.npy');
  const refInt8M = parseNpyFloat32(readFileSync(`${m.textsPath}.ref-int8.npy`), 'ref-int8.npy');
  const fp32Store = await readEmbeddingShards(join(out, 'fp32-0'));
  const int8Store = await readEmbeddingShards(join(out, 'int8-0'));
  const fp32Diff = compare(fp32Store.matrix, refM.data, refM.dim);
  const int8Diff = compare(int8Store.matrix, refM.data, refM.dim);
  const torchInt8Diff = compare(refInt8M.data, refM.data, refM.dim);
  const result = {
    model: m,
    threads,
    fp32: best('fp32'),
    int8: best('int8'),
    standard: m.standard ? best('standard') : undefined,
    full: m.standard ? best('full') : undefined,
    fullCpuRatio: m.standard ? bestCpu('full') / bestCpu('fp32') : undefined,
    cpuRatio: m.standard ? bestCpu('standard') / bestCpu('full') : undefined,
    ref,
    refInt8,
    rounds: sides.map((s) => ({ name: s.name, wall: s.wall })),
    refRounds,
    refInt8Rounds,
    others,
    fp32Diff,
    int8Diff,
    torchInt8Diff,
  };
  console.log(
    `${m.key}, ${threads} thread(s): fp32 ${result.fp32.toFixed(2)} s (${(ref.seconds / result.fp32).toFixed(2)}x), int8 ${result.int8.toFixed(2)} s (${(ref.seconds / result.int8).toFixed(2)}x), sentence-transformers ${ref.seconds.toFixed(2)} s; fp32 max |diff| ${fp32Diff.maxDiff.toExponential(2)}; int8 max |diff| ${int8Diff.maxDiff.toExponential(2)}, min cosine ${int8Diff.minCos.toFixed(6)}`,
  );
  return result;
}

const results = [];
for (const key of MODELS) {
  if (!(key in shapes)) throw new Error(`DV_BENCH_MODELS: unknown model "${key}" (b, base)`);
  const m = await buildModel(key as keyof typeof shapes);
  for (const t of THREADS) results.push(await measure(m, t));
}
const loadAtEnd = loadavg()[0]!;
const othersMax = Math.max(...results.map((r) => r.others ?? 0));
// Other processes' measured share, not the load average (which counts this run's own setup too).
const contended = othersMax > 0.3;
const ref = results[0]!.ref;
const x = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
const body = [
  `Measured ${new Date().toISOString().slice(0, 10)} (encode-bench.ts; Node ${process.version}, ${cpus().length} cores; 1-minute load average ${loadAtStart.toFixed(1)} at the start and ${loadAtEnd.toFixed(1)} at the end; other processes kept ${results.map((r) => (r.others === undefined ? '?' : r.others.toFixed(2))).join(' / ')} cores busy on average during the ${results.map((r) => `${r.model.key} ${r.threads}-thread`).join(' / ')} rounds (machine busy time minus the benchmark's own and its reference child's, from /proc)${contended ? ', so other jobs shared the cores: absolute times are noisy, read the ratios, measured in the same run; with 2 threads a side, spinning OpenMP threads (PyTorch) lose more to contention than our sleeping ones, so the 1-thread rows are the per-core comparison' : ''}; OPENBLAS_CORETYPE ${process.env.OPENBLAS_CORETYPE ? `set (${process.env.OPENBLAS_CORETYPE})` : 'unset'}).`,
  '',
  `Exported models (@dv/train \`exportHuggingFace\` with \`withOnnx: ['fp32', 'int8']\`: BERT, random weights, CLS pooling + normalisation): ${MODELS.map((k) => `\`${k}\` = ${shapes[k as keyof typeof shapes].label}, ${shapes[k as keyof typeof shapes].docs.toLocaleString('en-US')} documents`).join('; ')}. Documents of 31-70 words (up to ${MAX_LEN} word pieces), batch ${BATCH}, the same thread count on both sides, model load untimed on both; fastest of ${ROUNDS} rounds per side, the rounds alternating ours / reference so both meet the same load. Ours: \`dv eval encode\`'s library call \`encodeCorpusShard\` with \`OnnxEncoder\` (tokenizers + onnxruntime-node 1.30.0, CPU provider), writing the .npy shard; its policy batches each window of 16 batches longest text first (as sentence-transformers sorts by length) and runs the session with ORT's full graph optimisation, sequential execution, 1 inter-op thread and intra-op threads that sleep rather than spin between ops. **fp32** is the folder's CLS embedding graph \`onnx/model_cls.onnx\` (what \`OnnxEncoder\` loads by default for CLS pooling: the last layer computes position 0 only, its query row against every key and value, so its output projection, FFN and LayerNorms run on one row; the same numbers as PyTorch), beside the full-sequence \`onnx/model.onnx\` that sentence-transformers and other tools load (timed on config B as **full fp32**); **int8** is its int8 CLS embedding graph \`onnx/model_qint8_cls.onnx\` (\`--precision int8\`, the CLS form of \`onnx/model_qint8.onnx\`: per-column int8 Linear weights, byte-identical to ONNX Runtime's \`quantize_dynamic\`, activations quantized at run time; a different numerical model, whose distance from PyTorch's float32 embeddings the table gives). Reference: sentence-transformers ${ref.sentence_transformers} on torch ${ref.torch} (float32) loading the same folder, \`model.encode\` (length-sorted batches); and, for int8 against int8, the same model after PyTorch's own dynamic quantization of its Linear layers (\`torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=qint8)\`, fbgemm), what a PyTorch user gets for int8.`,
  '',
  '| model | threads | sentence-transformers (PyTorch) | ours, fp32 | **fp32 vs PyTorch** | ours, int8 | **int8 vs PyTorch** | PyTorch int8 (quantize_dynamic) | ours int8 vs PyTorch int8 | max \\|diff\\| vs PyTorch fp32: ours fp32 / ours int8 / PyTorch int8 | min cosine vs PyTorch fp32: ours int8 / PyTorch int8 | full fp32 graph model.onnx (wall / CPU vs CLS graph) | standard-ops full fp32 graph (wall / CPU vs fused full graph) | rounds, fp32 / int8 / reference / reference int8 (s) |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ...results.map((r) => {
    const rate = (s: number) => Math.round(r.model.docs / s).toLocaleString('en-US');
    const w = (name: string) => r.rounds.find((s) => s.name === name)!.wall;
    const cells = [
      r.model.key,
      String(r.threads),
      `${r.ref.seconds.toFixed(2)} s, ${rate(r.ref.seconds)} docs/s`,
      `${r.fp32.toFixed(2)} s, ${rate(r.fp32)} docs/s`,
      `**${x(r.ref.seconds, r.fp32)}**`,
      `${r.int8.toFixed(2)} s, ${rate(r.int8)} docs/s`,
      `**${x(r.ref.seconds, r.int8)}**`,
      `${r.refInt8.toFixed(2)} s (${x(r.ref.seconds, r.refInt8)} of PyTorch fp32)`,
      x(r.refInt8, r.int8),
      [r.fp32Diff, r.int8Diff, r.torchInt8Diff].map((d) => d.maxDiff.toExponential(1)).join(' / '),
      `${r.int8Diff.minCos.toFixed(5)} / ${r.torchInt8Diff.minCos.toFixed(5)}`,
      r.full === undefined
        ? 'not timed'
        : `${r.full.toFixed(2)} s (${x(r.full, r.fp32)} / ${r.fullCpuRatio!.toFixed(2)}x; ${x(r.ref.seconds, r.full)} vs PyTorch)`,
      r.standard === undefined
        ? 'not timed'
        : `${r.standard.toFixed(2)} s (${x(r.standard, r.full!)} / ${r.cpuRatio!.toFixed(2)}x)`,
      w('fp32')
        .map(
          (v, n) =>
            `${v.toFixed(2)} / ${w('int8')[n]!.toFixed(2)} / ${r.refRounds[n]!.seconds.toFixed(2)} / ${r.refInt8Rounds[n]!.seconds.toFixed(2)}`,
        )
        .join(', '),
    ];
    return `| ${cells.join(' | ')} |`;
  }),
  '',
  `Target >= 2x: ${results.map((r) => `${r.model.key} at ${r.threads} thread${r.threads > 1 ? 's' : ''} a side: fp32 ${r.ref.seconds / r.fp32 >= 2 ? 'met' : 'not met'}, int8 ${r.ref.seconds / r.int8 >= 2 ? 'met' : 'not met'}`).join('; ')} in this run${contended ? ' (under contention: see above)' : ''}. Command: \`pnpm -F @dv/eval bench\` (or \`cd packages/eval && npx tsx --conditions=@dv/source bench/encode-bench.ts\`; \`DV_BENCH_THREADS=2,1\` sets the thread counts, \`DV_BENCH_MODELS=b,base\` the models; the reference needs \`pnpm setup:reference\`).`,
  '',
].join('\n');
const doc = process.env.DV_BENCH_DOC ?? join(repo, 'docs', 'benchmarks.md');
writeBenchSection(
  doc,
  'encode',
  cpu,
  '@dv/eval: corpus encoding throughput (sharded encoding vs sentence-transformers)',
  body,
);
// Issue 24: float32 against sentence-transformers, CLS pooling, >= 1.3x at each thread count.
const goal = 1.3;
updateBenchGoals(
  doc,
  cpu,
  results.map((r) => {
    const ratio = r.ref.seconds / r.fp32;
    const name = r.model.key === 'b' ? 'config B' : r.model.key;
    return {
      row: `corpus encoding float32 vs sentence-transformers (CLS), ${name}, ${r.threads} thread${r.threads > 1 ? 's' : ''}`,
      figure: `${ratio.toFixed(2)}x (${r.fp32.toFixed(2)} s vs ${r.ref.seconds.toFixed(2)} s)`,
      goal: `>= ${goal}x`,
      met: ratio >= goal,
      ...(r.others === undefined ? {} : { otherCores: r.others }),
    };
  }),
);
console.log(`wrote the encode section and its goal rows of ${doc}`);
