/**
 * Assembles everything the report shows from the run folder: per-model results, the paper-shape
 * table, paired comparisons, verdicts, per-lever p-MRR, training curves, a sample of synthesized
 * pairs and the stage wall times. Pure reading: every value comes from a stage's files.
 */
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, relative } from 'node:path';
import type { RunConfig } from '@dv/core';
import { gitState, readJsonlAll, SeedExample, SynthesisRecord } from '@dv/core';
import { loadMiniWorld, MINI_FILES } from '@dv/data';
import type { StageRecord } from '../stage.js';
import type { ModelRef } from '../stages/eval-stage.js';
import { ALL_MIXES, type MixName } from '../stages/mixes-stage.js';
import { SYNTH_DIRS } from '../stages/synth-stage.js';
import { type Comparison, compare, seedAveragedPerTopic, type TableRow, tableRows } from './aggregate.js';
import { collectModelResults, type ModelResults } from './collect-results.js';
import { evaluateFindings, type FindingResult } from './findings.js';
import type { CurvePoint, LeverPoint, ScorePoint } from './plots.js';

export interface PairSample {
  seedId: string;
  query: string;
  instruction: string;
  newInstruction: string | null;
  positive: string;
  negative: string;
  lever: string | null;
  status: string;
  reason: string | null;
  verification: number | null;
}

export interface ReportData {
  profile: string;
  variant: string;
  createdAt: string;
  machine: { cpu: string; cores: number; node: string; platform: string };
  git: { commit: string | null; dirty: boolean | null };
  config: RunConfig;
  standIns: { id: string; note: string }[];
  /** Each stage with what made it: its key, the code digests in it, the checkout it ran in. */
  stages: {
    id: string;
    group: string;
    seconds: number;
    finishedAt: string;
    key: string;
    code: Record<string, string>;
    commit: string | null;
    dirty: boolean | null;
  }[];
  stageSeconds: number;
  models: ModelResults[];
  rows: TableRow[];
  baselines: ModelResults[];
  comparisons: Comparison[];
  /**
   * The topics where the word-matching rule (BM25 + lexical rule) scores exactly as BM25 does on
   * p-MRR (it neither helps nor hurts), and the headline comparisons on those topics only.
   */
  neutral: { topics: number; of: number; comparisons: Comparison[] } | null;
  findings: FindingResult[];
  levers: LeverPoint[];
  scorePoints: ScorePoint[];
  curves: CurvePoint[];
  synth: Record<string, unknown>;
  mixes: Record<string, unknown>;
  world: Record<string, unknown>;
  samples: PairSample[];
}

const MIX_LABEL: Record<MixName, string> = {
  'ins-orig': 'Ins-orig',
  'ins-dv': 'Ins-DV',
  'all-orig': 'All-orig',
  'all-dv': 'All-DV',
  'ins-orig-tm': 'Ins-orig (topic-matched)',
  'all-orig-tm': 'All-orig (topic-matched)',
};
export const mixLabel = (m: MixName) => MIX_LABEL[m];

function readCurves(path: string, run: string, mix: string): CurvePoint[] {
  if (!existsSync(path)) return [];
  const out: CurvePoint[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    try {
      const r = JSON.parse(line) as { step?: unknown; loss?: unknown };
      if (typeof r.step === 'number' && typeof r.loss === 'number' && Number.isFinite(r.loss))
        out.push({ run, mix, step: r.step, loss: r.loss });
    } catch {
      // a torn last line of an interrupted run: ignore
    }
  }
  return out;
}

