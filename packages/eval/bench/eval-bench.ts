/**
 * @dv/eval benchmarks, each against a reference measured in the same run:
 *   1. trec_eval measures on a 1M-line run (1,000 topics x 1,000 docs) vs torchmetrics'
 *      retrieval functionals (pytrec_eval is not on this machine's pip index);
 *   2. exact top-100 over 100k x 256 float32 vectors for 1,000 queries vs faiss-cpu IndexFlatIP.
 * Writes the figures into the eval section of docs/benchmarks.md, and two rows of its goals table
 * (`dv eval trec` vs trec_eval 9.0.8 in C, exact top-100 vs faiss), each with the other processes'
 * share of the cores measured during that part.
 * trec_eval: DV_TREC_EVAL, else on PATH, else built from its source folder into os.tmpdir()
 *   (src/test-utils/trec-eval-binary.ts).
 * Python reference: DV_BENCH_PYTHON, else <repo>/.venv-ref/bin/python
 *   (python3 -m venv .venv-ref && .venv-ref/bin/pip install torch torchmetrics faiss-cpu numpy).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRng, readQrels, readRun } from '@dv/core';
import {
  type BenchGoalRow,
  cpuInfo,
  otherProcessesCores,
  sampleCpu,
  updateBenchGoals,
  writeBenchSection,
} from '@dv/core/bench';
import { evaluateRun } from '../src/metrics/index.js';
import { exactTopK } from '../src/search/exact-top-k.js';
import { exactTopKOrt } from '../src/search/exact-top-k-ort.js';
import { findTrecEval } from '../src/test-utils/trec-eval-binary.js';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..', '..');
const python = process.env.DV_BENCH_PYTHON ?? join(repo, '.venv-ref', 'bin', 'python');
const hasPython = existsSync(python);
const loadAtStart = loadavg()[0]!;
const cpuAtStart = sampleCpu();
const cpu = cpuInfo();
console.log(`CPU: ${cpu.label}`);
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

// Whole process: the built `dv` bin (apps/pipeline/dist/bin/dv.js, built at install or by
// `pnpm -F @dv/pipeline build:bin`) against trec_eval 9.0.8 (C) on the same files, alternated
// (bin, C, bin, C, ...) ROUNDS times, medians of each; its start-up alone (`--help`) against a bare
// `node -e 0`, best of 5.
const dvBin = join(repo, 'apps', 'pipeline', 'dist', 'bin', 'dv.js');
if (!existsSync(dvBin))
  execFileSync(process.execPath, [join(repo, 'apps', 'pipeline', 'scripts', 'build-bin.mjs')]);
/**
 * One run of a child: wall seconds, and CPU seconds (user + system): the child is reaped by
 * spawnSync, so its time lands in this process's cutime/cstime (/proc, 10 ms ticks). Unlike wall
 * time it hardly moves when other jobs share the cores.
 */
