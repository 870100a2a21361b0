import { describe, expect, it } from 'vitest';
import { BoundedHeap } from './bounded-heap.js';

describe('BoundedHeap', () => {
  it('keeps the k best with deterministic ties', () => {
    const h = new BoundedHeap(3);
    [
      [1, 0],
      [5, 1],
      [3, 2],
      [5, 3],
      [0, 4],
      [3, 5],
    ].forEach(([s, i]) => {
      h.push(s!, i!);
    });
    expect(h.sorted()).toEqual([
      { score: 5, index: 1 },
      { score: 5, index: 3 },
      { score: 3, index: 2 },
    ]);
  });
});
