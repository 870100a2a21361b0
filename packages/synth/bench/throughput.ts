/**
 * Benchmark (not a test): synthesis throughput against a loopback chat-completions server with a
 * fixed latency, at 64 and 256 requests in flight.
 *
 * The bound for C requests in flight at latency L is C / L requests per second. We report the
 * full engine (runSynthesis: prompt rendering, content keys, SDK call, parsing, guardrails,
 * append-only journal, finalize) and, as the same-run reference, a bare `fetch` loop with the
 * same concurrency against the same server: each as a fraction of the bound, plus the
 * engine/reference ratio, the client's CPU per request and peak RSS / heap. The server runs in
 * a child process (bench/loopback-server-child.ts, precomputed answer bytes).
 *
 * Steady state: after an untimed warm-up run of the same length on the same backend (its
 * keep-alive sockets, the JIT, the heap), the engine is timed at C x ROUNDS and C x 2 x ROUNDS
 * requests; the two peak RSS figures show whether memory grows with the run.
 *
 * Run: pnpm -F @dv/synth bench   (writes docs/benchmarks.md between the synth markers and the
 * row "synthesis, 256 in flight, L = 500 ms, vs the bound C/L" of the goals table)
 */
import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type BenchGoalRow,
  type CpuSample,
  cpuInfo,
  otherProcessesCores,
  sampleCpu,
  updateBenchGoals,
  writeBenchSection,
} from '@dv/core/bench';
import { createOpenAIChatBackend } from '../src/backends/openai-chat.js';
import { runSynthesis, templates } from '../src/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const LATENCIES = (process.env.BENCH_LATENCY_MS ?? '500,50').split(',').map(Number);
const LEVELS = (process.env.BENCH_CONCURRENCY ?? '64,256').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8); // requests per run = concurrency x rounds (and x 2 x rounds)
const GOAL_ROW = 'synthesis, 256 in flight, L = 500 ms, vs the bound C/L';
const GOAL_RATIO = 0.9;
/** Peak RSS may grow by at most this share from the short run to the long one ("flat"). */
const RSS_GROWTH = 0.15;

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
  /** The client's CPU (user + system) per request during the engine run (ms). */
  cpuMsPerRequest: number;
  rssMiB: number;
  heapMiB: number;
  /** Cores kept busy by processes other than the client and its server child during the run. */
  otherCores: number | undefined;
}

/** CPU clock ticks (utime + stime) of a live process, from /proc/<pid>/stat; 0 when unknown. */
function processTicks(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    return f[11]! + f[12]!;
  } catch {
    return 0;
  }
}

/** /proc accounting of one timed run: the machine, this process and the (not yet waited) server child. */
function sampleRun(serverPid: number | undefined): { cpu: CpuSample | undefined; server: number } {
  return { cpu: sampleCpu(), server: processTicks(serverPid) };
}

/** Other processes' cores between two samples, the server child's share taken out (USER_HZ = 100). */
function otherCores(a: ReturnType<typeof sampleRun>, b: ReturnType<typeof sampleRun>): number | undefined {
  const other = otherProcessesCores(a.cpu, b.cpu);
  if (other === undefined || !a.cpu || !b.cpu) return undefined;
  const serverCores = (b.server - a.server) / 100 / ((b.cpu.wall - a.cpu.wall) / 1000);
  return Math.max(0, other - serverCores);
}

const rows: Row[] = [];
const loadBefore = loadavg()[0]!;
const cpu = cpuInfo();
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
    await rawFetch(url, c, c * 2); // warm up connections
    const reference = await rawFetch(url, c, n);
    const backend = createOpenAIChatBackend({ baseURLs: [url], model: 'loopback', concurrency: c, env: {} });
    const run = (seedCount: number, name: string) =>
      runSynthesis({
        seedsPath: seeds(seedCount, mkdtempSync(join(dir, `${name}-`))),
        outDir: join(dir, `${name}-out`),
        backend,
        template: templates['polarity-reversal'],
        model: 'loopback',
        concurrency: c,
        progressMode: 'silent',
      });
    // Untimed warm-up of the same length, same backend: the engine's keep-alive sockets (as the
    // bare fetch warm-up does for fetch's pool), the JIT and the heap; then the timed runs.
    await run(n, 'warm');
    for (const requests of [n, 2 * n]) {
      global.gc?.();
      const stop = memorySampler();
      const before = sampleRun(child.pid);
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const s = await run(requests, `run${requests}`);
      const engine = s.recorded / ((performance.now() - t0) / 1000);
      const used = process.cpuUsage(cpu0);
      const after = sampleRun(child.pid);
      const mem = stop();
      if (s.recorded !== requests || s.accepted !== requests)
        throw new Error(`expected ${requests} accepted records, got ${s.recorded} (${s.accepted} accepted)`);
      rows.push({
        latencyMs: LATENCY_MS,
        concurrency: c,
        requests,
        bound: c / (LATENCY_MS / 1000),
        engine,
        reference,
        cpuMsPerRequest: (used.user + used.system) / 1000 / requests,
        otherCores: otherCores(before, after),
        ...mem,
      });
    }
    rmSync(dir, { recursive: true, force: true });
  }
  child.send('close');
}

