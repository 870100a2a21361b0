/**
 * Benchmark (not a test): synthesis throughput against a loopback chat-completions server with a
 * fixed latency, at 64 and 256 requests in flight.
 *
 * The bound for C requests in flight at latency L is C / L requests per second. We report the
 * full engine (runSynthesis: prompt rendering, content keys, SDK call, parsing, guardrails,
 * append-only journal, finalize) and, as the same-run reference, a bare `fetch` loop with the
 * same concurrency against the same server: each as a fraction of the bound, plus the
 * engine/reference ratio and peak RSS / heap. The server runs in a child process.
 *
 * Run: pnpm -F @dv/synth bench   (writes docs/benchmarks.md between the synth markers)
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuInfo, otherProcessesCores, sampleCpu, writeBenchSection } from '@dv/core';
import { createOpenAIChatBackend, runSynthesis, templates } from '../src/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const LATENCIES = (process.env.BENCH_LATENCY_MS ?? '500,50').split(',').map(Number);
const LEVELS = (process.env.BENCH_CONCURRENCY ?? '64,256').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8); // requests per run = concurrency x rounds

function seeds(n: number, dir: string): string {
  const lines = Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      id: `b${i}`,
      query: `lighthouse ${i}`,
      instruction: { text: 'I want the coastal tower and its keeper.' },
      positives: [{ docid: `p${i}`, text: 'a coastal tower with a bright lamp tended by a keeper' }],
      instructionNegatives: [
        { docid: `n${i}`, text: `a porcelain figurine shaped like a lighthouse number ${i}` },
      ],
      hardNegatives: [{ docid: `h${i}`, text: 'a harbour crane lifting containers' }],
    }),
  );
  const p = join(dir, 'seeds.jsonl');
  writeFileSync(p, `${lines.join('\n')}\n`);
  return p;
}

function memorySampler() {
  let rss = 0;
  let heap = 0;
  const t = setInterval(() => {
    const m = process.memoryUsage();
    rss = Math.max(rss, m.rss);
    heap = Math.max(heap, m.heapUsed);
  }, 20);
  return () => {
    clearInterval(t);
    return { rssMiB: rss / 2 ** 20, heapMiB: heap / 2 ** 20 };
  };
}

async function rawFetch(url: string, concurrency: number, n: number): Promise<number> {
  let next = 0;
  // the same prompt the engine sends, so the server does the same work per request
  const messages = templates['polarity-reversal'].render({
    query: 'lighthouse 1',
    instruction: 'I want the coastal tower and its keeper.',
    positive: { text: 'a coastal tower with a bright lamp tended by a keeper' },
    target: { text: 'a porcelain figurine shaped like a lighthouse number 1' },
    otherNegatives: [],
  });
  const body = JSON.stringify({ model: 'loopback', messages, temperature: 0.7, max_tokens: 512 });
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        next++;
        const r = await fetch(`${url}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
          body,
        });
        await r.json();
      }
    }),
  );
  return n / ((performance.now() - t0) / 1000);
}

interface Row {
  latencyMs: number;
  concurrency: number;
  requests: number;
  bound: number;
  engine: number;
  reference: number;
  rssMiB: number;
  heapMiB: number;
}
const rows: Row[] = [];
const loadBefore = loadavg()[0]!;
const cpu = cpuInfo();
const cpuBefore = sampleCpu();
process.stdout.write(`CPU: ${cpu.label}\n`);
for (const LATENCY_MS of LATENCIES) {
  const child = fork(join(here, 'loopback-server-child.ts'), [String(LATENCY_MS)], {
    execArgv: ['--conditions=@dv/source', '--import', 'tsx'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const url: string = await new Promise((resolve) => {
    child.stdout!.once('data', (d: Buffer) => resolve((JSON.parse(d.toString()) as { url: string }).url));
  });

  for (const c of LEVELS) {
    const n = c * ROUNDS;
    const dir = mkdtempSync(join(tmpdir(), 'dv-synth-bench-'));
    const seedsPath = seeds(n, dir);
    await rawFetch(url, c, c * 2); // warm up connections
    const reference = await rawFetch(url, c, n);
    const backend = createOpenAIChatBackend({ baseURLs: [url], model: 'loopback', concurrency: c, env: {} });
    // Untimed warm-up of the engine's own connections (its keep-alive agent), as the bare fetch
    // warm-up above does for fetch's pool: 2 x C seeds into a scratch folder, same backend.
    await runSynthesis({
      seedsPath: seeds(c * 2, mkdtempSync(join(dir, 'warm-'))),
      outDir: join(dir, 'warm-out'),
      backend,
      template: templates['polarity-reversal'],
      model: 'loopback',
      concurrency: c,
      progressMode: 'silent',
    });
    const stop = memorySampler();
    const t0 = performance.now();
    const s = await runSynthesis({
      seedsPath,
      outDir: join(dir, 'out'),
      backend,
      template: templates['polarity-reversal'],
      model: 'loopback',
      concurrency: c,
      progressMode: 'silent',
    });
    const engine = s.recorded / ((performance.now() - t0) / 1000);
    const mem = stop();
    if (s.recorded !== n) throw new Error(`expected ${n} records, got ${s.recorded}`);
    rows.push({
      latencyMs: LATENCY_MS,
      concurrency: c,
      requests: n,
      bound: c / (LATENCY_MS / 1000),
      engine,
      reference,
      ...mem,
    });
    rmSync(dir, { recursive: true, force: true });
  }
  child.send('close');
}

const f = (x: number, d = 0) => x.toFixed(d);
const table = [
  '| latency (ms) | in flight | requests | bound (req/s) | engine (req/s) | engine / bound | bare fetch (req/s) | fetch / bound | engine / fetch | peak RSS (MiB) | peak heap (MiB) |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.latencyMs} | ${r.concurrency} | ${r.requests} | ${f(r.bound)} | ${f(r.engine)} | ${f(r.engine / r.bound, 2)} | ${f(r.reference)} | ${f(r.reference / r.bound, 2)} | ${f(r.engine / r.reference, 2)} | ${f(r.rssMiB)} | ${f(r.heapMiB)} |`,
  ),
].join('\n');
process.stdout.write(`${table}\n`);

// The loopback server is a forked child this process waits for only at exit, so its CPU time
// counts as "other processes" here: the figure is an upper bound on other jobs' share.
const otherCores = otherProcessesCores(cpuBefore, sampleCpu());
const section = `Command: \`pnpm -F @dv/synth bench\` (env: BENCH_LATENCY_MS=${LATENCIES.join(',')}, BENCH_CONCURRENCY=${LEVELS.join(',')}, BENCH_ROUNDS=${ROUNDS}).
Measured ${new Date().toISOString().slice(0, 16)} UTC, Node ${process.version}, ${process.platform}-${process.arch}; 1-min load average ${loadBefore.toFixed(1)} at the start and ${loadavg()[0]!.toFixed(1)} at the end (it includes the
bench's own client and server; well above 2 means other jobs shared the 2 cores); processes other than the client (the loopback server included) kept ${otherCores === undefined ? 'an unknown number of' : otherCores.toFixed(2)} cores busy on average (/proc). The same-run ratios are the figures to compare.

A loopback chat-completions server (child process) answers every request after a fixed latency L
(${LATENCIES.join(' and ')} ms). With C requests in flight the bound is C / L. "engine" is the whole \`runSynthesis\` path
(render, key, openai SDK call over node:http keep-alive, parse, guardrails, append-only journal written
once per event-loop turn, finalize with its fsyncs; no verification), after an untimed warm-up run of
2 x C seeds on the same backend; "bare fetch" is the same-run reference: C workers posting with \`fetch\`
and nothing else, after a warm-up of 2 x C requests.
Peak RSS / heap are of the client process during the engine run.

${table}`;
const doc = process.env.DV_BENCH_DOC ?? join(here, '..', '..', '..', 'docs', 'benchmarks.md');
writeBenchSection(doc, 'synth', cpu, '@dv/synth: synthesis throughput against a loopback server', section);
process.stdout.write(`updated ${doc}\n`);
