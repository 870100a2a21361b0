/**
 * The report's plots as Vega-Lite specs rendered to SVG on the server (vega / vega-lite 6.4.0,
 * the last versions that run on Node 20), so the HTML page needs no network or script to show
 * them. Rendering is deterministic for the same data.
 */
import * as vega from 'vega';
import * as vl from 'vega-lite';

type Spec = vl.TopLevelSpec;

export async function renderSvg(spec: Spec): Promise<string> {
  const compiled = vl.compile(spec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

const base = { $schema: 'https://vega.github.io/schema/vega-lite/v6.json', background: 'white' } as const;

export interface ScorePoint {
  model: string;
  group: string;
  backbone: string;
  pMrr: number;
  score: number;
}

export function pMrrVsScoreSpec(points: readonly ScorePoint[]): Spec {
  return {
    ...base,
    title: 'FollowIR-form: p-MRR vs Score per mix (one point per model)',
    width: 460,
    height: 300,
    data: { values: points as unknown as Record<string, unknown>[] },
    mark: { type: 'point', filled: true, size: 70, opacity: 0.85 },
    encoding: {
      x: { field: 'score', type: 'quantitative', title: 'Score (nDCG@5 x100)', scale: { zero: false } },
      y: { field: 'pMrr', type: 'quantitative', title: 'p-MRR (x100)', scale: { zero: false } },
      color: { field: 'group', type: 'nominal', title: 'mix' },
      shape: { field: 'backbone', type: 'nominal', title: 'backbone' },
      tooltip: [{ field: 'model' }, { field: 'pMrr', format: '.2f' }, { field: 'score', format: '.2f' }],
    },
  };
}

export interface CurvePoint {
  run: string;
  mix: string;
  step: number;
  loss: number;
}

export function trainingCurvesSpec(points: readonly CurvePoint[]): Spec {
  return {
    ...base,
    title: 'Training loss (metrics.jsonl of each fine-tuning run)',
    width: 460,
    height: 260,
    data: { values: points as unknown as Record<string, unknown>[] },
    mark: { type: 'line', opacity: 0.8 },
    encoding: {
      x: { field: 'step', type: 'quantitative', title: 'step' },
      y: { field: 'loss', type: 'quantitative', title: 'InfoNCE loss', scale: { zero: false } },
      color: { field: 'mix', type: 'nominal', title: 'mix' },
      detail: { field: 'run', type: 'nominal' },
    },
  };
}

export interface LeverPoint {
  benchmark: string;
  lever: string;
  mix: string;
  pMrr: number;
}

export function perLeverSpec(points: readonly LeverPoint[]): Spec {
  return {
    ...base,
    title: 'p-MRR per lever (mean over seeds)',
    data: { values: points as unknown as Record<string, unknown>[] },
    mark: 'bar',
    encoding: {
      row: { field: 'benchmark', type: 'nominal', title: null },
      x: { field: 'lever', type: 'nominal', title: 'lever', axis: { labelAngle: -30 } },
      xOffset: { field: 'mix', type: 'nominal' },
      y: { field: 'pMrr', type: 'quantitative', title: 'p-MRR (x100)' },
      color: { field: 'mix', type: 'nominal', title: 'mix' },
      tooltip: [{ field: 'lever' }, { field: 'mix' }, { field: 'pMrr', format: '.2f' }],
    },
    width: { step: 14 },
    height: 180,
    resolve: { scale: { x: 'independent' } },
  } as Spec;
}