const f = (x: number, d = 0) => x.toFixed(d);
const table = [
  '| latency (ms) | in flight | requests | bound (req/s) | engine (req/s) | engine / bound | bare fetch (req/s) | fetch / bound | engine / fetch | client CPU (ms / request) | peak RSS (MiB) | peak heap (MiB) | other processes (cores) |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.latencyMs} | ${r.concurrency} | ${r.requests} | ${f(r.bound)} | ${f(r.engine)} | ${f(r.engine / r.bound, 2)} | ${f(r.reference)} | ${f(r.reference / r.bound, 2)} | ${f(r.engine / r.reference, 2)} | ${f(r.cpuMsPerRequest, 2)} | ${f(r.rssMiB)} | ${f(r.heapMiB)} | ${r.otherCores === undefined ? '?' : f(r.otherCores, 2)} |`,
  ),
].join('\n');
process.stdout.write(`${table}\n`);

const section = `Command: \`pnpm -F @dv/synth bench\` (env: BENCH_LATENCY_MS=${LATENCIES.join(',')}, BENCH_CONCURRENCY=${LEVELS.join(',')}, BENCH_ROUNDS=${ROUNDS}).
Measured ${new Date().toISOString().slice(0, 16)} UTC, Node ${process.version}, ${process.platform}-${process.arch}; 1-min load average ${loadBefore.toFixed(1)} at the start and ${loadavg()[0]!.toFixed(1)} at the end (it includes the
bench's own client and server; well above 2 means other jobs shared the 2 cores). The last column is the cores kept busy by processes
other than the client and its server child during each engine run (/proc; the server child is alive then, so its own
/proc/PID/stat is taken out). The same-run ratios are the figures to compare.

A minimal chat-completions server (child process, precomputed answer bytes) answers every request
after a fixed latency L (${LATENCIES.join(' and ')} ms). With C requests in flight the bound is C / L. "engine" is the whole \`runSynthesis\` path
(render, key, openai SDK call over node:http keep-alive, parse, guardrails, append-only journal written
once per event-loop turn, finalize with its fsyncs; no verification), timed at C x ${ROUNDS} and C x ${2 * ROUNDS} requests
after an untimed warm-up run of C x ${ROUNDS} seeds on the same backend (steady state: sockets, JIT, heap);
"bare fetch" is the same-run reference: C workers posting with \`fetch\` and nothing else, C x ${ROUNDS}
requests after a warm-up of 2 x C. Client CPU, peak RSS and heap are of the client process during the
engine run; RSS that stays level from the short run to the long one is bounded by the requests in flight.

${table}`;
const doc = process.env.DV_BENCH_DOC ?? join(here, '..', '..', '..', 'docs', 'benchmarks.md');
writeBenchSection(doc, 'synth', cpu, '@dv/synth: synthesis throughput against a loopback server', section);

// The goals row: the engine at 256 in flight and L = 500 ms, both run lengths (the lower ratio
// counts), and RSS flat from the short run to the long one.
const goalRows = rows.filter((r) => r.latencyMs === 500 && r.concurrency === 256);
if (goalRows.length === 2) {
  const [short, long] = goalRows as [Row, Row];
  const worst = short.engine / short.bound <= long.engine / long.bound ? short : long;
  const ratio = worst.engine / worst.bound;
  const growth = long.rssMiB / short.rssMiB - 1;
  const others = goalRows.map((r) => r.otherCores).filter((x): x is number => x !== undefined);
  const n = (x: number) => x.toLocaleString('en-US');
  const goal: BenchGoalRow = {
    row: GOAL_ROW,
    figure: `${ratio.toFixed(2)} of C/L (${f(worst.engine)} req/s at ${n(worst.requests)} requests; ${f(short.engine / short.bound, 2)} at ${n(short.requests)}, ${f(long.engine / long.bound, 2)} at ${n(long.requests)}; bare fetch ${f(short.reference / short.bound, 2)}); peak RSS ${f(short.rssMiB)} MiB at ${n(short.requests)} and ${f(long.rssMiB)} MiB at ${n(long.requests)} requests`,
    goal: `>= ${GOAL_RATIO.toFixed(2)}, RSS flat (under ${f(RSS_GROWTH * 100)}% growth)`,
    met: ratio >= GOAL_RATIO && growth < RSS_GROWTH,
    ...(others.length === goalRows.length ? { otherCores: Math.max(...others) } : {}),
  };
  updateBenchGoals(doc, cpu, [goal]);
}
process.stdout.write(`updated ${doc}\n`);
