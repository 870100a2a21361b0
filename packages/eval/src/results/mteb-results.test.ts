import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Bm25Ranker } from '../encoders/bm25.js';
import { runBenchmark } from '../runners/run-benchmark.js';
import { BENCHMARKS } from '../tasks/task-registry.js';
import { tinyFollowIrSet } from '../test-utils/test-sets.js';
import {
  mtebMetricName,
  mtebModelMeta,
  mtebPathSegment,
  mtebTaskResult,
  writeMtebResults,
} from './mteb-results.js';

/**
 * What mteb 1.x checks when it loads a result file, transcribed from
 * mteb/load_results/task_results.py: the pydantic fields of `TaskResult` (dataset_revision: str,
 * task_name: str, mteb_version: str | None, scores: dict[str, list[dict]], evaluation_time:
 * float | None, kg_co2_emissions: float | None), `_validate_scores_dict` (main_score present,
 * hf_subset a str, languages a list, JSON-serialisable), and `from_disk`'s version gates
 * (no version or < 1.11.0: historic conversion through mteb's task registry; < 1.12.48:
 * `get_task(task_name)`, which fails for tasks mteb does not know).
 */
function mtebLoads(data: Record<string, unknown>): string[] {
  const errors: string[] = [];
  const str = (k: string) => typeof data[k] === 'string' || errors.push(`${k} must be a str`);
  str('dataset_revision');
  str('task_name');
  if (!(data.mteb_version === null || typeof data.mteb_version === 'string'))
    errors.push('mteb_version must be str | None');
  const num = (k: string) =>
    data[k] === null ||
    data[k] === undefined ||
    typeof data[k] === 'number' ||
    errors.push(`${k} float | None`);
  num('evaluation_time');
  num('kg_co2_emissions');
  if (!('evaluation_time' in data)) errors.push('evaluation_time is required');
  const v = typeof data.mteb_version === 'string' ? data.mteb_version.split('.').map(Number) : [];
  const atLeast = (w: number[]) => {
    for (let i = 0; i < w.length; i++) if ((v[i] ?? 0) !== w[i]) return (v[i] ?? 0) > w[i]!;
    return true;
  };
  if (!atLeast([1, 11, 0])) errors.push('pre-1.11.0 file: mteb converts it via its own task registry');
  else if (!atLeast([1, 12, 48])) errors.push('pre-1.12.48 file: mteb looks the task up with get_task');
  const scores = data.scores as Record<string, unknown> | undefined;
  if (!scores || typeof scores !== 'object') errors.push('scores must be a dict');
  else
    for (const [split, entries] of Object.entries(scores)) {
      if (!Array.isArray(entries)) {
        errors.push(`scores.${split} must be a list`);
        continue;
      }
      for (const e of entries as Record<string, unknown>[]) {
        if (typeof e !== 'object' || e === null) errors.push('Scores should be a dictionary');
        else {
          if (!('main_score' in e)) errors.push("'main_score' should be in scores");
          if (typeof e.hf_subset !== 'string')
            errors.push('hf_subset should be in scores and should be a string');
          if (!Array.isArray(e.languages)) errors.push('languages should be in scores and should be a list');
        }
      }
    }
  return errors;
}