async function pairSamples(worldDir: string, synthDir: string, max: number): Promise<PairSample[]> {
  const recordsPath = join(synthDir, SYNTH_DIRS.train, 'records.jsonl');
  if (!existsSync(recordsPath)) return [];
  const records = await readJsonlAll(recordsPath, SynthesisRecord);
  const seeds = new Map(
    (await readJsonlAll(join(worldDir, MINI_FILES.seedsTrain), SeedExample)).map((s) => [s.id, s]),
  );
  const step = Math.max(1, Math.floor(records.length / max));
  const out: PairSample[] = [];
  for (let i = 0; i < records.length && out.length < max; i += step) {
    const r = records[i]!;
    const s = seeds.get(r.seedId);
    if (!s) continue;
    const neg = s.instructionNegatives.find((n) => n.docid === r.negativeDocid);
    out.push({
      seedId: r.seedId,
      query: s.query,
      instruction: s.instruction.text,
      newInstruction: r.newInstruction ?? null,
      positive: `${s.positives[0]!.title ?? ''}: ${s.positives[0]!.text}`,
      negative: neg ? `${neg.title ?? ''}: ${neg.text}` : r.negativeDocid,
      lever: r.lever ?? null,
      status: r.status,
      reason: r.reason ?? null,
      verification: r.verification?.score ?? null,
    });
  }
  return out;
}

