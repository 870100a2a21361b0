import { describe, expect, it } from 'vitest';
import { SynthesisConfig } from './run-config.js';

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
