import { describe, expect, it } from 'vitest';
import { presets } from '../presets.js';
import { BatchConfig, ModelConfig, RunConfig, SynthesisConfig } from './run-config.js';
import { SynthesisRunConfig } from './synthesis-run-config.js';
import { TrainerBatchConfig, TrainerModelConfig, trainerConfigFromRunConfig } from './trainer-config.js';

describe('SynthesisConfig', () => {
  it('accepts optional pricing and judge, and keeps them optional', () => {
    const base = { model: 'm' };
    expect(SynthesisConfig.parse(base).pricing).toBeUndefined();
    const c = SynthesisConfig.parse({
      ...base,
      pricing: { inputPerMTokens: 0.5, outputPerMTokens: 2 },
      judge: 'llm',
    });
    expect(c.pricing).toEqual({ inputPerMTokens: 0.5, outputPerMTokens: 2 });
    expect(c.judge).toBe('llm');
    expect(
      SynthesisConfig.safeParse({ ...base, pricing: { inputPerMTokens: -1, outputPerMTokens: 0 } }).success,
    ).toBe(false);
    expect(SynthesisConfig.safeParse({ ...base, judge: 'oracle' }).success).toBe(false);
  });
});

describe('RunConfig composes the stage configs', () => {
  it('a preset parses through RunConfig, and its slices parse as the stage inputs unchanged', () => {
    for (const p of Object.values(presets)) {
      const run = RunConfig.parse(p.config);
      expect(run).toEqual(p.config);
      // trainer: the model and batch slices are the trainer's fields (one definition)
      const t = trainerConfigFromRunConfig(run);
      expect(TrainerModelConfig.parse(run.model)).toEqual({ ...t.model });
      expect(t.batch).toMatchObject({ ...run.batch, hardNegatives: run.data.hardNegatives });
      expect(t.checkpoint).toEqual(run.checkpoint);
      // synthesis: the slice is the synthesis run's config as it is
      const s = SynthesisRunConfig.parse({ seedsPath: 's.jsonl', outDir: 'out', synthesis: run.synthesis });
      expect(s.synthesis).toEqual(run.synthesis);
    }
  });

  it('the trainer model config has exactly the encoding fields of the model slice plus dropout', () => {
    const shared = Object.keys(TrainerModelConfig.shape).filter((k) => k !== 'dropout');
    expect(shared.every((k) => k in ModelConfig.shape)).toBe(true);
    expect(Object.keys(BatchConfig.shape).every((k) => k in TrainerBatchConfig.shape)).toBe(true);
  });
});
