import { createRng } from '@dv/core';
import { describe, expect, it } from 'vitest';
import { ignoredLabel, maskTokens } from './mask-tokens.js';

const options = {
  maskProbability: 0.15,
  maskReplace: 0.8,
  randomReplace: 0.1,
  maskId: 4,
  vocabSize: 1000,
  specialIds: new Set([0, 1, 2, 3, 4]),
};

describe('maskTokens (BERT 15% / 80-10-10)', () => {
  it('chooses ~15% of real tokens, never specials or padding; 80% [MASK], 10% random, 10% kept', () => {
    const rows = 400;
    const ids = Array.from({ length: rows }, (_, r) => [
      2,
      ...Array.from({ length: 60 }, (_, t) => 5 + ((r * 61 + t) % 995)),
      3,
      0,
      0,
    ]);
    const mask = ids.map((row) => row.map((id) => (id === 0 ? 0 : 1)));
    const out = maskTokens(ids, mask, options, createRng(1));
    let chosen = 0;
    let masked = 0;
    let random = 0;
    let kept = 0;
    out.labels.forEach((row, r) => {
      row.forEach((label, t) => {
        const original = ids[r]![t]!;
        if (label === ignoredLabel) {
          expect(out.inputIds[r]![t]).toBe(original);
          return;
        }
        expect(options.specialIds.has(original)).toBe(false);
        expect(label).toBe(original);
        chosen++;
        const now = out.inputIds[r]![t]!;
        if (now === 4) masked++;
        else if (now === original) kept++;
        else random++;
        expect(options.specialIds.has(now) && now !== 4).toBe(false);
      });
    });
    const n = rows * 60;
    expect(chosen / n).toBeGreaterThan(0.14);
    expect(chosen / n).toBeLessThan(0.16);
    expect(masked / chosen).toBeGreaterThan(0.77);
    expect(masked / chosen).toBeLessThan(0.83);
    expect(random / chosen).toBeGreaterThan(0.08);
    expect(kept / chosen).toBeGreaterThan(0.08);
    // Deterministic in the RNG.
    expect(maskTokens(ids, mask, options, createRng(1))).toEqual(out);
  });

  it('a sequence where nothing was drawn still predicts one token', () => {
    const out = maskTokens([[2, 7, 3]], [[1, 1, 1]], { ...options, maskProbability: 1e-9 }, createRng(3));
    expect(out.labels).toEqual([[ignoredLabel, 7, ignoredLabel]]);
  });
});
