import { describe, expect, it } from 'vitest';
import { miniBackboneSize, parameterCount } from './mini-backbone-size.js';

describe('miniBackboneSize', () => {
  it('keeps heads of 64 and each layout FFN ratio', () => {
    expect(miniBackboneSize('mini-bert', { layers: 3, hidden: 256 })).toEqual({
      num_hidden_layers: 3,
      hidden_size: 256,
      num_attention_heads: 4,
      intermediate_size: 1024, // 512/128 = 4x
    });
    // gte's gated FFN: 344/128 of hidden, rounded
    expect(miniBackboneSize('mini-gte', { hidden: 192 }).intermediate_size).toBe(
      Math.round((344 / 128) * 192),
    );
    expect(miniBackboneSize('mini-bert', {})).toEqual({});
  });

  it('refuses a hidden size that is not a multiple of 64, naming hidden', () => {
    expect(() => miniBackboneSize('mini-bert', { hidden: 100 })).toThrow(/^hidden must be a multiple of 64$/);
  });

  it('counts parameters over all tensors', () => {
    expect(
      parameterCount(
        new Map([
          ['a', { size: 6 }],
          ['b', { size: 4 }],
        ]),
      ),
    ).toBe(10);
  });
});