export async function buildReport(input: {
  runDir: string;
  config: RunConfig;
  models: readonly ModelRef[];
  records: ReadonlyMap<string, StageRecord>;
  stageDirOf: (id: string) => string;
}): Promise<ReportData> {
  const { runDir, config, records } = input;
  const models = input.models
    .filter((m) => records.has(`eval/${m.id}`))
    .map((m) => collectModelResults(runDir, input.stageDirOf(`eval/${m.id}`), m, config.profile === 'paper'));
  const rows = tableRows(models, config.backbones);
  const comparisons: Comparison[] = [];
  const pairs: [MixName, MixName][] = [
    ['ins-dv', 'ins-orig'],
    ['all-dv', 'all-orig'],
    ['all-orig', 'ins-orig'],
    ['all-dv', 'ins-dv'],
    ['ins-dv', 'ins-orig-tm'],
    ['all-dv', 'all-orig-tm'],
    ['ins-orig-tm', 'ins-orig'],
  ];
  for (const backbone of config.backbones)
    for (const [a, b] of pairs)
      for (const metric of ['pMrr', 'score'] as const) {
        const c = compare(models, backbone, a, b, metric);
        if (c) comparisons.push(c);
      }
  // Topics where word matching neither helps nor hurts (issue 26): the rule's per-topic p-MRR
  // equals BM25's there, so a model's p-MRR on them owes nothing to the added words.
  const bm25 = models.find((m) => m.model.kind === 'bm25')?.followir?.perTopicPMrr;
  const rule = models.find((m) => m.model.kind === 'lexical')?.followir?.perTopicPMrr;
  let neutral: ReportData['neutral'] = null;
  if (bm25 && rule) {
    const topics = new Set(
      Object.keys(bm25).filter((q) => q in rule && Math.abs(rule[q]! - bm25[q]!) < 1e-12),
    );
    const headline: [MixName, MixName][] = [
      ['ins-dv', 'ins-orig'],
      ['all-dv', 'all-orig'],
      ['ins-dv', 'ins-orig-tm'],
      ['all-dv', 'all-orig-tm'],
    ];
    const cs: Comparison[] = [];
    for (const backbone of config.backbones)
      for (const [a, b] of headline) {
        const c = compare(models, backbone, a, b, 'pMrr', topics);
        if (c) cs.push(c);
      }
    neutral = { topics: topics.size, of: Object.keys(bm25).length, comparisons: cs };
  }
  const findings = evaluateFindings(
    config.backbones,
    (backbone, a, b, metric) =>
      comparisons.find((c) => c.backbone === backbone && c.a === a && c.b === b && c.metric === metric) ??
      null,
  );

  // Per-lever p-MRR: FollowIR-form topics grouped by the changed instruction's lever (mini world),
  // InfoSearch per set (per dimension on the Hub benchmark).
  const paper = config.profile === 'paper';
  const leverOf = paper
    ? null
    : new Map(
        (await (await loadMiniWorld(input.stageDirOf('world'))).loadFollowIR()).queries.map((q) => [
          q.id,
          String(q.metadata?.changedLever ?? 'unknown'),
        ]),
      );
  const levers: LeverPoint[] = [];
  for (const backbone of config.backbones)
    for (const mix of ALL_MIXES) {
      const rs = models.filter(
        (r) => r.model.kind === 'trained' && r.model.backbone === backbone && r.model.mix === mix,
      );
      if (rs.length === 0) continue;
      const label = `${config.backbones.length > 1 ? `${backbone} ` : ''}${mixLabel(mix)}`;
      const perTopic = leverOf ? seedAveragedPerTopic(rs, 'pMrr') : {};
      const byLever = new Map<string, number[]>();
      for (const [q, v] of Object.entries(perTopic)) {
        const l = leverOf?.get(q) ?? 'unknown';
        byLever.set(l, [...(byLever.get(l) ?? []), v]);
      }
      for (const [lever, vs] of [...byLever.entries()].sort())
        levers.push({
          benchmark: 'FollowIR-form (changed lever)',
          lever,
          mix: label,
          pMrr: vs.reduce((a, b) => a + b, 0) / vs.length,
        });
      const info = new Map<string, number[]>();
      for (const r of rs)
        for (const [l, v] of Object.entries(r.infosearch?.byLever ?? {}))
          info.set(l, [...(info.get(l) ?? []), 100 * v]);
      for (const [lever, vs] of [...info.entries()].sort())
        levers.push({
          benchmark: paper ? 'InfoSearch (dimension)' : 'InfoSearch-style',
          lever,
          mix: label,
          pMrr: vs.reduce((a, b) => a + b, 0) / vs.length,
        });
    }

  const scorePoints: ScorePoint[] = models
    .filter((r) => r.followir)
    .map((r) => ({
      model: r.model.id,
      group:
        r.model.kind === 'trained'
          ? mixLabel(r.model.mix)
          : r.model.kind === 'bm25'
            ? 'BM25'
            : r.model.kind === 'lexical'
              ? 'BM25 + lexical rule'
              : 'untrained',
      backbone: r.model.kind === 'bm25' || r.model.kind === 'lexical' ? r.model.id : r.model.backbone,
      pMrr: 100 * r.followir!.pMrr,
      score: 100 * r.followir!.score,
    }));
  const curves: CurvePoint[] = [];
  for (const m of input.models)
    if (m.kind === 'trained' && records.has(m.stage))
      curves.push(
        ...readCurves(
          join(input.stageDirOf(m.stage), 'metrics.jsonl'),
          m.id,
          `${config.backbones.length > 1 ? `${m.backbone} ` : ''}${mixLabel(m.mix)}`,
        ),
      );

  const stages = [...records.values()].map((r) => ({
    id: r.id,
    group: r.group,
    seconds: r.seconds,
    finishedAt: r.finishedAt,
    key: r.key,
    code: r.parts?.code ?? {},
    commit: r.provenance?.commit ?? null,
    dirty: r.provenance?.dirty ?? null,
  }));
  const cpu = cpus();
  return {
    profile: config.profile,
    variant: config.variant,
    createdAt: new Date().toISOString(),
    machine: {
      cpu: cpu[0]?.model ?? 'unknown',
      cores: cpu.length,
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
    },
    git: gitState(),
    config,
    standIns: [...records.values()].filter((r) => r.standIn).map((r) => ({ id: r.id, note: r.standIn! })),
    stages,
    stageSeconds: stages.reduce((a, s) => a + s.seconds, 0),
    models,
    rows,
    baselines: models.filter((r) => r.model.kind !== 'trained'),
    comparisons,
    neutral,
    findings,
    levers,
    scorePoints,
    curves,
    synth: records.get('synth')?.summary ?? {},
    mixes: records.get('mixes')?.summary ?? {},
    world: records.get(paper ? 'seeds' : 'world')?.summary ?? {},
    samples: await pairSamples(input.stageDirOf(paper ? 'seeds' : 'world'), input.stageDirOf('synth'), 120),
  };
}

export function relativeSources(runDir: string, data: ReportData): string[] {
  return data.models.flatMap((m) => m.sources).map((s) => relative(runDir, join(runDir, s)));
}
