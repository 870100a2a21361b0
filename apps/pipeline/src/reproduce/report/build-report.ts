/**
 * Assembles everything the report shows from the run folder: per-model result records, the
 * paper-shape grid (columns from the registry: report-registry.ts), paired comparisons on the
 * (benchmark, measure) pairs the findings name, verdicts, the main measure per lever, training
 * curves, a sample of synthesized pairs and the stage wall times. Pure reading: every value
 * comes from a stage's files. The registry, the eval folders and the findings are arguments
 * (defaults: REPORT_REGISTRY, the profile's eval stage outputs, FINDINGS).
 */
import { existsSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, relative } from 'node:path';
import type { RunConfig } from '@dv/core';
import { gitState, readJsonlAll, SeedExample, SynthesisRecord } from '@dv/core';
import { loadMiniWorld, MINI_FILES } from '@dv/data';
import { paperBenchmarks } from '../internal/paper-hub.js';
import type { StageRecord } from '../stage.js';
import { MINI_EVAL_OUTPUTS, type ModelRef } from '../stages/eval-stage.js';
import { ALL_MIXES, type MixName } from '../stages/mixes-stage.js';
import { hubEvalOutputs } from '../stages/paper/hub-eval-stage.js';
import { SYNTH_DIRS } from '../stages/synth-stage.js';
import {
  type Comparison,
  columnValue,
  compare,
  type MeasureRef,
  perTopicOf,
  seedAveragedPerTopic,
  type TableRow,
  tableRows,
} from './aggregate.js';
import { collectModelResults, type ModelResults } from './collect-results.js';
import { evaluateFindings, FINDINGS, type Finding, type FindingResult } from './findings.js';
import type { CurvePoint, LeverPoint, ScorePoint } from './plots.js';
import {
  type Column,
  mainMeasure,
  measureName,
  REPORT_REGISTRY,
  type ReportRegistry,
  reportColumns,
  resolveBenchmark,
} from './report-registry.js';
import type { EvalOutput } from './result-record.js';

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
  registry: ReportRegistry;
  /** The eval folders read, in column order. */
  outputs: readonly EvalOutput[];
  /** The grid's columns: the registry's reported (benchmark, measure) pairs of the run's benchmarks. */
  columns: Column[];
  /**
   * The benchmark the first finding is about (as resolved in this run), its main-measure column
   * and its second column: the neutral-topics section, the breakdown by lever and the scatter plot.
   */
  headline: { benchmark: string; main: Column; second: Column | null } | null;
  /** Prose name of a measure ("p-MRR"), keyed `<benchmark>/<measure>` (findings' and run benchmarks). */
  names: Record<string, string>;
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

/** The eval stage folders of a profile (the mini benchmarks, or the configured Hub benchmarks). */
export function profileEvalOutputs(config: Pick<RunConfig, 'profile' | 'eval'>): readonly EvalOutput[] {
  return config.profile === 'paper' ? hubEvalOutputs(paperBenchmarks(config)) : MINI_EVAL_OUTPUTS;
}