const timeChild = (cmd: string, args: string[]) => {
  const t = performance.now();
  const c0 = sampleCpu();
  const r = spawnSync(cmd, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, npm_lifecycle_event: '' },
    maxBuffer: 1 << 26,
  });
  const c1 = sampleCpu();
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  return { wall: secs(t), cpu: c0 && c1 ? (c1.own - c0.own) / 100 : Number.NaN, stdout: String(r.stdout) };
};
const childCpu = new Map<string, number>();
const best = (n: number, cmd: string, args: string[]) => {
  let b = Number.POSITIVE_INFINITY;
  let c = Number.POSITIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    const r = timeChild(cmd, args);
    b = Math.min(b, r.wall);
    c = Math.min(c, r.cpu);
  }
  childCpu.set([cmd, ...args].join(' '), c);
  return b;
};
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length === 0 ? Number.NaN : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const cpuOf = (cmd: string, args: string[]) => childCpu.get([cmd, ...args].join(' ')) ?? Number.NaN;
const trecArgs = ['eval', 'trec', '--qrels', qrelsPath, '--run', runPath, '--measures', measures];
const found = findTrecEval();
const trecEval = found.path;
console.log(`trec_eval: ${found.note}`);
const trecEvalArgs = [...measures.split(',').flatMap((m) => ['-m', m]), qrelsPath, runPath];
const ROUNDS = 5;
const binRuns: ReturnType<typeof timeChild>[] = [];
const cRuns: ReturnType<typeof timeChild>[] = [];
const trecPartStart = sampleCpu();
for (let i = 0; i < ROUNDS; i++) {
  binRuns.push(timeChild(process.execPath, [dvBin, ...trecArgs]));
  if (trecEval) cRuns.push(timeChild(trecEval, trecEvalArgs));
}
const trecOther = otherProcessesCores(trecPartStart, sampleCpu());
const wholeBin = median(binRuns.map((r) => r.wall));
const wholeBinCpu = median(binRuns.map((r) => r.cpu));
const wholeC = trecEval ? median(cRuns.map((r) => r.wall)) : Number.NaN;
const wholeCCpu = trecEval ? median(cRuns.map((r) => r.cpu)) : Number.NaN;
const sameText = trecEval ? binRuns[0]!.stdout === cRuns[0]!.stdout : undefined;
const tsxArgs = [
  '--conditions=@dv/source',
  '--import',
  'tsx',
  join(repo, 'apps', 'pipeline', 'src', 'cli.ts'),
  ...trecArgs,
];
const wholeTsx = best(1, process.execPath, tsxArgs);
const startBin = existsSync(dvBin) ? best(5, process.execPath, [dvBin, '--help']) : Number.NaN;
const startNode = best(5, process.execPath, ['-e', '0']);
console.log(
  `whole process (medians of ${ROUNDS} alternated): dv bin ${f(wholeBin)} s (CPU ${f(wholeBinCpu)} s), trec_eval ${trecEval ? `${f(wholeC)} s (CPU ${f(wholeCCpu)} s), output ${sameText ? 'byte-identical' : 'DIFFERENT'}` : 'not found'}; through tsx ${f(wholeTsx)} s; start-up: dv --help ${f(startBin)} s, node -e 0 ${f(startNode)} s; other processes ${trecOther === undefined ? '?' : f(trecOther)} cores`,
);

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
// Ours and faiss alternated SEARCH_ROUNDS times (faiss: one Python process per round, search
// timed inside it, after its warm-up); medians of each.
const SEARCH_ROUNDS = 3;
const dp = join(work, 'docs.f32');
const qp = join(work, 'queries.f32');
const ip = join(work, 'ids.i32');
if (hasPython) {
  writeFileSync(dp, new Uint8Array(docs.buffer));
  writeFileSync(qp, new Uint8Array(queries.buffer));
}
const searchPartStart = sampleCpu();
const oursTimes: number[] = [];
const faissRuns: Array<Record<string, unknown>> = [];
let top = await exactTopKOrt(queries.subarray(0, DIM), docs.subarray(0, 4096 * DIM), DIM, K);
for (let i = 0; i < SEARCH_ROUNDS; i++) {
  t0 = performance.now();
  top = await exactTopKOrt(queries, docs, DIM, K);
  oursTimes.push(secs(t0));
  if (hasPython) faissRuns.push(py('reference_search.py', [dp, qp, String(DIM), String(K), ip]));
}
const searchOther = otherProcessesCores(searchPartStart, sampleCpu());
const oursSearch = median(oursTimes);
// The pure-JavaScript kernel on 32 queries, scaled, for comparison.
t0 = performance.now();
exactTopK(queries.subarray(0, 32 * DIM), docs, DIM, K);
const jsSearch = (secs(t0) * NQ) / 32;
console.log(
  `ours (onnxruntime sgemm): ${oursTimes.map((x) => f(x)).join(', ')} s; pure JS kernel (scaled from 32 queries): ${f(jsSearch)} s; other processes ${searchOther === undefined ? '?' : f(searchOther)} cores`,
);

