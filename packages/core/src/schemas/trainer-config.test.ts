import { describe, expect, it } from 'vitest';
import { miniMlmPreset, miniPreset, paperPreset, trainerPresets } from '../presets.js';
import { MlmConfig, TrainerConfig, trainerConfigFromRunConfig } from './trainer-config.js';

describe('TrainerConfig / MlmConfig', () => {
  it('fills defaults and names a bad field', () => {
    const c = TrainerConfig.parse({ optimizer: { lr: 1e-4 }, batch: { batchSize: 8 } });
    expect(c.loss.temperature).toBe(0.02);
    expect(c.batch).toMatchObject({
      hardNegatives: 30,
      gradAccumulation: 1,
      gradCacheChunk: null,
      pairViewsInBatch: true,
    });
    expect(c.model.maxQueryLength).toBe(512);
    const bad = TrainerConfig.safeParse({ optimizer: { lr: 1e-4 }, batch: { batchSize: 1 } });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]!.path).toEqual(['batch', 'batchSize']);
    expect(MlmConfig.safeParse({ optimizer: { lr: 1e-3 }, hidden: 100 }).error!.issues[0]!.path).toEqual([
      'hidden',
    ]);
  });

  it('trainer presets follow their run presets; every source names a real path', () => {
    expect(trainerPresets.paper.config).toMatchObject({
      seed: 13,
      loss: { temperature: 0.02 },
      batch: { batchSize: 128, hardNegatives: 30 },
      model: { maxQueryLength: 512, maxDocLength: 512 },
      optimizer: { lr: 3e-5, weightDecay: 0.01 },
    });
    expect(trainerConfigFromRunConfig(paperPreset.config, 42).seed).toBe(42);
    expect(trainerPresets.mini.config.optimizer.lr).toBe(miniPreset.config.train.optimizer.lr);
    for (const p of [...Object.values(trainerPresets), miniMlmPreset])
      for (const path of Object.keys(p.sources)) {
        let v: unknown = p.config;
        for (const k of path.split('.')) v = (v as Record<string, unknown>)?.[k];
        expect(v, `${p.name}: ${path}`).not.toBeUndefined();
      }
    expect(miniMlmPreset.config).toMatchObject({
      maskProbability: 0.15,
      maskReplace: 0.8,
      randomReplace: 0.1,
    });
  });
});
