import { describe, expect, it } from 'vitest';
import { presets } from '../presets.js';
import { RunConfig } from './run-config.js';
import { SynthesisConfig } from './synthesis-config.js';
import { SynthesisRunConfig } from './synthesis-run-config.js';
import { TrainerBatchConfig, TrainerModelConfig, trainerConfigFromRunConfig } from './trainer-config.js';
import { BatchConfig, ModelConfig } from './training-slices.js';

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
      // trainer: the train slice is the trainer's config as it is, with the run's first seed
      const t = trainerConfigFromRunConfig(run);
      expect(TrainerModelConfig.parse(run.train.model)).toEqual({ ...t.model });
      expect(t.batch).toEqual(run.train.batch);
      expect(t.checkpoint).toEqual(run.train.checkpoint);
      expect(t.seed).toBe(run.seeds[0]);
      // synthesis: the slice is the synthesis run's config as it is (plus the dev-pair count)
      const { devPairs: _reproduceOnly, ...synthesis } = run.synthesis;
      const s = SynthesisRunConfig.parse({ seedsPath: 's.jsonl', outDir: 'out', synthesis });
      expect(s.synthesis).toEqual(synthesis);
    }
  });

  it('the trainer model config has exactly the encoding fields of the model slice plus dropout', () => {
    const shared = Object.keys(TrainerModelConfig.shape).filter((k) => k !== 'dropout');
    expect(shared.every((k) => k in ModelConfig.shape)).toBe(true);
    expect(Object.keys(BatchConfig.shape).every((k) => k in TrainerBatchConfig.shape)).toBe(true);
  });
});