describe('mteb results layout', () => {
  it('metric names are mteb’s', () => {
    expect(mtebMetricName('ndcg_cut_5')).toBe('ndcg_at_5');
    expect(mtebMetricName('map_cut_1000')).toBe('map_at_1000');
    expect(mtebMetricName('recall_100')).toBe('recall_at_100');
    expect(mtebMetricName('P_10')).toBe('precision_at_10');
    expect(mtebMetricName('recip_rank_cut_10')).toBe('mrr_at_10');
    expect(mtebMetricName('p-MRR')).toBe('p-MRR');
  });

  it('our old file fails mteb’s checks; the new one passes them', () => {
    const old = {
      task_name: 't',
      dataset_revision: null,
      evaluation_time: 1,
      scores: { test: [{ hf_subset: 'default', main_score: 0.1 }] },
    };
    expect(mtebLoads(old)).toEqual(
      expect.arrayContaining([
        'dataset_revision must be a str',
        'languages should be in scores and should be a list',
      ]),
    );
    const r = mtebTaskResult({
      taskName: 'mini-followir',
      datasetRevision: 'abc123',
      evaluationTimeSeconds: 2.5,
      mainMetric: 'p-MRR',
      scores: { 'p-MRR': 0.07, og_ndcg_cut_5: 0.5, changed_map_cut_1000: 0.25, score: 0.5 },
    });
    expect(mtebLoads(r)).toEqual([]);
    expect(r.scores.test![0]).toEqual({
      'p-MRR': 0.07,
      og: { ndcg_at_5: 0.5 },
      changed: { map_at_1000: 0.25 },
      score: 0.5,
      main_score: 0.07,
      hf_subset: 'default',
      languages: ['eng-Latn'],
    });
  });

  it('runBenchmark writes results/<model>/<revision>/<task>.json and model_meta.json that mteb loads', async () => {
    const out = mkdtempSync(join(tmpdir(), 'dv-mteb-'));
    await runBenchmark([tinyFollowIrSet()], new Bm25Ranker(), {
      benchmark: BENCHMARKS['mini-followir'],
      outDir: out,
    });
    const dir = join(out, 'results', 'bm25', 'no_revision_available');
    expect(readdirSync(dir).sort()).toEqual(['mini-followir.json', 'model_meta.json']);
    const task = JSON.parse(readFileSync(join(dir, 'mini-followir.json'), 'utf8'));
    expect(mtebLoads(task)).toEqual([]);
    expect(task.dataset_revision).toEqual(expect.any(String));
    const entry = task.scores.test[0];
    expect(entry.main_score).toBe(entry['p-MRR']);
    expect(Object.keys(entry.og).sort()).toEqual(['map_at_1000', 'ndcg_at_5']);
    expect(Object.keys(entry.changed).sort()).toEqual(['map_at_1000', 'ndcg_at_5']);
    const meta = JSON.parse(readFileSync(join(dir, 'model_meta.json'), 'utf8'));
    expect(meta).toMatchObject({
      name: 'bm25',
      revision: 'no_revision_available',
      similarity_fn_name: 'cosine',
    });
  });

  it('a model name with slashes becomes mteb’s folder name; one that climbs out is refused', async () => {
    const root = mkdtempSync(join(tmpdir(), 'dv-mteb-'));
    const r = mtebTaskResult({
      taskName: 't',
      datasetRevision: 'r',
      evaluationTimeSeconds: 0,
      mainMetric: 'x',
      scores: { x: 1 },
    });
    const paths = await writeMtebResults(root, mtebModelMeta({ name: 'org/my model', revision: 'abc' }), [r]);
    expect(paths[0]).toBe(join(root, 'org__my_model', 'abc', 't.json'));
    await expect(writeMtebResults(root, mtebModelMeta({ name: 'm', revision: '..' }), [r])).rejects.toThrow(
      /cannot name a results folder/,
    );
    const bad = { ...r, task_name: '../../etc' };
    await expect(writeMtebResults(root, mtebModelMeta({ name: 'm', revision: 'r' }), [bad])).rejects.toThrow(
      /cannot name a results folder/,
    );
  });

  // issue 22: `onnx:/models/x` made the folder `onnx:__models__x`, which Windows cannot create
  // (`:` is reserved there), so results written on Linux could not be copied to a Windows machine.
  it('folder names hold no character that Windows, macOS or Linux refuses; the encoding reverses', async () => {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it checks
    const reserved = /[<>:"\\/|?*\u0000-\u001f]/;
    const names = [
      'onnx:/models/x',
      'tfjs:C:\\m\\final',
      'a|b?c*d"e<f>g',
      'tab\there',
      '50%',
      'CON',
      'nul.txt',
      'v1.',
    ];
    for (const name of names) {
      const s = mtebPathSegment(name);
      expect(s, name).not.toMatch(reserved);
      expect(s, name).not.toMatch(/[. ]$/);
      expect(s, name).not.toMatch(/^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i);
      // past mteb's own `/` -> `__` and space -> `_`, the name comes back exactly
      expect(decodeURIComponent(s), name).toBe(name.replace(/\//g, '__').replace(/ /g, '_'));
    }
    expect(mtebPathSegment('onnx:/models/x')).toBe('onnx%3A__models__x');
    expect(mtebPathSegment('org/my model')).toBe('org__my_model');
    const root = mkdtempSync(join(tmpdir(), 'dv-mteb-'));
    const r = mtebTaskResult({
      taskName: 't',
      datasetRevision: 'r',
      evaluationTimeSeconds: 0,
      mainMetric: 'x',
      scores: { x: 1 },
    });
    const paths = await writeMtebResults(root, mtebModelMeta({ name: 'onnx:/models/x', revision: 'abc' }), [
      r,
    ]);
    expect(paths[0]).toBe(join(root, 'onnx%3A__models__x', 'abc', 't.json'));
    // the original name is kept where mteb reads it
    expect(JSON.parse(readFileSync(paths[1]!, 'utf8')).name).toBe('onnx:/models/x');
  });
});
