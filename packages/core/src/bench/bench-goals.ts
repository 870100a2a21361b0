import { readFileSync, writeFileSync } from 'node:fs';
import type { CpuInfo } from './cpu-info.js';

/** One row of the goals table a benchmark updates (keyed by `row`). */
export interface BenchGoalRow {
  /** The row's name, its key in the table ("training step, config A (2/128/64), 2 threads, vs PyTorch"). */
  row: string;
  /** The measured figure as printed ("1.42x", "0.93 of C/L", "13:05"). */
  figure: string;
  /** The goal as printed (">= 1.3x"). */
  goal: string;
  /** Whether the figure meets the goal (computed by the benchmark, never typed). */
  met: boolean;
  /** Other processes' share of the cores during the measurement (/proc), when known. */
  otherCores?: number;
}

/** Other processes above this share of the cores make a figure contended: not kept as evidence. */
export const QUIET_CORES = 0.2;

const HEADER = [
  '| row | figure | goal | met | other processes (cores) | measured |',
  '| --- | --- | --- | --- | --- | --- |',
];

/** Escapes a table cell (pipes would split it). */
const cell = (text: string) => text.replaceAll('|', '\\|');

/** The verdict cell: met / missed, or "contended" when other processes shared the cores. */
export function goalVerdict(row: BenchGoalRow): string {
  if (row.otherCores !== undefined && row.otherCores > QUIET_CORES) return 'not kept (contended)';
  return row.met ? '**met**' : '**missed**';
}

function renderRow(row: BenchGoalRow, date: string): string {
  const other = row.otherCores === undefined ? 'unknown' : row.otherCores.toFixed(2);
  return `| ${cell(row.row)} | ${cell(row.figure)} | ${cell(row.goal)} | ${goalVerdict(row)} | ${other} | ${date} |`;
}

/** The first cell of a table line, unescaped (the row key). */
function rowKey(line: string): string | undefined {
  const m = /^\|\s*((?:[^|\\]|\\.)*?)\s*\|/.exec(line);
  return m?.[1]?.replaceAll('\\|', '|');
}

/**
 * Updates the goals table of one CPU family at the top of docs/benchmarks.md: each given row
 * replaces the row with the same name (or is appended), every other row is kept as it was, so
 * each package's benchmark owns its rows and the table always shows the latest figure of each.
 * The block sits between `<!-- bench:goals:SLUG:start -->` and `...:end -->`; when absent it is
 * inserted before the first other bench section (or at the end).
 */
export function updateBenchGoals(
  doc: string,
  cpu: CpuInfo,
  rows: readonly BenchGoalRow[],
  date = new Date().toISOString().slice(0, 10),
): void {
  const text = readFileSync(doc, 'utf8');
  const start = `<!-- bench:goals:${cpu.slug}:start -->`;
  const end = `<!-- bench:goals:${cpu.slug}:end -->`;
  const at = text.indexOf(start);
  let lines: string[] = [];
  let before: string;
  let after: string;
  if (at >= 0) {
    const stop = text.indexOf(end, at);
    if (stop < 0) throw new Error(`${doc}: ${start} has no ${end}`);
    lines = text
      .slice(at + start.length, stop)
      .split('\n')
      .filter((l) => l.startsWith('|') && !HEADER.includes(l));
    before = text.slice(0, at);
    after = text.slice(stop + end.length);
  } else {
    const first = text.search(/<!-- bench:(?!goals:)[a-z0-9-]+:[a-z0-9-]+:start -->/);
    const pos = first >= 0 ? first : text.length;
    before = `${text.slice(0, pos).trimEnd()}\n\n`;
    after = `\n\n${text.slice(pos)}`;
  }
  for (const row of rows) {
    const line = renderRow(row, date);
    const i = lines.findIndex((l) => rowKey(l) === row.row);
    if (i >= 0) lines[i] = line;
    else lines.push(line);
  }
  const block = [
    start,
    `### Goals on ${cpu.family} (${cpu.label})`,
    '',
    `Each row is rewritten by the benchmark that measures it (\`pnpm bench\`); a figure taken while other processes kept more than ${QUIET_CORES} cores busy is marked "not kept".`,
    '',
    ...HEADER,
    ...lines,
    end,
  ].join('\n');
  writeFileSync(doc, before + block + after);
}
