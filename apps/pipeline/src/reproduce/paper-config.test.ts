import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runOverlays } from '@dv/core';
import { HUB_DATASETS } from '@dv/data';
import { describe, expect, it } from 'vitest';
import { resolveReproduceConfig } from './reproduce-config.js';
import { benchmarkDatasets } from './stages/paper/benchmarks-stage.js';
import { buildPaperStages } from './stages/paper/build-paper-stages.js';

const dir = mkdtempSync(join(tmpdir(), 'dv-paper-config-'));
const file = (name: string, body: unknown) => {
  const p = join(dir, name);
  writeFileSync(p, JSON.stringify(body));
  return p;
};

describe('paper profile config', () => {
  it("carries the paper's values", () => {
    const c = resolveReproduceConfig({ profile: 'paper' });
    expect(c.synthesis.model).toBe('Qwen/Qwen3-Next-80B-A3B-Instruct');
    expect(c.paper!.seeds.dataset).toBe('promptriever');
    expect(HUB_DATASETS[c.paper!.seeds.dataset as 'promptriever'].repo).toBe(
      'samaya-ai/msmarco-w-instructions',
    );
    expect(c.paper!.models.map((m) => m.repo)).toEqual([
      'Alibaba-NLP/gte-multilingual-mlm-base',
      'BAAI/bge-m3-retromae',
    ]);
    expect(c.backbones).toEqual(['gte-multilingual-mlm-base', 'bge-m3-retromae']);
    expect(c.mixes.budget).toBe(480_000);
    expect(c.train.batch.hardNegatives).toBe(30);
    expect(c.train.loss.temperature).toBe(0.02);
    expect([c.train.model.maxQueryLength, c.train.model.maxDocLength, c.eval.maxLength]).toEqual([
      512, 512, 512,
    ]);
    expect(c.eval.benchmarks).toEqual(['followir', 'infosearch', 'mair']);
    // FollowIR 3 + InfoSearch 6 + MAIR queries and docs, from the task registry
    expect(benchmarkDatasets(c).map((d) => d.key)).toHaveLength(11);
    // the preset's datasets (core cannot import the task registry) are the seed data and exactly
    // those tasks' datasets, in the registry's order
    expect(c.paper!.datasets.map((d) => d.name)).toEqual([
      'promptriever',
      ...benchmarkDatasets(c).map((d) => d.key),
    ]);
    expect(c.paper!.compute).toBe('gpu');
  });
  it('every value the preset sets has its provenance', () => {
    for (const k of [
      'synthesis.model',
      'paper.seeds.dataset',
      'paper.models[0]',
      'paper.models[1]',
      'eval.benchmarks',
      'mixes.budget',
      'train.batch.hardNegatives',
      'train.loss.temperature',
      'train.model.maxQueryLength',
    ])
      expect(
        ({ ...runOverlays.mini.sources, ...runOverlays.paper.sources } as Record<string, string>)[k],
        k,
      ).toMatch(/\w/);
  });
  it('--config FILE overrides it; bad values name the file and the field', () => {
    const c = resolveReproduceConfig({
      profile: 'paper',
      configFile: file('over.json', {
        mixes: { budget: 240_000 },
        paper: { compute: 'scale-out', scaleOut: { command: 'torchrun' } },
        eval: { benchmarks: ['followir'] },
      }),
    });
    expect(c.mixes.budget).toBe(240_000);
    expect(c.synthesis.model).toBe('Qwen/Qwen3-Next-80B-A3B-Instruct'); // merged, not replaced
    expect(c.paper!.scaleOut).toEqual({
      command: 'torchrun',
      engine: 'sentence-transformers',
      nprocPerNode: 1,
      launch: true,
    });
    // scale-out without a launcher: the DAG ends with the engine exports (no eval, no report)
    const built = buildPaperStages(c, { launch: null });
    expect(built.scaleOut).toBe(true);
    expect(built.stages.map((s) => s.group)).not.toContain('eval');
    expect(built.stages.filter((s) => s.group === 'train')).toHaveLength(2 * 4 * 3);
    expect(() =>
      resolveReproduceConfig({
        profile: 'paper',
        configFile: file('bad.json', { paper: { compute: 'tpu' } }),
      }),
    ).toThrow(/bad\.json: invalid reproduce config: paper\.compute/);
    expect(() =>
      resolveReproduceConfig({ profile: 'paper', configFile: file('bb.json', { backbones: ['mini-bert'] }) }),
    ).toThrow(/bb\.json: invalid reproduce config: backbones: mini-bert not among paper\.models/);
  });
  it('the GPU DAG: seeds -> synth -> mixes, backbones -> train, benchmarks + models -> eval -> report', () => {
    const built = buildPaperStages(resolveReproduceConfig({ profile: 'paper' }));
    const ids = built.stages.map((s) => s.id);
    expect(ids.slice(0, 5)).toEqual([
      'seeds',
      'synth',
      'mixes',
      'backbones/gte-multilingual-mlm-base',
      'backbones/bge-m3-retromae',
    ]);
    const train = built.stages.find((s) => s.id === 'train/bge-m3-retromae/ins-dv/seed-42')!;
    expect(train.deps).toEqual(['backbones/bge-m3-retromae', 'mixes']);
    expect(ids).toContain('eval/gte-multilingual-mlm-base/untrained');
    expect(ids.at(-1)).toBe('report');
    // 2 backbones x 4 mixes x 3 seeds trained + BM25 + 2 untrained, each evaluated
    expect(built.stages.filter((s) => s.group === 'eval')).toHaveLength(24 + 3);
  });
});
