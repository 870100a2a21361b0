import { describe, expect, it } from 'vitest';
import { Semaphore } from './semaphore.js';

/** A promise resolved from outside, so tests control when each task ends (no timers). */
function gate() {
  let open!: () => void;
  const done = new Promise<void>((r) => {
    open = r;
  });
  return { done, open };
}

describe('Semaphore', () => {
  it('admits at most `limit` holders, then the waiters in FIFO order', async () => {
    const sem = new Semaphore(2);
    const order: number[] = [];
    const gates = [gate(), gate(), gate(), gate()];
    const all = sem.map([0, 1, 2, 3], async (i) => {
      order.push(i);
      await gates[i]!.done;
      return i * 10;
    });
    await Promise.resolve();
    await Promise.resolve();
    expect(order).toEqual([0, 1]);
    expect(sem.inFlight).toBe(2);
    gates[1]!.open();
    await new Promise((r) => setImmediate(r));
    expect(order).toEqual([0, 1, 2]);
    expect(sem.inFlight).toBe(2);
    for (const g of gates) g.open();
    expect(await all).toEqual([0, 10, 20, 30]);
    expect(sem.inFlight).toBe(0);
  });

  it('releases the slot when the task throws, and a release twice counts once', async () => {
    const sem = new Semaphore(1);
    await expect(sem.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(sem.inFlight).toBe(0);
    const release = await sem.acquire();
    release();
    release();
    expect(sem.inFlight).toBe(0);
    expect(await sem.run(async () => 7)).toBe(7);
  });

  it('refuses a limit below 1', () => {
    expect(() => new Semaphore(0)).toThrow(/positive integer \(got 0\)/);
  });
});
