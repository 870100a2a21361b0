/**
 * The report is built from the registry, not from code that knows benchmarks (issue 23): a task
 * registered only here (a fake benchmark with one measure and its label), with result files in
 * the eval stage's layout, gets its column, its values and a finding in the report's Markdown,
 * with no report code changed: the registry, the eval folders and the findings are arguments.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EvaluationResult } from '@dv/core';
import { describe, expect, it } from 'vitest';
import { resolveReproduceConfig } from '../reproduce-config.js';
import { StageRecord } from '../stage.js';
import type { ModelRef } from '../stages/eval-stage.js';
import type { MixName } from '../stages/mixes-stage.js';
import { buildReport } from './build-report.js';
import type { Finding } from './findings.js';
import { renderMarkdown, verdictRuleText } from './render-markdown.js';
import { REPORT_REGISTRY, type ReportRegistry } from './report-registry.js';

const registry: ReportRegistry = {
  benchmarks: {
    ...REPORT_REGISTRY.benchmarks,
    'fake-bench': {
      name: 'fake-bench',
      tasks: ['FakeTask'],
      reported: [{ measure: 'acc', name: 'accuracy', label: 'Fake accuracy' }],
    },
  },
  tasks: { ...REPORT_REGISTRY.tasks, FakeTask: { name: 'FakeTask', mainMeasure: 'acc' } },
};

const findings: Finding[] = [
  {
    id: 'fake-up',
    statement: 'Ins-DV is more accurate than Ins-orig on the fake task',
    claims: [
      {
        a: 'ins-dv',
        b: 'ins-orig',
        benchmark: 'fake-bench',
        measure: 'acc',
        direction: 'up',
        backbone: 'first',
        paper: { value: null, note: 'a test task' },
      },
    ],
  },
];

const record = (id: string): StageRecord =>
  StageRecord.parse({
    id,
    group: 'eval',
    key: 'k',
    slice: {},
    deps: {},
    outputDigest: 'd',
    outputs: [],
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:00:01.000Z',
    seconds: 1,
  });

/** One model's fake result folder: `fake/FakeTask.json` with four topics whose mean is `acc`. */
function writeResult(stageDir: string, model: string, acc: number, offsets: readonly number[]) {
  const dir = join(stageDir, 'fake');
  mkdirSync(dir, { recursive: true });
  const result: EvaluationResult = {
    benchmark: 'fake-bench',
    dataset: 'FakeTask',
    model,
    split: 'test',
    mainMetric: 'acc',
    mainScore: acc,
    scores: { acc },
    perQuery: Object.fromEntries(offsets.map((o, i) => [`t${i + 1}`, { acc: acc + o }])),
    numQueries: offsets.length,
  };
  writeFileSync(join(dir, 'FakeTask.json'), JSON.stringify(result));
  writeFileSync(join(dir, 'summary.json'), '{}');
}

describe('buildReport against a given registry', () => {
  it("shows a fake task's column, values and finding without report code knowing it", async () => {
    const runDir = mkdtempSync(join(tmpdir(), 'dv-report-registry-'));
    const stageDirOf = (id: string) => join(runDir, 'stages', id);
    const config = resolveReproduceConfig({ profile: 'paper' });
    const backbone = config.backbones[0]!;
    const models: ModelRef[] = [{ id: 'bm25', kind: 'bm25' }];
    writeResult(stageDirOf('eval/bm25'), 'bm25', 0.3, [0, 0, 0, 0]);
    const accs: Record<string, number[]> = { 'ins-orig': [0.5, 0.52, 0.51], 'ins-dv': [0.6, 0.62, 0.61] };
    for (const [mix, values] of Object.entries(accs))
      values.forEach((acc, k) => {
        const seed = config.seeds[k]!;
        const id = `${backbone}/${mix}/seed-${seed}`;
        models.push({
          id,
          kind: 'trained',
          backbone,
          mix: mix as MixName,
          seed,
          stage: `train/${id}`,
          exportDir: 'export',
        });
        writeResult(
          stageDirOf(`eval/${id}`),
          id,
          acc,
          mix === 'ins-dv' ? [-0.03, 0, 0.01, 0.02] : [-0.02, -0.01, 0.01, 0.02],
        );
      });
    const data = await buildReport({
      runDir,
      config,
      models,
      records: new Map(models.map((m) => [`eval/${m.id}`, record(`eval/${m.id}`)])),
      stageDirOf,
      registry,
      outputs: [{ benchmark: 'fake-bench', dir: 'fake' }],
      findings,
    });
    expect(data.columns.map((c) => c.key)).toEqual(['fake-bench/acc']);
    expect(data.models[0]!.records[0]).toMatchObject({
      benchmark: 'fake-bench',
      task: 'FakeTask',
      set: 'FakeTask',
      measures: { acc: 0.3 },
    });
    const md = renderMarkdown(data, { command: 'test' });
    expect(md).toContain('| setting | Fake accuracy | seeds | paper p-MRR | paper Score |');
    expect(md).toContain('| BM25 | 30.00 | 1 | - | - |');
    // 61 +- t(0.975, 2) * 1 / sqrt(3) = 2.48 over the three seeds
    expect(md).toContain('| Ins-DV | 61.00 ± 2.48 | 3 | 7.57 | 19.73 |');
    expect(md).toContain('| Ins-orig | 51.00 ± 2.48 | 3 | 5.21 | 21.33 |');
    expect(md).toMatch(/^- \*\*REPRODUCED\*\* — Ins-DV is more accurate than Ins-orig on the fake task\.$/m);
    expect(md).toContain(`  - ${backbone}: Ins-DV − Ins-orig accuracy > 0: ours 10.00 → reproduced`);
    expect(md).toMatch(new RegExp(`\\| ${backbone} \\| Ins-DV − Ins-orig \\| accuracy \\| 10\\.00 \\|`));
    expect(md).toContain('`stages/eval/bm25/fake/FakeTask.json`, `stages/eval/bm25/fake/manifest.json`');
  });

  it("prints the verdict rule's description from the rule's parameters", () => {
    expect(verdictRuleText()).toMatch(/two 95% t intervals .* fewer than 3 seeds per arm/);
    const other = verdictRuleText({ level: 0.9, minSeeds: 5, magnitudeFactor: 3 });
    expect(other).toMatch(/two 90% t intervals .* fewer than 5 seeds per arm/);
    expect(other).not.toMatch(/95%|than 3 seeds/);
    expect(verdictRuleText()).toContain('paired by seed: the t interval of the per-seed differences');
    expect(verdictRuleText()).toContain('varies with the fine-tuning seed)');
    expect(verdictRuleText(undefined, true)).toMatch(
      /share its MLM backbone and fine-tuning seed.*varies with the fine-tuning seed and the MLM backbone: each seed fine-tunes its own backbone/,
    );
  });
});
