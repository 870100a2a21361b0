import { describe, expect, it } from 'vitest';
import { presets, RunConfig } from './index.js';
import { miniPreset, paperPreset } from './presets.js';

describe('presets', () => {
  it('paper preset carries the seed values', () => {
    const c = paperPreset.config;
    expect(c.loss.temperature).toBe(0.02);
    expect(c.data.hardNegatives).toBe(30);
    expect(c.model.maxQueryLength).toBe(512);
    expect(c.data.budget).toBe(480_000);
    expect(c.synthesis.model).toBe('Qwen/Qwen3-Next-80B-A3B-Instruct');
  });

  it('every preset validates and every source names a real config path', () => {
    for (const p of Object.values(presets)) {
      expect(RunConfig.safeParse(p.config).success).toBe(true);
      for (const path of Object.keys(p.sources)) {
        let v: unknown = p.config;
        for (const k of path.split('.')) v = (v as Record<string, unknown>)?.[k];
        expect(v, `${p.name}: ${path}`).not.toBeUndefined();
      }
    }
  });

  it('mini preset uses the offline reverser and no endpoints', () => {
    expect(miniPreset.config.synthesis.backend).toBe('offline');
    expect(miniPreset.config.synthesis.baseURLs).toEqual([]);
    expect(miniPreset.config.loss.temperature).toBe(paperPreset.config.loss.temperature);
  });
});
