import { describe, expect, it } from 'vitest';
import { learningRate } from './learning-rate.js';

describe('learningRate', () => {
  const all = (total: number, name: 'wsd' | 'linear' | 'constant', warmupRatio: number, decayRatio: number) =>
    Array.from({ length: total }, (_, s) => learningRate(s, total, 1, { name, warmupRatio, decayRatio }));

  it('wsd: linear warmup, flat, linear decay to the last step', () => {
    // 10 steps, warmup 2, decay 4: 0.5 1 | 1 1 1 1 | 1 0.75 0.5 0.25
    expect(all(10, 'wsd', 0.2, 0.4)).toEqual([0.5, 1, 1, 1, 1, 1, 1, 0.75, 0.5, 0.25]);
  });

  it('linear decays over everything after warmup; constant stays at the peak', () => {
    expect(all(5, 'linear', 0.2, 0.9)).toEqual([1, 1, 0.75, 0.5, 0.25]);
    expect(all(4, 'constant', 0.5, 0.5)).toEqual([0.5, 1, 1, 1]);
    expect(all(3, 'wsd', 0, 0)).toEqual([1, 1, 1]);
  });

  it('refuses steps outside the run', () => {
    expect(() => learningRate(10, 10, 1, { name: 'wsd', warmupRatio: 0.1, decayRatio: 0.1 })).toThrow(
      /outside/,
    );
  });
});