let searchRef: Record<string, unknown> | null = null;
let overlap = Number.NaN;
if (hasPython) {
  searchRef = { ...faissRuns.at(-1)!, search_s: median(faissRuns.map((r) => r.search_s as number)) };
  const buf = readFileSync(ip);
  const ids = new Int32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
  let same = 0;
  for (let q = 0; q < NQ; q++) {
    const mine = new Set(top.indices.subarray(q * K, (q + 1) * K));
    for (let j = 0; j < K; j++) if (mine.has(ids[q * K + j]!)) same++;
  }
  overlap = same / (NQ * K);
  console.log(
    'faiss:',
    faissRuns.map((r) => f(r.search_s as number)),
    searchRef,
    'top-100 overlap',
    overlap,
  );
}
rmSync(work, { recursive: true, force: true });

// docs/benchmarks.md --------------------------------------------------------------------------
const ratio = (a: number, b: number) => `${f(a / b, 2)}x`;
const mRef = metricsRef as { read_s: number; eval_s: number; torch: string } | null;
const sRef = searchRef as { search_s: number; add_s: number; threads: number; faiss: string } | null;
const otherCores = otherProcessesCores(cpuAtStart, sampleCpu());
const section = [
  `Measured ${new Date().toISOString().slice(0, 10)} with \`pnpm -F @dv/eval bench\` (Node ${process.version}, ${cpus().length} cores; 1-minute load average ${f(loadAtStart, 1)} at the start and ${f(loadavg()[0]!, 1)} at the end; other processes kept ${otherCores === undefined ? 'an unknown number of' : f(otherCores, 2)} cores busy on average during the run (machine busy time minus the benchmark's own, from /proc)${(otherCores ?? 0) > 0.2 ? ', so other jobs shared the cores and absolute times are noisy' : ''}; ratios, from the same run, are the figures to read; OPENBLAS_CORETYPE ${process.env.OPENBLAS_CORETYPE ? `=${process.env.OPENBLAS_CORETYPE}` : 'unset'}).`,
  '',
  `**trec_eval measures on a 1M-line run** (1,000 topics x 1,000 docs, 30 judged docs per topic; \`${measures}\`). Reference: torchmetrics ${mRef?.torch ? `(torch ${mRef.torch})` : ''} retrieval functionals per topic, fed dicts read in Python (pytrec_eval does not install from this machine's pip index). The data retrieves every relevant doc and has no ties, where torchmetrics' definitions equal trec_eval's; the means agree to ${Number.isNaN(maxDiff) ? 'n/a' : maxDiff.toExponential(1)} (torchmetrics sums in float32). torchmetrics loops over topics in Python with small tensors, so it is a slow reference: the ratio shows the metrics are not a bottleneck, not that they beat trec_eval's C loops. Semantics beyond this data (ties, float32 rounding, unretrieved relevant docs) are pinned by the unit tests.`,
  '',
  '| step | @dv/eval | reference | time ratio (ours / reference) |',
  '|---|---|---|---|',
  `| read qrels + run | ${f(oursRead)} s | ${mRef ? `${f(mRef.read_s)} s (Python dicts)` : 'n/a'} | ${mRef ? ratio(oursRead, mRef.read_s) : 'n/a'} |`,
  `| compute 5 measures | ${f(oursEval)} s | ${mRef ? `${f(mRef.eval_s)} s (torchmetrics)` : 'n/a'} | ${mRef ? ratio(oursEval, mRef.eval_s) : 'n/a'} |`,
  `| total | ${f(oursRead + oursEval)} s | ${mRef ? `${f(mRef.read_s + mRef.eval_s)} s` : 'n/a'} | ${mRef ? ratio(oursRead + oursEval, mRef.read_s + mRef.eval_s) : 'n/a'} |`,
  '',
  `**\`dv eval trec\`, whole process** (start-up, read, 5 measures, print), the same files: the built bin (\`node apps/pipeline/dist/bin/dv.js\`) against trec_eval 9.0.8 (C; ${trecEval ? `${found.note}, its Makefile's flags when built here` : `not found: ${found.note}`}), alternated ${ROUNDS} times, medians; other processes kept ${trecOther === undefined ? 'an unknown number of' : f(trecOther, 2)} cores busy meanwhile.${sameText === undefined ? '' : sameText ? ' The two outputs are byte-identical.' : ' **The two outputs differ.**'}`,
  '',
  '| process | time | CPU time (user + system) | time ratio (ours / reference) |',
  '|---|---|---|---|',
  `| trec_eval 9.0.8 (C) | ${trecEval ? `${f(wholeC)} s` : 'not found'} | ${trecEval ? `${f(wholeCCpu)} s` : 'n/a'} | ${trecEval ? '1.00x' : 'n/a'} |`,
  `| \`dv eval trec\`, built bin | ${f(wholeBin)} s | ${f(wholeBinCpu)} s | ${trecEval ? ratio(wholeBin, wholeC) : 'n/a'} |`,
  `| \`dv eval trec\`, sources through tsx (\`pnpm dv\` without pnpm) | ${f(wholeTsx)} s | ${f(cpuOf(process.execPath, tsxArgs))} s | ${trecEval ? ratio(wholeTsx, wholeC) : 'n/a'} |`,
  `| start-up: \`dv --help\`, built bin (best of 5) | ${f(startBin)} s | ${f(cpuOf(process.execPath, [dvBin, '--help']))} s | ${ratio(startBin, startNode)} of a bare \`node -e 0\` |`,
  `| start-up: \`node -e 0\` (best of 5) | ${f(startNode)} s | ${f(cpuOf(process.execPath, ['-e', '0']))} s | 1.00x |`,
  '',
  `**Exact top-${K} over ${N.toLocaleString('en')} x ${DIM} float32 vectors, ${NQ.toLocaleString('en')} queries.** Ours: \`exactTopKOrt\` (document blocks of 16M scores through a Gemm + TopK graph in onnxruntime-node, pool threads that sleep rather than spin, blocks merged by bounded heaps in JS). Reference: faiss-cpu ${sRef?.faiss ?? ''} IndexFlatIP (${sRef?.threads ?? '?'} OpenMP threads), search only. Alternated ${SEARCH_ROUNDS} times, medians; other processes kept ${searchOther === undefined ? 'an unknown number of' : f(searchOther, 2)} cores busy meanwhile. Top-${K} sets overlap ${Number.isNaN(overlap) ? 'n/a' : `${f(overlap * 100, 3)}%`} (differences only at float32 near-ties).`,
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
const doc = process.env.DV_BENCH_DOC ?? join(repo, 'docs', 'benchmarks.md');
writeBenchSection(doc, 'eval', cpu, '@dv/eval: metrics and exact search', section);
// The goals table: one row per part, each with the other processes' share during that part.
const goals: BenchGoalRow[] = [];
if (trecEval)
  goals.push({
    row: '`dv eval trec`, 1M lines, whole process, vs trec_eval 9.0.8 (C)',
    figure: `${f(wholeC / wholeBin)}x (${f(wholeBin)} s vs ${f(wholeC)} s; CPU ${f(wholeBinCpu)} s vs ${f(wholeCCpu)} s)`,
    goal: '>= 1.0x',
    met: wholeC / wholeBin >= 1.0,
    otherCores: trecOther,
  });
if (sRef)
  goals.push({
    row: 'exact top-100, 100k x 256, vs faiss IndexFlatIP',
    figure: `${f(sRef.search_s / oursSearch)}x (${f(oursSearch)} s vs ${f(sRef.search_s)} s)`,
    goal: '>= 1.0x',
    met: sRef.search_s / oursSearch >= 1.0,
    otherCores: searchOther,
  });
if (goals.length > 0) updateBenchGoals(doc, cpu, goals);
console.log(`wrote the eval section${goals.length > 0 ? ' and goal rows' : ''} of ${doc}`);