export async function buildReport(input: {
  runDir: string;
  config: RunConfig;
  models: readonly ModelRef[];
  records: ReadonlyMap<string, StageRecord>;
  stageDirOf: (id: string) => string;
  /** Default REPORT_REGISTRY. */
  registry?: ReportRegistry;
  /** Default profileEvalOutputs(config). */
  outputs?: readonly EvalOutput[];
  /** Default FINDINGS. */
  findings?: readonly Finding[];
}): Promise<ReportData> {
  const { runDir, config, records } = input;
  const registry = input.registry ?? REPORT_REGISTRY;
  const outputs = input.outputs ?? profileEvalOutputs(config);
  const findingList = input.findings ?? FINDINGS;
  const models = input.models
    .filter((m) => records.has(`eval/${m.id}`))
    .map((m) => collectModelResults(runDir, input.stageDirOf(`eval/${m.id}`), m, outputs, registry));
  const columns = reportColumns(registry, outputs);
  const rows = tableRows(models, config.backbones, columns);
  const resolve = (name: string) => resolveBenchmark(registry, outputs, name);
  const names: Record<string, string> = {};
  for (const f of findingList)
    for (const c of f.claims)
      names[`${c.benchmark}/${c.measure}`] = measureName(registry, resolve(c.benchmark), c.measure);
  for (const c of columns) names[`${c.benchmark}/${c.measure}`] ??= c.name;
  // the benchmarks the findings are about, as this run evaluated them, and the columns of each
  // on its own sets: the paired differences run over every one
  const compared = [
    ...new Set(
      findingList
        .flatMap((f) => f.claims.map((c) => resolve(c.benchmark)))
        .filter((b): b is string => b !== null),
    ),
  ];
  const headlineName = compared[0] ?? null;
  const own = (b: string) => columns.filter((c) => c.benchmark === b && !c.split);
  const headline =
    headlineName === null
      ? null
      : (() => {
          const cs = own(headlineName);
          const main = cs.find((c) => c.measure === mainMeasure(registry, headlineName)) ?? cs[0];
          return main ? { benchmark: headlineName, main, second: cs.find((c) => c !== main) ?? null } : null;
        })();
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
  for (const bench of compared)
    for (const backbone of config.backbones)
      for (const [a, b] of pairs)
        for (const col of own(bench)) {
          const c = compare(models, backbone, a, b, col, undefined, col.scale);
          if (c) comparisons.push(c);
        }
  // Topics where word matching neither helps nor hurts (issue 26): the rule's per-topic main
  // measure (p-MRR) equals BM25's there, so a model's value on them owes nothing to the added words.
  const mainOf = (m: ModelResults | undefined) =>
    m && headline && m.records.some((r) => r.benchmark === headline.benchmark && !r.split)
      ? perTopicOf(m, headline.main)
      : undefined;
  const bm25 = mainOf(models.find((m) => m.model.kind === 'bm25'));
  const rule = mainOf(models.find((m) => m.model.kind === 'lexical'));
  let neutral: ReportData['neutral'] = null;
  if (bm25 && rule && headline) {
    const topics = new Set(
      Object.keys(bm25).filter((q) => q in rule && Math.abs(rule[q]! - bm25[q]!) < 1e-12),
    );
    const headlinePairs: [MixName, MixName][] = [
      ['ins-dv', 'ins-orig'],
      ['all-dv', 'all-orig'],
      ['ins-dv', 'ins-orig-tm'],
      ['all-dv', 'all-orig-tm'],
    ];
    const cs: Comparison[] = [];
    for (const backbone of config.backbones)
      for (const [a, b] of headlinePairs) {
        const c = compare(models, backbone, a, b, headline.main, topics, headline.main.scale);
        if (c) cs.push(c);
      }
    neutral = { topics: topics.size, of: Object.keys(bm25).length, comparisons: cs };
  }
  const findings = evaluateFindings(
    config.backbones,
    (backbone, a, b, m: MeasureRef) => {
      const bench = resolve(m.benchmark);
      return (
        comparisons.find(
          (c) =>
            c.backbone === backbone &&
            c.a === a &&
            c.b === b &&
            c.benchmark === bench &&
            c.measure === m.measure,
        ) ?? null
      );
    },
    { findings: findingList },
  );

  // The main measure per lever: the headline benchmark's topics grouped by the changed
  // instruction's lever (mini world), and per set every other benchmark with a breakdown whose
  // main measure is the headline's (InfoSearch per dimension).
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
      if (!headline) continue;
      const perTopic = leverOf ? seedAveragedPerTopic(rs, headline.main, headline.main.scale) : {};
      const byLever = new Map<string, number[]>();
      for (const [q, v] of Object.entries(perTopic)) {
        const l = leverOf?.get(q.slice(q.indexOf('/') + 1)) ?? 'unknown';
        byLever.set(l, [...(byLever.get(l) ?? []), v]);
      }
      const headlineLabel = registry.benchmarks[headline.benchmark]?.breakdown ?? headline.benchmark;
      for (const [lever, vs] of [...byLever.entries()].sort())
        levers.push({
          benchmark: headlineLabel,
          lever,
          mix: label,
          pMrr: vs.reduce((a, b) => a + b, 0) / vs.length,
        });
      for (const col of columns) {
        const breakdown = registry.benchmarks[col.benchmark]?.breakdown;
        if (col.benchmark === headline.benchmark || col.split || !breakdown) continue;
        if (col.measure !== headline.main.measure || col.measure !== mainMeasure(registry, col.benchmark))
          continue;
        // one value per set, named by the set's last part (InfoSearch-Audience -> audience)
        const bySet = new Map<string, number[]>();
        for (const r of rs)
          for (const x of r.records.filter((x) => x.benchmark === col.benchmark && !x.split)) {
            const l = x.set.replace(/^.*-/, '').toLowerCase();
            bySet.set(l, [...(bySet.get(l) ?? []), col.scale * (x.measures[col.measure] ?? Number.NaN)]);
          }
        for (const [lever, vs] of [...bySet.entries()].sort())
          levers.push({
            benchmark: breakdown,
            lever,
            mix: label,
            pMrr: vs.reduce((a, b) => a + b, 0) / vs.length,
          });
      }
    }

  const scorePoints: ScorePoint[] = models
    .filter((r) => headline?.second && columnValue(r, headline.main) !== undefined)
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
      pMrr: headline!.main.scale * columnValue(r, headline!.main)!,
      score: headline!.second!.scale * (columnValue(r, headline!.second!) ?? Number.NaN),
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
    registry,
    outputs,
    columns,
    headline,
    names,
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
