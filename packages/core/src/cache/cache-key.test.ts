/** The cache-key contract (issue 25): one key recipe, its parts recorded and explained. */
import { describe, expect, it } from 'vitest';
import { cacheKey, keyOfParts, staleReasons } from './cache-key.js';

describe('cacheKey', () => {
  const base = {
    kind: 'reproduce-stage:train/a',
    slice: { batch: { steps: 250, size: 32 }, lr: 1e-4 },
    inputs: { mixes: 'aa', 'pretrain/mini-bert': 'bb' },
    code: { '@dv/train': 'c1' },
  };

  it('is the key of its parts, independent of key order', () => {
    const k = cacheKey(base);
    expect(k.key).toMatch(/^[0-9a-f]{64}$/);
    expect(keyOfParts(k.parts)).toBe(k.key);
    const reordered = cacheKey({
      code: { '@dv/train': 'c1' },
      inputs: { 'pretrain/mini-bert': 'bb', mixes: 'aa' },
      slice: { lr: 1e-4, batch: { size: 32, steps: 250 } },
      kind: 'reproduce-stage:train/a',
    });
    expect(reordered.key).toBe(k.key);
  });

  it('changes with every part, and says which', () => {
    const k = cacheKey(base);
    const variants = [
      { ...base, code: { '@dv/train': 'c2' } },
      { ...base, inputs: { ...base.inputs, mixes: 'zz' } },
      { ...base, slice: { ...base.slice, batch: { steps: 300, size: 32 } } },
      { ...base, salt: '2' },
      { ...base, kind: 'reproduce-stage:train/b' },
    ].map((v) => cacheKey(v));
    expect(new Set([k.key, ...variants.map((v) => v.key)]).size).toBe(6);
    expect(variants.map((v) => staleReasons(k.parts, v.parts))).toEqual([
      ['code of @dv/train changed'],
      ['input mixes changed'],
      ['config batch.steps: 250 -> 300'],
      ['salt (none) -> 2'],
      ['kind reproduce-stage:train/a -> reproduce-stage:train/b'],
    ]);
    expect(staleReasons(k.parts, k.parts)).toEqual([]);
  });

  it('names added and dropped parts, and records made before the contract', () => {
    const k = cacheKey(base);
    const more = cacheKey({ ...base, code: { ...base.code, '@dv/core': 'x' }, inputs: { mixes: 'aa' } });
    expect(staleReasons(k.parts, more.parts)).toEqual([
      'code of @dv/core added',
      'input pretrain/mini-bert dropped',
    ]);
    expect(staleReasons(undefined, k.parts)).toEqual([
      'recorded without key parts (made before code digests were recorded)',
    ]);
  });

  it('takes code digests from refs', () => {
    const k = cacheKey({ kind: 'x', codeRefs: [{ package: '@dv/core' }], from: import.meta.url });
    expect(Object.keys(k.parts.code)).toEqual(['@dv/core']);
    expect(k.parts.code['@dv/core']).toMatch(/^[0-9a-f]{64}$/);
    expect(() => cacheKey({ kind: 'x', codeRefs: [{ package: '@dv/core' }] })).toThrow(/from/);
  });
});
