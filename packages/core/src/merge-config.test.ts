import { describe, expect, it } from 'vitest';
import { mergeConfig } from './merge-config.js';

describe('mergeConfig', () => {
  it('merges objects member by member; arrays, scalars and null replace (golden)', () => {
    const base = { a: { x: 1, y: 2, deep: { k: 'v', n: 1 } }, s: [1, 2, 3], t: 'keep', u: { o: 1 } };
    const over = { a: { y: 3, deep: { n: 2 } }, s: [9], t: 'new', u: null, added: { z: true } };
    expect(mergeConfig(base, over)).toEqual({
      a: { x: 1, y: 3, deep: { k: 'v', n: 2 } },
      s: [9],
      t: 'new',
      u: null,
      added: { z: true },
    });
  });

  it('an object replaces a scalar and a scalar an object; undefined keeps the base', () => {
    expect(mergeConfig({ a: 1, b: { c: 1 } }, { a: { x: 1 }, b: 5 })).toEqual({ a: { x: 1 }, b: 5 });
    expect(mergeConfig({ a: 1, b: 2 }, { a: undefined })).toEqual({ a: 1, b: 2 });
    expect(mergeConfig({ a: 1 }, undefined)).toEqual({ a: 1 });
  });

  it('leaves both inputs unchanged', () => {
    const base = { a: { x: 1 } };
    const over = { a: { x: 2 } };
    mergeConfig(base, over);
    expect(base).toEqual({ a: { x: 1 } });
    expect(over).toEqual({ a: { x: 2 } });
  });
});
