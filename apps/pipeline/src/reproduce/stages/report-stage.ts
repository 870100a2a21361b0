/**
 * Stage `report`: reads every other stage's outputs and writes report.md, report.html (self-
 * contained, inline SVG plots), results.json (every number of the report with the files it came
 * from) and the plots as SVG files.
 */
import { join } from 'node:path';
import { type RunConfig, writeFileAtomic, writeJsonAtomic } from '@dv/core';
import { columnValue } from '../report/aggregate.js';
import { buildReport } from '../report/build-report.js';
import { findingsJson } from '../report/findings.js';
import { perLeverSpec, pMrrVsScoreSpec, renderSvg, trainingCurvesSpec } from '../report/plots.js';
import { renderHtml } from '../report/render-html.js';
import { renderMarkdown } from '../report/render-markdown.js';
import { reproduceCommandOf } from '../reproduce-config.js';
import { stageDir } from '../run-dag.js';
import type { StageSpec } from '../stage.js';
import { stageFileCode } from '../stage-code.js';
import type { ModelRef } from './eval-stage.js';

export const REPORT_FILES = {
  markdown: 'report.md',
  html: 'report.html',
  results: 'results.json',
} as const;

export function reportStage(
  config: RunConfig,
  models: readonly ModelRef[],
  stages: readonly StageSpec[],
): StageSpec {
  return {
    id: 'report',
    group: 'report',
    deps: stages.map((s) => s.id),
    code: [{ package: '@dv/eval' }, stageFileCode('report-stage.ts')],
    config: { variant: config.variant, seeds: config.seeds, backbones: config.backbones },
    estimateSeconds: 5,
    async run(ctx) {
      const records = new Map(stages.map((s) => [s.id, ctx.dep(s.id)]));
      const data = await buildReport({
        runDir: ctx.runDir,
        config,
        models,
        records,
        stageDirOf: (id) => stageDir(ctx.runDir, id),
      });
      const md = renderMarkdown(data, { command: reproduceCommandOf(config) });
      const plots = [
        {
          title: 'p-MRR vs Score',
          file: 'p-mrr-vs-score.svg',
          svg: await renderSvg(pMrrVsScoreSpec(data.scorePoints)),
        },
        {
          title: 'Training curves',
          file: 'training-curves.svg',
          svg: await renderSvg(trainingCurvesSpec(data.curves)),
        },
        {
          title: 'p-MRR per lever',
          file: 'per-lever-p-mrr.svg',
          svg: await renderSvg(perLeverSpec(data.levers)),
        },
      ];
      const outputs: string[] = [];
      const w = async (name: string, text: string) => {
        const p = join(ctx.dir, name);
        await writeFileAtomic(p, text);
        outputs.push(p);
      };
      await w(REPORT_FILES.markdown, md);
      await w(
        REPORT_FILES.html,
        renderHtml({
          title: `Reproduction report (${config.profile}, ${config.variant})`,
          markdown: md,
          plots,
          samples: data.samples,
        }),
      );
      for (const p of plots) await w(join('plots', p.file), p.svg);
      const results = join(ctx.dir, REPORT_FILES.results);
      await writeJsonAtomic(results, {
        profile: data.profile,
        variant: data.variant,
        machine: data.machine,
        git: data.git,
        standIns: data.standIns,
        stageSeconds: data.stageSeconds,
        stages: data.stages,
        findings: findingsJson(data.findings),
        columns: data.columns.map(({ key, benchmark, measure, split, label, scale }) => ({
          key,
          benchmark,
          measure,
          split: split ?? null,
          label,
          scale,
        })),
        table: data.rows,
        comparisons: data.comparisons,
        neutralTopics: data.neutral,
        models: data.models.map((m) => ({
          id: m.model.id,
          // the stages whose keys (in `stages`) made this model's numbers
          madeBy: [...('stage' in m.model ? [m.model.stage] : []), `eval/${m.model.id}`],
          // the grid's values (fractions) by column key, and the records behind them (per-topic
          // values left out: they are in the result files named by `source`)
          values: Object.fromEntries(
            data.columns.flatMap((c) => {
              const v = columnValue(m, c);
              return v === undefined ? [] : [[c.key, v]];
            }),
          ),
          records: m.records.map(({ perTopic: _, ...r }) => r),
          sources: m.sources,
        })),
        levers: data.levers,
      });
      outputs.push(results);
      ctx.log(`wrote ${join(ctx.dir, REPORT_FILES.markdown)} and ${REPORT_FILES.html}`);
      return {
        outputs,
        summary: { verdicts: Object.fromEntries(data.findings.map((f) => [f.finding.id, f.verdict])) },
      };
    },
  };
}
