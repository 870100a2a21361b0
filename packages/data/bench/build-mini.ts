/**
 * Benchmark: building the default mini world (`buildMiniWorld` with default options) from
 * scratch, per stage, against a same-run reference: reading every output file back line by line
 * with JSON.parse (the least any consumer of the world pays). Also the cache-hit rebuild.
 * Usage: pnpm -F @dv/data bench [-- --out DIR] ; prints a Markdown block for docs/benchmarks.md.
 */
import { createReadStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { buildMiniWorld } from '../src/index.js';

const outArg = process.argv.indexOf('--out');
const out =
  outArg > 0 ? process.argv[outArg + 1]! : join(mkdtempSync(join(tmpdir(), 'dv-bench-mini-')), 'world');

async function readBack(files: string[]): Promise<{ seconds: number; lines: number; bytes: number }> {
  const t = performance.now();
  let lines = 0;
  let bytes = 0;
  for (const f of files) {
    if (!f.endsWith('.jsonl')) continue;
    const rl = createInterface({ input: createReadStream(f), crlfDelay: Number.POSITIVE_INFINITY });
    for await (const line of rl) {
      if (line === '') continue;
      JSON.parse(line);
      lines++;
      bytes += line.length + 1;
    }
  }
  return { seconds: (performance.now() - t) / 1000, lines, bytes };
}

const loadBefore = loadavg()[0]!;
const cpuBefore = process.cpuUsage();
const build = await buildMiniWorld({ out, force: true, progress: 'silent' });
const cpu = process.cpuUsage(cpuBefore);
const loadAfter = loadavg()[0]!;
const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
  timings: Record<string, number>;
};
const ref = await readBack(build.files);
const t = performance.now();
const cached = await buildMiniWorld({ out, progress: 'silent' });
const cachedSeconds = (performance.now() - t) / 1000;
if (!cached.cached) throw new Error('second build was not a cache hit');

const s = build.stats;
const lines = [
  `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), Node ${process.version};`,
  `Other engineers' jobs shared the cores: 1-minute load average ${loadBefore.toFixed(1)} before and ${loadAfter.toFixed(1)} after the build.`,
  `Figures are wall-clock seconds; the build itself used ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s of CPU (one thread, user + system).`,
  '',
  '| step | seconds |',
  '|---|---|',
  ...Object.entries(manifest.timings).map(
    ([k, v]) => `| ${k === 'total' ? '**build, total**' : k} | ${v.toFixed(1)} |`,
  ),
  `| reference: read every output JSONL back with JSON.parse (${ref.lines} lines, ${(ref.bytes / 1e6).toFixed(0)} MB) | ${ref.seconds.toFixed(1)} |`,
  `| rebuild with the same options (cache hit) | ${cachedSeconds.toFixed(2)} |`,
  '',
  `Build / read-back ratio: **${(build.seconds / ref.seconds).toFixed(2)}x**.`,
  `Default sizes: ${s.corpus.documents} entries; lemmas train ${s.splits.train} / dev ${s.splits.dev} / test ${s.splits.test};`,
  `${s.seeds.train.examples} train + ${s.seeds.dev.examples} dev seeds, ${s.general.examples} general examples, ${s.followir.topics} FollowIR-form topics,`,
  `InfoSearch-style topics per lever: ${Object.entries(s.infosearch)
    .map(([k, v]) => `${k} ${v.topics}`)
    .join(', ')}.`,
];
console.log(lines.join('\n'));
if (outArg < 0) rmSync(join(out, '..'), { recursive: true, force: true });
