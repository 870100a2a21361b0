import { describe, expect, it } from 'vitest';
import { complementViewAccuracy } from './complement-view-accuracy.js';

const m = (o: Record<string, Record<string, number>>) =>
  new Map(Object.entries(o).map(([q, r]) => [q, new Map(Object.entries(r))]));

describe('complementViewAccuracy', () => {
  it('counts views whose relevant doc ranks first, and pairs with both right', () => {
    const qrelsOg = m({ p1: { a: 1 }, p2: { a: 1 }, p3: { a: 1 } });
    const qrelsChanged = m({ p1: { b: 1 }, p2: { b: 1 }, p3: { b: 1 } });
    const runOg = m({ p1: { a: 0.9, b: 0.1 }, p2: { a: 0.9, b: 0.1 }, p3: { a: 0.1, b: 0.9 } });
    const runChanged = m({ p1: { a: 0.2, b: 0.8 }, p2: { a: 0.9, b: 0.1 }, p3: { a: 0.1, b: 0.9 } });
    const r = complementViewAccuracy({ qrelsOg, qrelsChanged, runOg, runChanged });
    // p1 both right; p2 og only; p3 changed only
    expect(r.pairs).toBe(3);
    expect(r.perPair).toEqual({ p1: [1, 1], p2: [1, 0], p3: [0, 1] });
    expect(r.viewAccuracy).toBeCloseTo(4 / 6, 12);
    expect(r.bothRight).toBeCloseTo(1 / 3, 12);
    expect(r.ogAccuracy).toBeCloseTo(2 / 3, 12);
  });
  it('breaks score ties by doc id descending (trec_eval order)', () => {
    // a model that ignores the instruction ranks both views the same: at most one can be right
    const tie = m({ p: { a: 0.5, b: 0.5 } });
    const r = complementViewAccuracy({
      qrelsOg: m({ p: { a: 1 } }),
      qrelsChanged: m({ p: { b: 1 } }),
      runOg: tie,
      runChanged: tie,
    });
    expect(r.perPair.p).toEqual([0, 1]);
    expect(r.bothRight).toBe(0);
  });
  it('refuses a pair without a ranking', () => {
    expect(() =>
      complementViewAccuracy({
        qrelsOg: m({ p: { a: 1 } }),
        qrelsChanged: m({ p: { b: 1 } }),
        runOg: m({}),
        runChanged: m({}),
      }),
    ).toThrow(/no og ranking/);
  });
});
