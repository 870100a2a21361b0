/**
 * Benchmark: wall time of `pnpm reproduce` (mini profile) from an empty run folder, the built
 * bin as a user runs it, `--quick` and the default profile (3 seeds), with the other processes'
 * share of the cores sampled from /proc for each run. Writes the `reproduce` section of
 * docs/benchmarks.md for this CPU family (per-group stage times from the run's run.json) and the
 * two goal rows (issue 26: default <= 25 min, --quick <= 4 min; issue 24 had asked 15 min of the
 * default before the control arms and the per-seed backbones were added to it).
 *
 * Usage: pnpm -F @dv/pipeline bench            (both runs, ~20-30 min on 2 cores)
 *        DV_BENCH_REPRODUCE=quick pnpm -F @dv/pipeline bench   (only --quick)
 * DV_BENCH_DOC names another file to write to (trial runs).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatDuration } from '@dv/core';
import {
  type BenchGoalRow,
  cpuInfo,
  otherProcessesCores,
  sampleCpu,
  updateBenchGoals,
  writeBenchSection,
} from '@dv/core/bench';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..', '..');
const bin = join(repo, 'apps', 'pipeline', 'dist', 'bin', 'dv.js');
const doc = process.env.DV_BENCH_DOC ?? join(repo, 'docs', 'benchmarks.md');
const which = process.env.DV_BENCH_REPRODUCE ?? 'all';

interface RunJson {
  wallSeconds: number;
  jobs?: number;
  stages: { id: string; status: string; thisRun: number }[];
}

interface Timed {
  name: string;
  args: string[];
  goalSeconds: number;
  goalText: string;
  row: string;
  wall: number;
  otherCores: number | undefined;
  groups: Map<string, { stages: number; seconds: number }>;
  /** Stages run at once (run.json). */
  jobs: number;
}

/** "2 stages at a time" for the runs' --jobs (one figure when they agree). */
function runJobs(rs: readonly Timed[]): string {
  const js = [...new Set(rs.map((r) => r.jobs))];
  return js.map((j) => `${j} stage${j === 1 ? '' : 's'} at a time`).join(' / ');
}

function timeRun(name: string, args: string[]): Omit<Timed, 'goalSeconds' | 'goalText' | 'row'> {
  const out = mkdtempSync(join(tmpdir(), `dv-bench-reproduce-${name}-`));
  try {
    const before = sampleCpu();
    const started = performance.now();
    process.stderr.write(`reproduce ${args.join(' ')} --out ${out}\n`);
    const r = spawnSync(process.execPath, [bin, 'reproduce', ...args, '--out', out], {
      stdio: ['ignore', 'ignore', 'inherit'],
      cwd: repo,
    });
    const wall = (performance.now() - started) / 1000;
    const otherCores = otherProcessesCores(before, sampleCpu());
    if (r.status !== 0) throw new Error(`dv reproduce ${args.join(' ')} exited ${r.status}`);
    const run = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')) as RunJson;
    const groups = new Map<string, { stages: number; seconds: number }>();
    for (const s of run.stages) {
      const g = s.id.split('/')[0]!;
      const cur = groups.get(g) ?? { stages: 0, seconds: 0 };
      cur.stages += 1;
      cur.seconds += s.thisRun;
      groups.set(g, cur);
    }
    return { name, args, wall, otherCores, groups, jobs: run.jobs ?? 1 };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const cpu = cpuInfo();
const loadAtStart = loadavg()[0]!;
const plans = [
  {
    name: 'quick',
    args: ['--quick'],
    goalSeconds: 4 * 60,
    goalText: '<= 4 min',
    row: '`pnpm reproduce --quick` mini, empty run folder',
  },
  {
    name: 'default',
    args: [],
    goalSeconds: 25 * 60,
    goalText: '<= 25 min',
    row: '`pnpm reproduce` mini, default profile (3 seeds), empty run folder',
  },
].filter((p) => which === 'all' || which === p.name);

const results: Timed[] = plans.map((p) => ({ ...p, ...timeRun(p.name, p.args) }));

const fmt = (s: number) => formatDuration(s);
const allGroups = [...new Set(results.flatMap((r) => [...r.groups.keys()]))];
const table = [
  `| stage group | ${results.map((r) => `\`${['reproduce', ...r.args].join(' ')}\``).join(' | ')} |`,
  `| --- | ${results.map(() => '---').join(' | ')} |`,
  ...allGroups.map((g) => {
    const cells = results.map((r) => {
      const x = r.groups.get(g);
      return x ? `${fmt(x.seconds)} (${x.stages} stages)` : '-';
    });
    return `| ${g} | ${cells.join(' | ')} |`;
  }),
  `| **whole process (wall)** | ${results.map((r) => `**${fmt(r.wall)}**`).join(' | ')} |`,
  `| other processes (cores) | ${results.map((r) => (r.otherCores === undefined ? 'unknown' : r.otherCores.toFixed(2))).join(' | ')} |`,
];

const section = [
  `\`node apps/pipeline/dist/bin/dv.js reproduce [--quick] --out EMPTY_TMP_DIR\` (what \`pnpm reproduce\` runs), mini profile, from an empty run folder (nothing reused), one run each, with the default \`--jobs\` (${runJobs(results)}). Stage-group times are the stages' own wall times from the run's \`run.json\`, summed: with 2 stages at a time they add up to more than the wall time; the whole-process time includes start-up and the report.`,
  '',
  ...table,
  '',
  `Measured ${new Date().toISOString().slice(0, 16)} UTC, Node ${process.version}; 1-minute load average ${loadAtStart.toFixed(1)} at the start and ${loadavg()[0]!.toFixed(1)} at the end. Command: \`pnpm -F @dv/pipeline bench\`.`,
].join('\n');

writeBenchSection(doc, 'reproduce', cpu, '@dv/pipeline: `pnpm reproduce` wall time', section);
const rows: BenchGoalRow[] = results.map((r) => ({
  row: r.row,
  figure: fmt(r.wall),
  goal: r.goalText,
  met: r.wall <= r.goalSeconds,
  ...(r.otherCores !== undefined ? { otherCores: r.otherCores } : {}),
}));
updateBenchGoals(doc, cpu, rows);
process.stdout.write(`${table.join('\n')}\nwrote ${doc}\n`);
