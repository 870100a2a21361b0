/**
 * @dv/eval benchmarks, each against a reference measured in the same run:
 *   1. trec_eval measures on a 1M-line run (1,000 topics x 1,000 docs) vs torchmetrics'
 *      retrieval functionals (pytrec_eval is not on this machine's pip index);
 *   2. exact top-100 over 100k x 256 float32 vectors for 1,000 queries vs faiss-cpu IndexFlatIP.
 * Writes the figures into the eval section of docs/benchmarks.md.
 * Python reference: DV_BENCH_PYTHON, else <repo>/.venv-ref/bin/python
 *   (python3 -m venv .venv-ref && .venv-ref/bin/pip install torch torchmetrics faiss-cpu numpy).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRng, readQrels, readRun } from '@dv/core';
import { evaluateRun, exactTopK, exactTopKOrt } from '../src/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..', '..');
const python = process.env.DV_BENCH_PYTHON ?? join(repo, '.venv-ref', 'bin', 'python');
const hasPython = existsSync(python);
const loadAtStart = loadavg()[0]!;
const work = mkdtempSync(join(tmpdir(), 'dv-eval-bench-'));
const secs = (t0: number) => (performance.now() - t0) / 1000;
const f = (x: number, d = 2) => x.toFixed(d);

function py(script: string, args: string[]): Record<string, unknown> {
  const out = execFileSync(python, [join(here, script), ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
  return JSON.parse(out.trim().split('\n').at(-1)!);
}

// 1. metrics on a 1M-line run --------------------------------------------------------------
const TOPICS = 1000;
const DOCS = 1000;
const rng = createRng(42);
const runLines: string[] = [];
const qrelLines: string[] = [];
for (let t = 0; t < TOPICS; t++) {
  const qid = `q${t}`;
  // Distinct scores (gaps >= 0.5e-3, so float32 creates no ties); docs listed in shuffled order.
  const order = Array.from({ length: DOCS }, (_, i) => i);
  for (let i = DOCS - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  order.forEach((slot, i) => {
    runLines.push(
      `${qid} Q0 d${t}_${i} ${slot + 1} ${((DOCS - slot + rng.float() * 0.5) / DOCS).toFixed(6)} bench`,
    );
  });
  // 30 judged docs, all retrieved, grades 0..2.
  const judged = new Set<number>();
  while (judged.size < 30) judged.add(rng.int(DOCS));
  for (const i of judged) qrelLines.push(`${qid} 0 d${t}_${i} ${rng.int(3)}`);
}
const runPath = join(work, 'run.txt');
const qrelsPath = join(work, 'qrels.txt');
writeFileSync(runPath, `${runLines.join('\n')}\n`);
writeFileSync(qrelsPath, `${qrelLines.join('\n')}\n`);
const measures = 'ndcg_cut.10,map,recip_rank,P.10,recall.100';

let t0 = performance.now();
const [qrels, run] = await Promise.all([readQrels(qrelsPath), readRun(runPath)]);
const oursRead = secs(t0);
t0 = performance.now();
const ours = evaluateRun(qrels, run, measures);
const oursEval = secs(t0);
console.log(`ours: read ${f(oursRead)} s, evaluate ${f(oursEval)} s`, ours.means);

let metricsRef: Record<string, unknown> | null = null;
let maxDiff = Number.NaN;
if (hasPython) {
  metricsRef = py('reference_metrics.py', [qrelsPath, runPath]);
  const m = metricsRef.means as Record<string, number>;
  maxDiff = Math.max(...Object.keys(m).map((k) => Math.abs(m[k]! - ours.means[k]!)));
  console.log('torchmetrics:', metricsRef, 'max |diff| of means', maxDiff);
}

// 2. exact top-k over 100k x 256 ------------------------------------------------------------
const N = 100_000;
const DIM = 256;
const NQ = 1000;
const K = 100;
const srng = createRng(7);
const docs = Float32Array.from({ length: N * DIM }, () => srng.normal());
const queries = Float32Array.from({ length: NQ * DIM }, () => srng.normal());
await exactTopKOrt(queries.subarray(0, 4 * DIM), docs.subarray(0, 4096 * DIM), DIM, K); // warm-up
t0 = performance.now();
const top = await exactTopKOrt(queries, docs, DIM, K);
const oursSearch = secs(t0);
// The pure-JavaScript kernel on 32 queries, scaled, for comparison.
t0 = performance.now();
exactTopK(queries.subarray(0, 32 * DIM), docs, DIM, K);
const jsSearch = (secs(t0) * NQ) / 32;
console.log(
  `ours (onnxruntime sgemm): ${f(oursSearch)} s; pure JS kernel (scaled from 32 queries): ${f(jsSearch)} s`,
);

let searchRef: Record<string, unknown> | null = null;
let overlap = Number.NaN;
if (hasPython) {
  const dp = join(work, 'docs.f32');
  const qp = join(work, 'queries.f32');
  const ip = join(work, 'ids.i32');
  writeFileSync(dp, new Uint8Array(docs.buffer));
  writeFileSync(qp, new Uint8Array(queries.buffer));
  searchRef = py('reference_search.py', [dp, qp, String(DIM), String(K), ip]);
  const buf = readFileSync(ip);
  const ids = new Int32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
  let same = 0;
  for (let q = 0; q < NQ; q++) {
    const mine = new Set(top.indices.subarray(q * K, (q + 1) * K));
    for (let j = 0; j < K; j++) if (mine.has(ids[q * K + j]!)) same++;
  }
  overlap = same / (NQ * K);
  console.log('faiss:', searchRef, 'top-100 overlap', overlap);
}
rmSync(work, { recursive: true, force: true });

// docs/benchmarks.md --------------------------------------------------------------------------
const ratio = (a: number, b: number) => `${f(a / b, 2)}x`;
const mRef = metricsRef as { read_s: number; eval_s: number; torch: string } | null;
const sRef = searchRef as { search_s: number; add_s: number; threads: number; faiss: string } | null;
const section = [
  '## @dv/eval: metrics and exact search',
  '',
  `Measured ${new Date().toISOString().slice(0, 10)} with \`pnpm -F @dv/eval bench\` (Node ${process.version}, ${cpus().length} cores; 1-minute load average ${f(loadAtStart, 1)} at the start${loadAtStart > 2.5 ? ', so other jobs shared the cores and absolute times are noisy' : ''}; ratios, from the same run, are the figures to read; OPENBLAS_CORETYPE ${process.env.OPENBLAS_CORETYPE ? `=${process.env.OPENBLAS_CORETYPE}` : 'unset'}).`,
  '',
  `**trec_eval measures on a 1M-line run** (1,000 topics x 1,000 docs, 30 judged docs per topic; \`${measures}\`). Reference: torchmetrics ${mRef?.torch ? `(torch ${mRef.torch})` : ''} retrieval functionals per topic, fed dicts read in Python (pytrec_eval does not install from this machine's pip index). The data retrieves every relevant doc and has no ties, where torchmetrics' definitions equal trec_eval's; the means agree to ${Number.isNaN(maxDiff) ? 'n/a' : maxDiff.toExponential(1)} (torchmetrics sums in float32). torchmetrics loops over topics in Python with small tensors, so it is a slow reference: the ratio shows the metrics are not a bottleneck, not that they beat trec_eval's C loops. Semantics beyond this data (ties, float32 rounding, unretrieved relevant docs) are pinned by the unit tests.`,
  '',
  '| step | @dv/eval | reference | time ratio (ours / reference) |',
  '|---|---|---|---|',
  `| read qrels + run | ${f(oursRead)} s | ${mRef ? `${f(mRef.read_s)} s (Python dicts)` : 'n/a'} | ${mRef ? ratio(oursRead, mRef.read_s) : 'n/a'} |`,
  `| compute 5 measures | ${f(oursEval)} s | ${mRef ? `${f(mRef.eval_s)} s (torchmetrics)` : 'n/a'} | ${mRef ? ratio(oursEval, mRef.eval_s) : 'n/a'} |`,
  `| total | ${f(oursRead + oursEval)} s | ${mRef ? `${f(mRef.read_s + mRef.eval_s)} s` : 'n/a'} | ${mRef ? ratio(oursRead + oursEval, mRef.read_s + mRef.eval_s) : 'n/a'} |`,
  '',
  `**Exact top-${K} over ${N.toLocaleString('en')} x ${DIM} float32 vectors, ${NQ.toLocaleString('en')} queries.** Ours: \`exactTopKOrt\` (document blocks through a Gemm + TopK graph in onnxruntime-node, blocks merged by bounded heaps in JS). Reference: faiss-cpu ${sRef?.faiss ?? ''} IndexFlatIP (${sRef?.threads ?? '?'} OpenMP threads), search only. Top-${K} sets overlap ${Number.isNaN(overlap) ? 'n/a' : `${f(overlap * 100, 3)}%`} (differences only at float32 near-ties).`,
  '',
  'Python reference set-up: `python3 -m venv .venv-ref && .venv-ref/bin/pip install torch torchmetrics faiss-cpu numpy` (local pip index); the script finds `.venv-ref/bin/python` or `DV_BENCH_PYTHON`.',
  '',
  '| implementation | time | time ratio (ours / faiss) |',
  '|---|---|---|',
  `| faiss IndexFlatIP search | ${sRef ? `${f(sRef.search_s)} s` : 'n/a'} | 1.00x |`,
  `| @dv/eval exactTopKOrt | ${f(oursSearch)} s | ${sRef ? ratio(oursSearch, sRef.search_s) : 'n/a'} |`,
  `| @dv/eval exactTopK (pure JS kernel, from 32 queries) | ${f(jsSearch)} s | ${sRef ? ratio(jsSearch, sRef.search_s) : 'n/a'} |`,
  '',
].join('\n');
const doc = join(repo, 'docs', 'benchmarks.md');
const text = readFileSync(doc, 'utf8');
const start = '<!-- bench:eval:start -->';
const end = '<!-- bench:eval:end -->';
const a = text.indexOf(start);
const b = text.indexOf(end);
if (a < 0 || b < a) throw new Error(`${doc}: eval bench markers not found`);
writeFileSync(doc, `${text.slice(0, a + start.length)}\n${section}${text.slice(b)}`);
console.log(`wrote the eval section of ${doc}`);
