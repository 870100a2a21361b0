import { describe, expect, it } from 'vitest';
import { createRng } from './index.js';

describe('seeded RNG', () => {
  it('same seed gives the same stream; a pinned prefix guards cross-machine stability', () => {
    const a = createRng(42);
    const b = createRng(42);
    const xs = Array.from({ length: 5 }, () => a.nextUint32());
    expect(Array.from({ length: 5 }, () => b.nextUint32())).toEqual(xs);
    // Pinned once from this implementation; a change here breaks every cached dataset.
    expect(xs).toMatchInlineSnapshot(`
      [
        2837322924,
        544945897,
        479756282,
        3500138142,
        339756180,
      ]
    `);
  });
  it('different seeds differ', () => {
    expect(createRng(1).nextUint32()).not.toBe(createRng(2).nextUint32());
  });
  it('float is in [0,1) and roughly uniform', () => {
    const r = createRng(7);
    let sum = 0;
    let outside = 0;
    for (let i = 0; i < 20000; i++) {
      const x = r.float();
      if (x < 0 || x >= 1) outside++;
      sum += x;
    }
    expect(outside).toBe(0);
    expect(sum / 20000).toBeCloseTo(0.5, 1);
  });
  it('int covers the range without bias', () => {
    const r = createRng(3);
    const counts = [0, 0, 0];
    for (let i = 0; i < 30000; i++) counts[r.int(3)]!++;
    for (const c of counts) expect(Math.abs(c - 10000)).toBeLessThan(500);
    expect(() => r.int(0)).toThrow();
  });
  it('shuffle is a permutation and deterministic', () => {
    const items = Array.from({ length: 50 }, (_, i) => i);
    const s1 = createRng(5).shuffle(items);
    expect(createRng(5).shuffle(items)).toEqual(s1);
    expect([...s1].sort((x, y) => x - y)).toEqual(items);
    expect(s1).not.toEqual(items);
  });
  it('fork gives an independent stream without advancing the parent', () => {
    const a = createRng(9);
    const b = createRng(9);
    const child = a.fork('data');
    expect(a.nextUint32()).toBe(b.nextUint32());
    expect(child.nextUint32()).toBe(createRng(9).fork('data').nextUint32());
    expect(createRng(9).fork('data').nextUint32()).not.toBe(createRng(9).fork('eval').nextUint32());
  });
  it('state can be saved and restored', () => {
    const a = createRng(11);
    a.nextUint32();
    const state = a.getState();
    const next = a.nextUint32();
    expect(createRng(11, state).nextUint32()).toBe(next);
  });
  it('normal has mean ~0 and variance ~1', () => {
    const r = createRng(1);
    let s = 0;
    let s2 = 0;
    const n = 20000;
    for (let i = 0; i < n; i++) {
      const x = r.normal();
      s += x;
      s2 += x * x;
    }
    expect(s / n).toBeCloseTo(0, 1);
    expect(s2 / n).toBeCloseTo(1, 1);
  });
});
