/**
 * The Markdown report: verdicts first (with the rule's description, printed from its
 * parameters: stats/verdict.ts VERDICT_RULE), then the paper-shape grid (mean and interval over
 * seeds; one column per (benchmark, measure) the registry reports, report-registry.ts; the
 * paper's numbers beside), the paired differences that decide the verdicts, the main measure per
 * lever, synthesis and mix counts, stage wall times, and the result files behind every number.
 * No benchmark is named here: labels come from the registry.
 */
import { formatDuration } from '@dv/core';
import type { writeMixes } from '@dv/synth';
import type { Interval } from '../stats/t-interval.js';
import { levelText, VERDICT_RULE, type VerdictRule } from '../stats/verdict.js';
import { type Comparison, columnValue, type TableRow } from './aggregate.js';
import { mixLabel, type ReportData } from './build-report.js';
import type { ModelResults } from './collect-results.js';
import type { Column } from './report-registry.js';

/** The paper's FollowIR numbers per mix (PAPER.md; gte-multilingual-mlm-base). */
export const PAPER_TABLE: Record<string, { pMrr: number; score: number } | undefined> = {
  'ins-orig': { pMrr: 5.21, score: 21.33 },
  'ins-dv': { pMrr: 7.57, score: 19.73 },
  'all-orig': { pMrr: 5.27, score: 20.85 },
  'all-dv': { pMrr: 8.3, score: 21.38 },
};
/** The paper's numbers for its second backbone (bge-m3-retromae): All-DV only. */
export const PAPER_SECOND_BACKBONE: Record<string, { pMrr: number; score: number } | undefined> = {
  'all-dv': { pMrr: 13.92, score: 20.99 },
};
/** InfoSearch p-MRR the paper reports (All-orig / All-DV, per dimension). */
export const PAPER_INFOSEARCH = {
  length: { 'all-orig': -23.22, 'all-dv': 31.91 },
  keyword: { 'all-orig': -49.65, 'all-dv': 12.13 },
};

export function fmtCi(i: Interval | undefined): string {
  if (!i || !Number.isFinite(i.mean)) return '-';
  if (!Number.isFinite(i.lo)) return `${i.mean.toFixed(2)} (n=${i.n})`;
  return `${i.mean.toFixed(2)} ± ${((i.hi - i.lo) / 2).toFixed(2)}`;
}
export const fmtRange = (i: Interval | undefined) =>
  !i || !Number.isFinite(i.lo) ? '-' : `[${i.lo.toFixed(2)}, ${i.hi.toFixed(2)}]`;
const pct = (x: number | undefined, scale = 100) =>
  x === undefined || !Number.isFinite(x) ? '-' : (scale * x).toFixed(2);

