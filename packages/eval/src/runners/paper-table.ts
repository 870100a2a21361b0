/**
 * Tables the way the papers print them: scores x100, one row per dataset and an average row.
 * FollowIR: Score and p-MRR with one decimal (Weller et al. 2024, Table 2); InfoSearch:
 * nDCG@10 per mode, p-MRR, SICR, WISE with two decimals; MAIR: nDCG@10 with two decimals.
 */
import type { BenchmarkProfileName } from './benchmark-profiles.js';
import type { BenchmarkSummary } from './run-benchmark.js';

interface Column {
  key: string;
  label: string;
}

export const paperTableColumns = Object.freeze({
  followir: {
    decimals: 1,
    columns: [
      { key: 'score', label: 'Score' },
      { key: 'p-MRR', label: 'p-MRR' },
    ],
  },
  infosearch: {
    decimals: 2,
    columns: [
      { key: 'og_ndcg_cut_10', label: 'nDCG@10 ori' },
      { key: 'changed_ndcg_cut_10', label: 'nDCG@10 ins' },
      { key: 'reversed_ndcg_cut_10', label: 'nDCG@10 rev' },
      { key: 'p-MRR', label: 'p-MRR' },
      { key: 'SICR', label: 'SICR' },
      { key: 'WISE', label: 'WISE' },
    ],
  },
  mair: { decimals: 2, columns: [{ key: 'ndcg_cut_10', label: 'nDCG@10' }] },
} as const satisfies Record<BenchmarkProfileName, { decimals: number; columns: readonly Column[] }>);

export function paperTable(summary: BenchmarkSummary, profile: BenchmarkProfileName): string {
  const { decimals, columns } = paperTableColumns[profile];
  const fmt = (v: number | undefined) =>
    v === undefined || Number.isNaN(v) ? '-' : (v * 100).toFixed(decimals);
  const rows: string[][] = [['dataset', ...columns.map((c) => c.label)]];
  for (const r of summary.results) rows.push([r.dataset, ...columns.map((c) => fmt(r.scores[c.key]))]);
  if (summary.results.length > 1) rows.push(['average', ...columns.map((c) => fmt(summary.average[c.key]))]);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [
    `${summary.benchmark} / ${summary.model} (x100)`,
    line(rows[0]!),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...rows.slice(1).map(line),
  ].join('\n');
}