const table = (head: string[], rows: string[][]) =>
  [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');

/** A baseline's row: one value per column, then the paper's numbers where the paper gives them. */
function baselineRow(m: ModelResults, columns: readonly Column[], paper: boolean): string[] {
  const bm25 = m.model.id === 'bm25';
  return [
    bm25 ? 'BM25' : m.model.kind === 'lexical' ? 'BM25 + lexical rule (no model)' : `${m.model.id}`,
    ...columns.map((c) => pct(columnValue(m, c), c.scale)),
    '1',
    !paper && bm25 ? '-2.1 (FollowIR avg)' : '-',
    !paper && bm25 ? '13.2' : '-',
  ];
}

/** A mix's row: mean and interval over seeds per column, the paper's numbers for this backbone. */
function mixRow(r: TableRow, columns: readonly Column[], second: boolean): string[] {
  const p = (second ? PAPER_SECOND_BACKBONE : PAPER_TABLE)[r.mix];
  return [
    `${mixLabel(r.mix)}`,
    ...columns.map((c) => fmtCi(r.values[c.key])),
    String(r.seeds.length),
    p ? p.pMrr.toFixed(2) : '-',
    p ? p.score.toFixed(2) : '-',
  ];
}

/**
 * What the grid's columns average, from the registry: a benchmark of several tasks is the plain
 * mean over them (FollowIR's average), each scored with its task's Score measure where it has one.
 */
function meansNote(d: ReportData): string {
  const parts: string[] = [];
  for (const o of d.outputs) {
    const b = d.registry.benchmarks[o.benchmark];
    if (!b || o.split || b.tasks.length < 2) continue;
    const labels = d.columns.filter((c) => c.benchmark === o.benchmark && !c.split).map((c) => c.label);
    if (!labels.length) continue;
    const tasks = b.tasks.map((t) => d.registry.tasks[t]);
    const score = tasks.every((t) => t?.scoreMeasure)
      ? ` (Score: ${tasks.map((t) => t!.scoreMeasure).join(', ')})`
      : '';
    parts.push(
      `${labels.join(' and ')} ${labels.length > 1 ? 'are the plain means' : 'is the plain mean'} over ${b.tasks.join(', ')}${score}`,
    );
  }
  return parts.join('; ');
}

/**
 * The verdict rule in words, from its parameters (stats/verdict.ts). `perSeedBackbone`: each seed
 * fine-tunes its own MLM backbone (mini `pretrain.perSeed`), so the seed interval holds the
 * pretraining variance too.
 */
export function verdictRuleText(rule: VerdictRule = VERDICT_RULE, perSeedBackbone = false): string {
  const level = levelText(rule.level);
  const seedVariance = perSeedBackbone
    ? 'how the difference varies with the fine-tuning seed and the MLM backbone: each seed fine-tunes its own backbone, pretrained with that seed'
    : 'how the difference varies with the fine-tuning seed';
  return `Each verdict is computed (stats/verdict.ts) from two ${level} t intervals of the difference (x100): over topics (the seed-averaged per-topic difference; topic variance) and over seeds (paired by seed: the t interval of the per-seed differences, n - 1 df, since the arms of one seed share its ${perSeedBackbone ? 'MLM backbone and ' : ''}fine-tuning seed; Welch over the per-seed means where two arms ran different seeds; ${seedVariance}). Sign check: reproduced when both lie on the claimed side of 0, not reproduced when both lie on the other side, inconclusive otherwise or with fewer than ${rule.minSeeds} seeds per arm. Where the paper states a size ("a little"), a magnitude check follows (stats/magnitude.ts): the relative change must lie within the stated band of the paper's own relative change; a sign that holds with a size past the band is not reproduced. "Seeds needed" is how many seeds per arm the observed variance of the per-seed differences needs for the seed interval to exclude 0 (stats/seeds-needed.ts).`;
}

const LEVEL = levelText(VERDICT_RULE.level);

/** Paired comparisons as a table: the difference, its intervals over topics and over seeds. */
function comparisonTable(cs: readonly Comparison[], names: Record<string, string>): string {
  return table(
    [
      'backbone',
      'difference',
      'metric',
      'mean',
      `${LEVEL} CI over topics`,
      'topics',
      `${LEVEL} CI over seeds`,
      'seeds',
      'over seeds, unpaired (Welch)',
    ],
    cs.map((c) => [
      c.backbone,
      `${mixLabel(c.a)} − ${mixLabel(c.b)}`,
      names[`${c.benchmark}/${c.measure}`] ?? c.measure,
      c.perTopic.mean.toFixed(2),
      fmtRange(c.perTopic),
      String(c.perTopic.n),
      `${fmtRange(c.overSeeds)}${c.seedPairing === 'paired' ? '' : ' (Welch)'}`,
      String(c.seeds),
      fmtRange(c.overSeedsUnpaired),
    ]),
  );
}

/** The seeds-per-arm statement of a comparison (stats/seeds-needed.ts). */
function seedsNeededText(c: Comparison | null): string {
  if (!c) return '-';
  if (!Number.isFinite(c.seedSd)) return 'unknown (the spread needs >= 2 seeds per arm)';
  return c.seedsNeeded === null ? '> 200 (the difference is ~0 at this spread)' : String(c.seedsNeeded);
}

export function renderMarkdown(d: ReportData, extras: { command: string; wallSeconds?: number }): string {
  const paper = d.profile === 'paper';
  const L: string[] = [];
  L.push(`# Reproduction report: dual-view training (${d.profile} profile, ${d.variant})`, '');
  L.push(
    `Command: \`${extras.command}\`  `,
    `Machine: ${d.machine.cpu}, ${d.machine.cores} cores, Node ${d.machine.node} (${d.machine.platform})  `,
    `Git: ${d.git.commit ?? 'unknown'}${d.git.dirty ? ' (dirty)' : ''}  `,
    `Stage wall time (sum over stages): ${formatDuration(d.stageSeconds)}${extras.wallSeconds !== undefined ? `; this invocation: ${formatDuration(extras.wallSeconds)}` : ''}  `,
    `Seeds: ${d.config.seeds.join(', ')}; backbones: ${d.config.backbones.join(', ')}; budget ${d.config.mixes.budget} examples per mix`,
    '',
  );
  if (d.standIns.length)
    L.push(
      `> **STAND-IN STAGES — these numbers are not results.** ${d.standIns.length} stage(s) ran as stand-ins: ${[...new Set(d.standIns.map((s) => s.note))].join('; ')} (${d.standIns.map((s) => s.id).join(', ')}).`,
      '',
    );
  L.push('## Findings', '');
  L.push(verdictRuleText(VERDICT_RULE, d.config.profile === 'mini' && d.config.pretrain.perSeed), '');
  for (const f of d.findings) {
    L.push(`- **${f.verdict.toUpperCase()}** — ${f.finding.statement}.`);
    for (const c of f.claims) {
      const diff = c.comparison ? c.comparison.perTopic.mean.toFixed(2) : '-';
      L.push(
        `  - ${c.backbone ?? 'second backbone'}: ${mixLabel(c.claim.a)} − ${mixLabel(c.claim.b)} ${d.names[`${c.claim.benchmark}/${c.claim.measure}`] ?? c.claim.measure} ${c.claim.direction === 'up' ? '> 0' : '< 0'}: ours ${diff} → ${c.verdict} (${c.reason}); paper ${c.claim.paper.value === null ? 'n/a' : (c.claim.paper.value > 0 ? '+' : '') + c.claim.paper.value.toFixed(2)} (${c.claim.paper.note})`,
        `    - sign: ${c.sign.verdict}; magnitude: ${c.magnitude ? `${c.magnitude.result} (band ${c.magnitude.band.map((x) => `${x.toFixed(1)}%`).join(' to ')})` : 'no size claimed'}; seeds needed at this variance: ${seedsNeededText(c.comparison)}`,
      );
    }
  }
  L.push('');
  const head = ['setting', ...d.columns.map((c) => c.label), 'seeds', 'paper p-MRR', 'paper Score'];
  for (const [bi, backbone] of d.config.backbones.entries()) {
    L.push(`## ${backbone}: mean ± ${LEVEL} CI over seeds (x100)`, '');
    const rows = d.rows
      .filter((r) => r.backbone === backbone)
      .map((r) => mixRow(r, d.columns, paper && bi > 0));
    const base = d.baselines
      .filter(
        (b) =>
          b.model.kind === 'bm25' ||
          b.model.kind === 'lexical' ||
          (b.model.kind === 'untrained' && b.model.backbone === backbone),
      )
      .map((b) => baselineRow(b, d.columns, paper));
    L.push(table(head, [...base, ...rows]), '');
    const means = meansNote(d);
    if (paper)
      L.push(
        bi === 0
          ? `${means ? `${means}; ` : ''}the paper columns are gte-multilingual-mlm-base's.`
          : 'For the second backbone the paper reports All-DV only (bge-m3-retromae: p-MRR 13.92, Score 20.99).',
        '',
      );
    else if (backbone !== d.config.backbones[0])
      L.push(
        "The paper columns are gte-multilingual-mlm-base's; for its second backbone the paper reports All-DV p-MRR 13.92 and Score 20.99.",
        '',
      );
  }
  L.push('## Paired differences (x100)', '');
  L.push(
    "Per topic: each mix's value averaged over its seeds, then the difference, with a t interval over topics. Over seeds: the t interval of the per-seed differences (arms paired by seed: each seed's fine-tuning seed, and with one MLM backbone per seed its backbone, is shared by every arm), the one the verdicts use beside the topics'; the unpaired Welch interval of the per-seed means is shown for reference (the report's seed interval before issue 26 asked for pairing).",
    '',
  );
  L.push(comparisonTable(d.comparisons, d.names), '');
  if (d.neutral && d.headline) {
    const main = d.headline.main;
    const of = (kind: string) => {
      const m = d.baselines.find((b) => b.model.kind === kind);
      return m ? columnValue(m, main) : undefined;
    };
    const rule = of('lexical');
    const bm25 = of('bm25');
    L.push('## Where word matching neither helps nor hurts', '');
    L.push(
      `A rule with no model of meaning (BM25's ranking of the original instruction, then documents holding a word the changed instruction adds demoted when the addition is negative, promoted otherwise; @dv/eval baselines/lexical-rule.ts) reaches ${main.label} ${pct(rule, main.scale)} against BM25's ${pct(bm25, main.scale)}. On the ${d.neutral.topics} of ${d.neutral.of} topics where the rule scores exactly as BM25 does, a model's ${main.name} owes nothing to those words; the headline differences on them:`,
      '',
    );
    L.push(comparisonTable(d.neutral.comparisons, d.names), '');
  }
  L.push(`## ${d.headline?.main.name ?? 'Main measure'} per lever (x100, mean over seeds)`, '');
  const mixes = [...new Set(d.levers.map((l) => l.mix))];
  for (const bench of [...new Set(d.levers.map((l) => l.benchmark))]) {
    const lev = [...new Set(d.levers.filter((l) => l.benchmark === bench).map((l) => l.lever))];
    L.push(`${bench}:`, '');
    L.push(
      table(
        ['lever', ...mixes],
        lev.map((lv) => [
          lv,
          ...mixes.map(
            (m) =>
              d.levers.find((x) => x.benchmark === bench && x.lever === lv && x.mix === m)?.pMrr.toFixed(2) ??
              '-',
          ),
        ]),
      ),
      '',
    );
  }
  L.push(
    `Paper (InfoSearch, All-orig → All-DV): length ${PAPER_INFOSEARCH.length['all-orig']} → ${PAPER_INFOSEARCH.length['all-dv']}; keyword ${PAPER_INFOSEARCH.keyword['all-orig']} → ${PAPER_INFOSEARCH.keyword['all-dv']}.`,
    '',
  );
  L.push('## Data', '');
  const w = d.world as {
    documents?: number;
    lemmas?: Record<string, number>;
    seedsTrain?: number;
    seedsDev?: number;
    general?: number;
    followirTopics?: number;
  };
  const seeds = d.world as { repo?: string; commit?: string; seedsTrain?: number; general?: number };
  if (paper)
    L.push(
      `Seed data: ${seeds.repo ?? '?'}@${seeds.commit ?? '?'}; ${seeds.seedsTrain ?? '?'} instruction seeds, ${seeds.general ?? '?'} general examples.`,
      '',
    );
  else
    L.push(
      `Mini world: ${w.documents ?? '?'} entries; lemmas ${Object.entries(w.lemmas ?? {})
        .filter(([, v]) => typeof v === 'number')
        .map(([k, v]) => `${k} ${v}`)
        .join(
          ', ',
        )}; seeds train ${w.seedsTrain ?? '?'}, dev ${w.seedsDev ?? '?'}; general ${w.general ?? '?'}; FollowIR-form topics ${w.followirTopics ?? '?'}.`,
      '',
    );
  type SynthSplit = {
    seeds: number;
    accepted: number;
    none: number;
    rejected: number;
    failed: number;
    acceptanceRate: number;
    byLever: Record<string, number>;
  };
  const synth = d.synth as Record<string, SynthSplit>;
  L.push(
    paper
      ? `Synthesis (${d.config.synthesis.model} through the OpenAI-compatible endpoint, ${d.config.synthesis.judge ?? 'lexical'} judge):`
      : 'Synthesis (offline reverser, lexical judge):',
    '',
  );
  L.push(
    table(
      ['seeds of', 'seeds', 'accepted', 'none', 'rejected', 'failed', 'acceptance', 'accepted by lever'],
      Object.entries(synth).map(([split, x]) => [
        split,
        String(x.seeds),
        String(x.accepted),
        String(x.none),
        String(x.rejected),
        String(x.failed),
        `${(100 * x.acceptanceRate).toFixed(1)}%`,
        Object.entries(x.byLever ?? {})
          .map(([k, v]) => `${k} ${v}`)
          .join(', '),
      ]),
    ),
    '',
  );
  type MixComposition = Awaited<ReturnType<typeof writeMixes>>[string]['composition'];
  type MixRow = Record<'total' | 'original' | 'complement' | 'general' | 'pairs', number> & {
    composition?: MixComposition;
  };
  const counts = ((d.mixes as { counts?: Record<string, MixRow> }).counts ?? {}) as Record<string, MixRow>;
  const per = (x: number | null | undefined) => (x == null ? '-' : x.toFixed(2));
  L.push(
    'Matched-budget mixes (queries: distinct query texts, the topics a model sees; views: distinct query + instruction pairs; documents: distinct labelled docids; negatives: labelled negatives per example, original / complement view):',
    '',
  );
  L.push(
    table(
      [
        'mix',
        'total',
        'original',
        'complement',
        'general',
        'pairs',
        'queries',
        'repeated',
        'views',
        'documents',
        'negatives',
      ],
      Object.entries(counts).map(([k, c]) => {
        const m = c.composition;
        return [
          k,
          String(c.total),
          String(c.original),
          String(c.complement),
          String(c.general),
          String(c.pairs),
          m ? String(m.queries) : '-',
          m ? String(m.repeatedQueries) : '-',
          m ? String(m.views) : '-',
          m ? String(m.documents) : '-',
          m ? `${per(m.negativesPerExample.original)} / ${per(m.negativesPerExample.complement)}` : '-',
        ];
      }),
    ),
    '',
  );
  L.push('## Stages: wall time and what made them', '');
  L.push(
    "Each stage is keyed by its config slice, its inputs' digests and the code digests of the packages that compute it (`stage.json`; `pnpm reproduce --explain` compares them with the code now). Code digests and keys are shortened to 12 hex digits here; `results.json` holds them whole.",
    '',
  );
  const short = (h: string) => h.slice(0, 12);
  L.push(
    table(
      ['stage', 'seconds', 'finished', 'key', 'code digests', 'commit'],
      d.stages.map((s) => [
        s.id,
        s.seconds.toFixed(1),
        s.finishedAt,
        short(s.key),
        Object.entries(s.code)
          .map(([label, h]) => `${label.replace(/:.*/, '')} ${short(h)}`)
          .join(', ') || '-',
        s.commit ? `${short(s.commit)}${s.dirty ? ' (dirty)' : ''}` : 'unknown',
      ]),
    ),
    '',
  );
  L.push('## Sources', '');
  L.push(
    'Every number above comes from these files in the run folder (each folder also holds `manifest.json`; each stage folder `stage.json` with its key and output digests); `results.json` next to this report holds the same numbers.',
    '',
  );
  for (const m of d.models) L.push(`- ${m.model.id}: ${m.sources.map((s) => `\`${s}\``).join(', ')}`);
  L.push('');
  return `${L.join('\n')}\n`;
}
